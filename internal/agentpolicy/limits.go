package agentpolicy

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"paycore/internal/catalog"
	"paycore/internal/fx"
	"paycore/internal/money"
	"paycore/internal/problem"
)

// The limits an action can pass, as refusals name them in details.limit.
const (
	LimitPerTransaction = "perTransactionLimit"
	LimitDaily          = "dailyLimit"
	LimitDailyCount     = "dailyTransactionLimit"
	LimitMonthly        = "monthlyLimit"
)

// Limits are the windowed limits of a policy, in the policy currency's smallest unit; nil
// is unlimited. They are what a reservation of usage is checked against.
type Limits struct {
	// Currency is the policy currency, named in refusals.
	Currency   string
	Daily      *int64
	DailyCount *int64
	Monthly    *int64
}

// Limits returns the policy's windowed limits.
func (p Policy) Limits() Limits {
	l := p.SpendingLimits
	return Limits{Currency: l.Currency, Daily: l.DailyLimit, DailyCount: l.DailyTransactionLimit, Monthly: l.MonthlyLimit}
}

// LimitExceeded is the refusal of an action that would pass the named limit: 403
// VELOCITY_LIMIT_EXCEEDED with details.limit, details.limitValue and details.currency.
func LimitExceeded(limit string, value int64, currency, format string, args ...any) error {
	return problem.Refuse(catalog.VelocityLimitExceeded, "%s", fmt.Sprintf(format, args...)).
		With(map[string]any{"limit": limit, "limitValue": value, "currency": currency})
}

// CheckWindows refuses one more transaction of amount on top of u (usage as it stands
// now, see Usage.At) when it would pass the daily transaction count, the daily amount or
// the monthly amount of l. Reaching a limit exactly is allowed.
func (l Limits) CheckWindows(u Usage, amount int64) error {
	currency := l.Currency
	if l.DailyCount != nil && u.DailyTransactionCount+1 > *l.DailyCount {
		return LimitExceeded(LimitDailyCount, *l.DailyCount, currency,
			"the daily transaction limit of %d is reached: %d transactions on %s (UTC)", *l.DailyCount, u.DailyTransactionCount, u.DailyResetDate)
	}
	if l.Daily != nil && (amount > *l.Daily || u.DailySpend > *l.Daily-amount) {
		return LimitExceeded(LimitDaily, *l.Daily, currency,
			"%d %s would pass the daily limit of %d %s: %d already spent on %s (UTC)", amount, currency, *l.Daily, currency, u.DailySpend, u.DailyResetDate)
	}
	if l.Monthly != nil && (amount > *l.Monthly || u.MonthlySpend > *l.Monthly-amount) {
		return LimitExceeded(LimitMonthly, *l.Monthly, currency,
			"%d %s would pass the monthly limit of %d %s: %d already spent in %s (UTC)", amount, currency, *l.Monthly, currency, u.MonthlySpend, u.MonthlyResetMonth)
	}
	return nil
}

// Release gives back a transaction of amount in currency that was counted at the moment
// at: only the windows of u that still are those of at are reduced (never below zero); a
// newer day or month, or a window that is not at's, is left as it is. An amount counted
// before u's amounts started in its currency (the policy currency changed since, which
// started them again at zero; perhaps back and forth) gives back only the transaction.
func (u Usage) Release(at time.Time, amount int64, currency string) Usage {
	if currency != u.Currency || at.Before(u.CurrencySince) {
		amount = 0
	}
	if u.DailyResetDate == Day(at) {
		u.DailyTransactionCount = max(u.DailyTransactionCount-1, 0)
		u.DailySpend = max(u.DailySpend-amount, 0)
	}
	if u.MonthlyResetMonth == Month(at) {
		u.MonthlySpend = max(u.MonthlySpend-amount, 0)
	}
	return u
}

// Action is a money movement an agent asks for, as the limits see it.
type Action struct {
	// Amount is the action's amount in the policy currency's smallest unit (converted
	// with ToPolicyCurrency when the action is in another currency).
	Amount int64
	// AccountID is the source internal account (InternalAccount:<uuid>).
	AccountID string
	// Threshold is approvalThresholds.amount expressed in the policy currency
	// (Policy.Threshold); nil when there is none.
	Threshold *int64
}

// Decision is an allowed action: whether it waits for the platform's approval.
type Decision struct {
	NeedsApproval bool
}

// Decide applies the policy to an action of the agent whose usage, as it stands at now,
// is u (windows reset by Usage.At). It refuses an account the policy does not allow (403
// FORBIDDEN, details.accountId) and an amount that passes a limit (403
// VELOCITY_LIMIT_EXCEEDED naming it in details.limit): the per-transaction limit (the
// account rule's when it sets one), the daily transaction count, the daily amount, the
// monthly amount. An allowed action needs approval when the policy's default mode is
// APPROVAL_REQUIRED, or the account's rule says APPROVAL_REQUIRED, or its amount is
// above the threshold: any one of the three asks for approval, so an account rule saying
// AUTO lifts neither the default mode nor the threshold. Called with the usage as locked
// while the action and its reservation are written (db.AgentActionSubmit), which is what
// keeps concurrent actions within the limits.
func (p Policy) Decide(u Usage, now time.Time, a Action) (Decision, error) {
	cur := p.SpendingLimits.Currency
	r := p.AccountRestrictions
	if err := p.AllowsAccount(a.AccountID); err != nil {
		return Decision{}, err
	}
	if a.Amount < 0 {
		return Decision{}, problem.Field("amount", "amount must not be negative")
	}
	mode := p.DefaultExecutionMode
	perTx, perTxFrom := p.SpendingLimits.PerTransactionLimit, "spendingLimits.perTransactionLimit"
	if i := slices.IndexFunc(r.AccountRules, func(x AccountRule) bool { return x.AccountID == a.AccountID }); i >= 0 {
		rule := r.AccountRules[i]
		if rule.PerTransactionLimit != nil {
			perTx, perTxFrom = *rule.PerTransactionLimit, fmt.Sprintf("accountRestrictions.accountRules[%d].perTransactionLimit", i)
		}
		if rule.ExecutionMode != nil {
			mode = *rule.ExecutionMode
		}
	}
	if a.Amount > perTx {
		return Decision{}, LimitExceeded(LimitPerTransaction, perTx, cur,
			"%d %s passes the per-transaction limit of %d %s (%s)", a.Amount, cur, perTx, cur, perTxFrom)
	}
	if err := p.Limits().CheckWindows(u.At(now), a.Amount); err != nil {
		return Decision{}, err
	}
	needs := p.DefaultExecutionMode == ApprovalRequired || mode == ApprovalRequired ||
		(a.Threshold != nil && a.Amount > *a.Threshold)
	return Decision{NeedsApproval: needs}, nil
}

// AllowsAccount refuses an internal account (InternalAccount:<uuid>) the policy does not
// let the agent use: 403 FORBIDDEN naming it in details.accountId.
func (p Policy) AllowsAccount(accountID string) error {
	allowed := p.AccountRestrictions.AllowedAccountIDs
	if allowed != nil && !slices.Contains(allowed, accountID) {
		return problem.Refuse(catalog.Forbidden, "the agent's policy does not allow the account %s (accountRestrictions.allowedAccountIds)", accountID).
			With(map[string]any{"accountId": accountID})
	}
	return nil
}

// ToPolicyCurrency expresses amount minor units of from in minor units of to at the
// mid-market rate of the moment at (no spread, no fee), rounded up so that a limit is never
// under-counted (see convert for the rate's own rounding); the same currency is returned
// as it is. A negative amount is fx.ErrNegative, a result beyond int64 fx.ErrTooLarge.
func ToPolicyCurrency(rates fx.Provider, amount int64, from, to money.Currency, at time.Time) (int64, error) {
	return convert(rates, amount, from, to, at, decimal.Decimal.Ceil)
}

// Threshold is the policy's approvalThresholds.amount in the policy currency at the
// moment at (Action.Threshold), nil when there is none. It is rounded up, as amounts are:
// an amount equal to the threshold (converted the same way) does not ask for approval,
// "above" does; the difference is under one minor unit of the policy currency.
func (p Policy) Threshold(rates fx.Provider, at time.Time) (*int64, error) {
	t := p.ApprovalThresholds
	if t.Amount == nil {
		return nil, nil
	}
	from, okf := money.Lookup(t.Currency)
	to, okt := money.Lookup(p.SpendingLimits.Currency)
	if !okf || !okt {
		return nil, fmt.Errorf("approval threshold %s in %s: unknown currency", t.Currency, p.SpendingLimits.Currency)
	}
	v, err := convert(rates, *t.Amount, from, to, at, decimal.Decimal.Ceil)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// convert expresses amount minor units of from in minor units of to at the mid-market
// rate, rounded to whole units by round.
func convert(rates fx.Provider, amount int64, from, to money.Currency, at time.Time, round func(decimal.Decimal) decimal.Decimal) (int64, error) {
	if amount < 0 {
		return 0, fx.ErrNegative
	}
	if from.Code == to.Code {
		return amount, nil
	}
	mid, _, err := rates.Mid(from.Code, to.Code, at)
	if err != nil {
		return 0, fmt.Errorf("convert %s to %s: %w", from.Code, to.Code, err)
	}
	// The rate is a 24-place quotient, a hair off an exact one (1 / 0.92): the product is
	// rounded to 9 places first so that an exact conversion does not gain or lose a unit.
	d := round(decimal.NewFromInt(amount).Mul(mid).Shift(int32(to.Decimals - from.Decimals)).Round(9))
	if d.GreaterThan(decimal.NewFromInt(1<<63 - 1)) {
		return 0, fx.ErrTooLarge
	}
	return d.IntPart(), nil
}

// Uncountable is the refusal of an amount in from that cannot be counted in the policy
// currency to (err from ToPolicyCurrency: no rate between the two, negative, or too large),
// on amount; any other error is returned as it is.
func Uncountable(err error, from, to string) error {
	if errors.Is(err, fx.ErrTooLarge) || errors.Is(err, fx.ErrNegative) || errors.Is(err, fx.ErrNoRate) {
		return problem.Field("amount", "the amount in %s cannot be counted in the policy currency %s: %v", from, to, err)
	}
	return err
}
