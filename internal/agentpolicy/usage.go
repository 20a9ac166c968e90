package agentpolicy

import "time"

// Usage windows. Spending is counted per UTC calendar day and per UTC calendar month: a
// new day starts the daily amount and transaction count at zero, a new month the monthly
// amount, at midnight UTC whatever the platform's or customer's time zone.
const (
	// DayLayout is the form of a usage day (dailyResetDate): YYYY-MM-DD.
	DayLayout = "2006-01-02"
	// MonthLayout is the form of a usage month (monthlyResetMonth): YYYY-MM.
	MonthLayout = "2006-01"
)

// Day is the UTC day of t, as YYYY-MM-DD.
func Day(t time.Time) string { return t.UTC().Format(DayLayout) }

// Month is the UTC month of t, as YYYY-MM.
func Month(t time.Time) string { return t.UTC().Format(MonthLayout) }

// Usage is what an agent spent in the current windows (AgentUsage): the daily amount and
// transaction count of DailyResetDate and the monthly amount of MonthlyResetMonth, in the
// policy currency's smallest unit (Currency, not shown: it is the policy's).
type Usage struct {
	Currency string `json:"-"`
	// CurrencySince is when the amounts started being counted in Currency (zero: since the
	// agent's first reservation): a reservation taken before it was counted in amounts that
	// are gone.
	CurrencySince         time.Time `json:"-"`
	DailyTransactionCount int64     `json:"dailyTransactionCount"`
	DailySpend            int64     `json:"dailySpend"`
	DailyResetDate        string    `json:"dailyResetDate"`
	MonthlySpend          int64     `json:"monthlySpend"`
	MonthlyResetMonth     string    `json:"monthlyResetMonth"`
}

// Fresh is the usage of an agent that has spent nothing, at now, counted in currency.
func Fresh(now time.Time, currency string) Usage {
	return Usage{Currency: currency, DailyResetDate: Day(now), MonthlyResetMonth: Month(now)}
}

// In is u counted in currency at now: when the policy currency changed since u was
// counted, the amounts start again at zero in the new one from now (the transaction count
// stays). Amounts reserved before are then no longer given back (see Release).
func (u Usage) In(currency string, now time.Time) Usage {
	if u.Currency != currency {
		u.Currency, u.CurrencySince, u.DailySpend, u.MonthlySpend = currency, now, 0, 0
	}
	return u
}

// At is u as it stands at now: the daily counters start again at zero when now is on a
// later day than DailyResetDate, the monthly amount when now is in a later month than
// MonthlyResetMonth. Windows only move forward (the labels YYYY-MM-DD and YYYY-MM sort as
// dates): a clock a little behind another's (two servers around midnight) counts into the
// window already open instead of resetting it, so spending is never forgotten.
func (u Usage) At(now time.Time) Usage {
	if day := Day(now); day > u.DailyResetDate {
		u.DailyTransactionCount, u.DailySpend, u.DailyResetDate = 0, 0, day
	}
	if month := Month(now); month > u.MonthlyResetMonth {
		u.MonthlySpend, u.MonthlyResetMonth = 0, month
	}
	return u
}

// Add is u at now with one more transaction of amount (in the policy currency).
func (u Usage) Add(now time.Time, amount int64) Usage {
	u = u.At(now)
	u.DailyTransactionCount++
	u.DailySpend += amount
	u.MonthlySpend += amount
	return u
}
