package agentpolicy

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/problem"
)

// wire is err as the API answers it; the zero Wire for nil.
func wire(t *testing.T, err error) problem.Wire {
	t.Helper()
	if err == nil {
		return problem.Wire{}
	}
	w, ok := problem.ToWire(err)
	if !ok {
		t.Fatalf("err = %v, want a domain error", err)
	}
	return w
}

func TestCheckAmount(t *testing.T) {
	for _, tc := range []struct {
		amount int64
		want   problem.Wire
	}{
		{-1, problem.Wire{Code: catalog.InvalidInput, Message: "amount must not be negative", Field: "amount"}},
		{0, problem.Wire{}},
		{1, problem.Wire{}},
		{1<<63 - 1, problem.Wire{}},
	} {
		if got := wire(t, CheckAmount(tc.amount)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("CheckAmount(%d) = %+v, want %+v", tc.amount, got, tc.want)
		}
	}
}

func TestLimitsReserve(t *testing.T) {
	now := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	limits := Limits{Currency: "USD", Daily: i64(1000), DailyCount: i64(2), Monthly: i64(5000)}
	yesterday := Usage{Currency: "USD", DailyTransactionCount: 2, DailySpend: 1000, DailyResetDate: "2026-03-31", MonthlySpend: 4000, MonthlyResetMonth: "2026-03"}
	today := Usage{Currency: "USD", DailyTransactionCount: 1, DailySpend: 600, DailyResetDate: "2026-04-01", MonthlySpend: 600, MonthlyResetMonth: "2026-04"}
	cases := []struct {
		name   string
		limits Limits
		u      Usage
		amount int64
		want   Usage
		code   catalog.Code // "" when reserved
		msg    string
	}{
		{"negative", limits, today, -5, today, catalog.InvalidInput, "amount must not be negative"},
		{"within the limits", limits, today, 400,
			Usage{Currency: "USD", DailyTransactionCount: 2, DailySpend: 1000, DailyResetDate: "2026-04-01", MonthlySpend: 1000, MonthlyResetMonth: "2026-04"}, "", ""},
		{"past the daily limit: refused, usage as it stands now", limits, today, 401, today, catalog.VelocityLimitExceeded, ""},
		{"a new day and month start the windows again", limits, yesterday, 1000,
			Usage{Currency: "USD", DailyTransactionCount: 1, DailySpend: 1000, DailyResetDate: "2026-04-01", MonthlySpend: 1000, MonthlyResetMonth: "2026-04"}, "", ""},
		{"another currency starts the amounts again", Limits{Currency: "EUR"}, today, 700,
			Usage{Currency: "EUR", CurrencySince: now, DailyTransactionCount: 2, DailySpend: 700, DailyResetDate: "2026-04-01", MonthlySpend: 700, MonthlyResetMonth: "2026-04"}, "", ""},
		{"too large to count", Limits{Currency: "USD"}, today, 1<<63 - 600, today, catalog.InvalidInput, "amount 9223372036854775208 is too large to count"},
		{"the largest amount that counts", Limits{Currency: "USD"}, today, 1<<63 - 601,
			Usage{Currency: "USD", DailyTransactionCount: 2, DailySpend: 1<<63 - 1, DailyResetDate: "2026-04-01", MonthlySpend: 1<<63 - 1, MonthlyResetMonth: "2026-04"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.limits.Reserve(tc.u, now, tc.amount)
			w := wire(t, err)
			if w.Code != tc.code || tc.msg != "" && w.Message != tc.msg {
				t.Fatalf("refusal = %+v, want code %q message %q", w, tc.code, tc.msg)
			}
			if tc.code == catalog.InvalidInput && w.Field != "amount" {
				t.Errorf("field = %q, want amount", w.Field)
			}
			if got != tc.want {
				t.Errorf("usage = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestNewAccountRefs(t *testing.T) {
	a, b := ids.New(), ids.New()
	p := Policy{AccountRestrictions: AccountRestrictions{AllowedAccountIDs: []string{ids.Format(ids.InternalAccount, a), ids.Format(ids.InternalAccount, b)}}}
	all := p.AccountRefs("policy")
	if len(all) != 2 {
		t.Fatalf("AccountRefs = %+v, want two", all)
	}
	if got := p.NewAccountRefs("policy"); !reflect.DeepEqual(got, all) {
		t.Errorf("nothing stored: %+v, want %+v", got, all)
	}
	if got := p.NewAccountRefs("policy", AccountRef{Field: "elsewhere", ID: a}); !reflect.DeepEqual(got, all[1:]) {
		t.Errorf("a stored: %+v, want %+v", got, all[1:])
	}
	if got := p.NewAccountRefs("policy", all...); len(got) != 0 {
		t.Errorf("all stored: %+v, want none", got)
	}
}

func TestCheckAccounts(t *testing.T) {
	customerID, a, b := uuid.New(), uuid.New(), uuid.New()
	refs := []AccountRef{{Field: "policy.accountRestrictions.allowedAccountIds[0]", ID: a}, {Field: "policy.accountRestrictions.allowedAccountIds[1]", ID: b}}
	refused := func(r AccountRef) problem.Wire {
		return problem.Wire{Code: catalog.InvalidInput, Field: r.Field,
			Message: r.Field + ": " + ids.Format(ids.InternalAccount, r.ID) + " is not an open internal account of the agent's customer " + ids.Format(ids.Customer, customerID)}
	}
	for _, tc := range []struct {
		name string
		refs []AccountRef
		open map[uuid.UUID]bool
		want problem.Wire
	}{
		{"no accounts", nil, nil, problem.Wire{}},
		{"all open", refs, map[uuid.UUID]bool{a: true, b: true}, problem.Wire{}},
		{"the first not open", refs, map[uuid.UUID]bool{b: true}, refused(refs[0])},
		{"the second not open", refs, map[uuid.UUID]bool{a: true}, refused(refs[1])},
		{"none open: the first is named", refs, nil, refused(refs[0])},
	} {
		if got := wire(t, CheckAccounts(customerID, tc.refs, tc.open)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
