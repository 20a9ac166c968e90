package agentpolicy

import (
	"errors"
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/fx"
	"paycore/internal/money"
	"paycore/internal/problem"
)

func limitsPolicy() Policy {
	approval := ApprovalRequired
	return Policy{Permissions: []Permission{CreateTransfers}, DefaultExecutionMode: Auto,
		SpendingLimits: SpendingLimits{Currency: "USD", PerTransactionLimit: 5000, DailyLimit: i64(20000),
			DailyTransactionLimit: i64(3), MonthlyLimit: i64(50000)},
		AccountRestrictions: AccountRestrictions{AllowedAccountIDs: []string{acct1, acct2},
			AccountRules: []AccountRule{{AccountID: acct1, PerTransactionLimit: i64(8000)}, {AccountID: acct2, ExecutionMode: &approval}}},
		ApprovalThresholds: ApprovalThresholds{Currency: "USD", Amount: i64(2500)},
	}
}

// refusal returns the code and details.limit of a refusal.
func refusal(t *testing.T, err error) (catalog.Code, any) {
	t.Helper()
	var r *problem.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("err = %v, want a refusal", err)
	}
	return r.Code, r.Details["limit"]
}

func TestDecideLimitsAtTheirEdges(t *testing.T) {
	now := time.Date(2026, 3, 31, 23, 59, 0, 0, time.UTC)
	p := limitsPolicy()
	p.ApprovalThresholds.Amount = nil
	p.AccountRestrictions.AccountRules = p.AccountRestrictions.AccountRules[:1]
	u := Usage{DailyTransactionCount: 1, DailySpend: 15000, DailyResetDate: "2026-03-31", MonthlySpend: 40000, MonthlyResetMonth: "2026-03"}
	cases := []struct {
		name   string
		p      func(Policy) Policy
		u      Usage
		amount int64
		acct   string
		limit  string // "" when allowed
	}{
		{"per transaction exactly", nil, Fresh(now, "USD"), 5000, acct2, ""},
		{"per transaction one more", nil, Fresh(now, "USD"), 5001, acct2, LimitPerTransaction},
		{"account rule raises per transaction", nil, Fresh(now, "USD"), 8000, acct1, ""},
		{"account rule's limit one more", nil, Fresh(now, "USD"), 8001, acct1, LimitPerTransaction},
		{"daily exactly", nil, u, 5000, acct2, ""},
		{"daily one more", nil, u, 5001, acct2, LimitPerTransaction},
		{"daily one more within per transaction", nil, Usage{DailySpend: 15001, DailyResetDate: "2026-03-31", MonthlyResetMonth: "2026-03"}, 5000, acct2, LimitDaily},
		{"monthly exactly", func(p Policy) Policy { p.SpendingLimits.MonthlyLimit = i64(45000); return p }, u, 5000, acct2, ""},
		{"monthly one more", func(p Policy) Policy { p.SpendingLimits.MonthlyLimit = i64(44999); return p }, u, 5000, acct2, LimitMonthly},
		{"count exactly", nil, Usage{DailyTransactionCount: 2, DailyResetDate: "2026-03-31", MonthlyResetMonth: "2026-03"}, 1, acct2, ""},
		{"count one more", nil, Usage{DailyTransactionCount: 3, DailyResetDate: "2026-03-31", MonthlyResetMonth: "2026-03"}, 1, acct2, LimitDailyCount},
		{"yesterday's usage is reset", nil, Usage{DailyTransactionCount: 3, DailySpend: 20000, DailyResetDate: "2026-03-30", MonthlySpend: 40000, MonthlyResetMonth: "2026-03"}, 5000, acct2, ""},
		{"last month's usage is reset", func(p Policy) Policy { p.SpendingLimits.MonthlyLimit = i64(5000); return p },
			Usage{DailyResetDate: "2026-02-28", MonthlySpend: 50000, MonthlyResetMonth: "2026-02"}, 5000, acct2, ""},
		{"unlimited", func(p Policy) Policy {
			p.SpendingLimits.DailyLimit, p.SpendingLimits.DailyTransactionLimit, p.SpendingLimits.MonthlyLimit = nil, nil, nil
			return p
		},
			Usage{DailyTransactionCount: 99, DailySpend: 1 << 60, DailyResetDate: "2026-03-31", MonthlySpend: 1 << 60, MonthlyResetMonth: "2026-03"}, 5000, acct2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pp := p
			if c.p != nil {
				pp = c.p(p)
			}
			_, err := pp.Decide(c.u, now, Action{Amount: c.amount, AccountID: c.acct})
			if c.limit == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			code, limit := refusal(t, err)
			if code != catalog.VelocityLimitExceeded || limit != c.limit {
				t.Fatalf("refusal %s %v, want %s %s (%v)", code, limit, catalog.VelocityLimitExceeded, c.limit, err)
			}
		})
	}
}

func TestDecideAccountNotAllowed(t *testing.T) {
	now := time.Now()
	p := limitsPolicy()
	_, err := p.Decide(Fresh(now, "USD"), now, Action{Amount: 1, AccountID: "InternalAccount:00000000-0000-0000-0000-000000000001"})
	if code, _ := refusal(t, err); code != catalog.Forbidden {
		t.Fatalf("code %s", code)
	}
	p.AccountRestrictions = AccountRestrictions{AccountRules: []AccountRule{}}
	if _, err := p.Decide(Fresh(now, "USD"), now, Action{Amount: 1, AccountID: "InternalAccount:00000000-0000-0000-0000-000000000001"}); err != nil {
		t.Fatalf("every account allowed: %v", err)
	}
}

func TestDecideApproval(t *testing.T) {
	now := time.Now()
	threshold := i64(2500)
	cases := []struct {
		name      string
		p         func(Policy) Policy
		amount    int64
		acct      string
		threshold *int64
		want      bool
	}{
		{"auto below threshold", nil, 2500, acct1, threshold, false},
		{"auto above threshold", nil, 2501, acct1, threshold, true},
		{"no threshold", nil, 5000, acct1, nil, false},
		{"account rule requires approval", nil, 1, acct2, threshold, true},
		{"default requires approval", func(p Policy) Policy { p.DefaultExecutionMode = ApprovalRequired; return p }, 1, acct1, threshold, true},
		{"an AUTO rule does not lift the default", func(p Policy) Policy {
			p.DefaultExecutionMode = ApprovalRequired
			auto := Auto
			p.AccountRestrictions.AccountRules[0].ExecutionMode = &auto
			return p
		}, 1, acct1, nil, true},
		{"an AUTO rule does not lift the threshold", func(p Policy) Policy {
			auto := Auto
			p.AccountRestrictions.AccountRules[0].ExecutionMode = &auto
			return p
		}, 3000, acct1, threshold, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := limitsPolicy()
			if c.p != nil {
				p = c.p(p)
			}
			d, err := p.Decide(Fresh(now, "USD"), now, Action{Amount: c.amount, AccountID: c.acct, Threshold: c.threshold})
			if err != nil {
				t.Fatal(err)
			}
			if d.NeedsApproval != c.want {
				t.Fatalf("needs approval %v, want %v", d.NeedsApproval, c.want)
			}
		})
	}
}

func TestUsageRelease(t *testing.T) {
	at := time.Date(2026, 3, 31, 10, 0, 0, 0, time.UTC)
	u := Fresh(at, "USD").Add(at, 700).Add(at, 300)
	if got := u.Release(at, 300, "USD"); got.DailySpend != 700 || got.DailyTransactionCount != 1 || got.MonthlySpend != 700 {
		t.Fatalf("same day %+v", got)
	}
	// Usage of the next day (same month): a release of yesterday lowers only the month.
	next := at.Add(24 * time.Hour)
	if next.Month() == at.Month() {
		t.Fatal("fixture")
	}
	tomorrow := at.Add(14 * time.Hour) // 2026-04-01 00:00 UTC: another day and month
	v := u.At(tomorrow).Add(tomorrow, 100)
	if got := v.Release(at, 300, "USD"); got != v {
		t.Fatalf("a release of an earlier day and month changed %+v into %+v", v, got)
	}
	day2 := at.Add(-24 * time.Hour) // 2026-03-30: same month, earlier day
	if got := u.Release(day2, 300, "USD"); got.DailySpend != 1000 || got.DailyTransactionCount != 2 || got.MonthlySpend != 700 {
		t.Fatalf("earlier day, same month %+v", got)
	}
	if got := u.Release(at, 5000, "USD"); got.DailySpend != 0 || got.MonthlySpend != 0 || got.DailyTransactionCount != 1 {
		t.Fatalf("never below zero %+v", got)
	}
	// The policy currency changed: the amounts started again at zero in EUR, and an amount
	// reserved in USD gives back only its transaction.
	eur := u.In("EUR", at).Add(at, 40)
	if eur.DailySpend != 40 || eur.MonthlySpend != 40 || eur.DailyTransactionCount != 3 {
		t.Fatalf("in EUR %+v", eur)
	}
	if got := eur.Release(at, 300, "USD"); got.DailySpend != 40 || got.MonthlySpend != 40 || got.DailyTransactionCount != 2 {
		t.Fatalf("a USD release in EUR %+v", got)
	}
	if got := u.In("USD", at); got != u {
		t.Fatalf("the same currency changed %+v into %+v", u, got)
	}
	// Back to USD later: the USD amounts started again then, so a USD reservation of
	// before gives back only its transaction, one of after its amount too.
	later := at.Add(time.Hour)
	back := eur.In("USD", later).Add(later, 100)
	if got := back.Release(at, 300, "USD"); got.DailySpend != 100 || got.DailyTransactionCount != 3 {
		t.Fatalf("a USD release from before the switches %+v", got)
	}
	if got := back.Release(later, 100, "USD"); got.DailySpend != 0 || got.MonthlySpend != 0 || got.DailyTransactionCount != 3 {
		t.Fatalf("a USD release from after the switch back %+v", got)
	}
}

func TestToPolicyCurrency(t *testing.T) {
	rates := fx.BuiltIn(time.Now())
	cur := func(code string) money.Currency {
		c, ok := money.Lookup(code)
		if !ok {
			t.Fatalf("no %s", code)
		}
		return c
	}
	at := time.Now()
	cases := []struct {
		amount   int64
		from, to string
		want     int64
	}{
		{12345, "USD", "USD", 12345},
		{100, "EUR", "USD", 109},  // 100 / 0.92 = 108.69… rounded up
		{1000, "JPY", "USD", 667}, // 1000 / 150 × 100 = 666.66… rounded up
		{667, "USD", "JPY", 1001}, // 6.67 × 150 = 1000.5 rounded up
		{92, "EUR", "USD", 100},   // exact
		{1, "USD", "EUR", 1},      // 0.92 rounded up
		{0, "EUR", "USD", 0},
	}
	for _, c := range cases {
		got, err := ToPolicyCurrency(rates, c.amount, cur(c.from), cur(c.to), at)
		if err != nil || got != c.want {
			t.Errorf("%d %s → %s = %d, %v; want %d", c.amount, c.from, c.to, got, err, c.want)
		}
	}
	if _, err := ToPolicyCurrency(rates, -1, cur("EUR"), cur("USD"), at); !errors.Is(err, fx.ErrNegative) {
		t.Errorf("negative: %v", err)
	}
	if _, err := ToPolicyCurrency(rates, 1<<63-1, cur("USD"), cur("JPY"), at); !errors.Is(err, fx.ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
}

func TestThreshold(t *testing.T) {
	rates := fx.BuiltIn(time.Now())
	at := time.Now()
	p := limitsPolicy()
	if got, err := p.Threshold(rates, at); err != nil || got == nil || *got != 2500 {
		t.Fatalf("same currency: %v, %v", got, err)
	}
	p.ApprovalThresholds = ApprovalThresholds{Currency: "EUR", Amount: i64(100)}
	if got, err := p.Threshold(rates, at); err != nil || got == nil || *got != 109 { // 108.69… rounded up, as amounts are
		t.Fatalf("EUR: %v, %v", got, err)
	}
	// An action of exactly the threshold, converted the same way, is not above it.
	eur, _ := money.Lookup("EUR")
	usd, _ := money.Lookup("USD")
	amount, err := ToPolicyCurrency(rates, 100, eur, usd, at)
	if th, _ := p.Threshold(rates, at); err != nil || amount > *th {
		t.Fatalf("an amount equal to the threshold is above it: %d > %d (%v)", amount, *th, err)
	}
	p.ApprovalThresholds = ApprovalThresholds{Currency: "EUR", Amount: i64(92)}
	if got, err := p.Threshold(rates, at); err != nil || got == nil || *got != 100 { // exact
		t.Fatalf("EUR exact: %v, %v", got, err)
	}
	p.ApprovalThresholds = ApprovalThresholds{}
	if got, err := p.Threshold(rates, at); err != nil || got != nil {
		t.Fatalf("none: %v, %v", got, err)
	}
}

// Windows only move forward: a clock a little behind (another server, just before
// midnight UTC) counts into the day and month already open instead of resetting them.
func TestUsageWindowsOnlyMoveForward(t *testing.T) {
	midnight := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	u := Fresh(midnight, "USD").Add(midnight, 500)
	behind := midnight.Add(-time.Millisecond) // 30 November, another month too
	got := u.At(behind)
	if got.DailySpend != 500 || got.DailyTransactionCount != 1 || got.MonthlySpend != 500 || got.DailyResetDate != "2026-12-01" {
		t.Fatalf("a clock behind reset the windows: %+v", got)
	}
	if next := u.At(midnight.Add(24 * time.Hour)); next.DailySpend != 0 || next.MonthlySpend != 500 {
		t.Fatalf("the next day: %+v", next)
	}
}
