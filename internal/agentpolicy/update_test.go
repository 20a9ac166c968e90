package agentpolicy

import (
	"reflect"
	"testing"
	"time"

	"paycore/internal/catalog"
)

func basePolicy(t *testing.T) Policy {
	t.Helper()
	p, err := New("policy", decode(t, `{"permissions": ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS"], "defaultExecutionMode": "AUTO",
		"spendingLimits": {"currency": "USD", "perTransactionLimit": 1000, "dailyLimit": 5000, "dailyTransactionLimit": 10, "monthlyLimit": 20000},
		"accountRestrictions": {"allowedAccountIds": ["`+acct1+`", "`+acct2+`"], "accountRules": [{"accountId": "`+acct1+`", "executionMode": "APPROVAL_REQUIRED", "perTransactionLimit": 300}]},
		"approvalThresholds": {"currency": "USD", "amount": 800}}`))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func i64(v int64) *int64 { return &v }

func TestApplyChangesOnlyWhatIsGiven(t *testing.T) {
	base := basePolicy(t)
	snapshot := base.clone()
	for _, c := range []struct {
		name, body string
		want       func(p *Policy)
	}{
		{"empty update", `{}`, func(*Policy) {}},
		{"permissions replaced", `{"permissions": ["CREATE_QUOTES"]}`, func(p *Policy) { p.Permissions = []Permission{CreateQuotes} }},
		{"permissions emptied", `{"permissions": []}`, func(p *Policy) { p.Permissions = []Permission{} }},
		{"mode", `{"defaultExecutionMode": "APPROVAL_REQUIRED"}`, func(p *Policy) { p.DefaultExecutionMode = ApprovalRequired }},
		{"one limit", `{"spendingLimits": {"dailyLimit": 7000}}`, func(p *Policy) { p.SpendingLimits.DailyLimit = i64(7000) }},
		{"daily limit lifted", `{"spendingLimits": {"dailyLimit": null}}`, func(p *Policy) { p.SpendingLimits.DailyLimit = nil }},
		{"monthly limit lifted, per transaction changed", `{"spendingLimits": {"monthlyLimit": null, "perTransactionLimit": 5}}`, func(p *Policy) {
			p.SpendingLimits.MonthlyLimit, p.SpendingLimits.PerTransactionLimit = nil, 5
		}},
		{"count limit lifted", `{"spendingLimits": {"dailyTransactionLimit": null}}`, func(p *Policy) { p.SpendingLimits.DailyTransactionLimit = nil }},
		{"currency with its amounts", `{"spendingLimits": {"currency": "EUR", "perTransactionLimit": 900, "dailyLimit": null, "monthlyLimit": 18000},
			"accountRestrictions": {"accountRules": [{"accountId": "` + acct1 + `", "executionMode": "APPROVAL_REQUIRED", "perTransactionLimit": 280}]}}`, func(p *Policy) {
			p.SpendingLimits.Currency, p.SpendingLimits.PerTransactionLimit, p.SpendingLimits.DailyLimit, p.SpendingLimits.MonthlyLimit = "EUR", 900, nil, i64(18000)
			p.AccountRestrictions.AccountRules[0].PerTransactionLimit = i64(280)
		}},
		{"every account allowed, rules kept", `{"accountRestrictions": {"allowedAccountIds": null}}`, func(p *Policy) {
			p.AccountRestrictions.AllowedAccountIDs = nil
		}},
		{"rules replaced, allowed kept", `{"accountRestrictions": {"accountRules": [{"accountId": "` + acct2 + `"}]}}`, func(p *Policy) {
			p.AccountRestrictions.AccountRules = []AccountRule{{AccountID: acct2}}
		}},
		{"rules removed", `{"accountRestrictions": {"accountRules": []}}`, func(p *Policy) { p.AccountRestrictions.AccountRules = []AccountRule{} }},
		{"restrictions given empty", `{"accountRestrictions": {}}`, func(*Policy) {}},
		{"threshold removed, currency kept", `{"approvalThresholds": {"amount": null}}`, func(p *Policy) { p.ApprovalThresholds.Amount = nil }},
		{"threshold amount", `{"approvalThresholds": {"amount": 900}}`, func(p *Policy) { p.ApprovalThresholds.Amount = i64(900) }},
		{"threshold currency with its amount", `{"approvalThresholds": {"currency": "MXN", "amount": 16000}}`, func(p *Policy) {
			p.ApprovalThresholds.Currency, p.ApprovalThresholds.Amount = "MXN", i64(16000)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := base.Apply("", decode(t, c.body))
			if err != nil {
				t.Fatal(err)
			}
			want := base.clone()
			c.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
			if !reflect.DeepEqual(base, snapshot) {
				t.Fatal("Apply changed the policy it started from")
			}
		})
	}
}

func TestApplyRefusesAMergedPolicyThatIsInvalid(t *testing.T) {
	base := basePolicy(t)
	for _, c := range []struct {
		name, body, field string
		code              catalog.Code
	}{
		// The rule for acct1 stays, so acct1 must stay allowed.
		{"allowed accounts leave out a ruled one", `{"accountRestrictions": {"allowedAccountIds": ["` + acct2 + `"]}}`, "accountRestrictions.accountRules[0].accountId", catalog.InvalidInput},
		{"unknown permission", `{"permissions": ["VIEW"]}`, "permissions[0]", catalog.InvalidInput},
		{"unknown mode", `{"defaultExecutionMode": "auto"}`, "defaultExecutionMode", catalog.InvalidInput},
		{"unknown currency", `{"spendingLimits": {"currency": "DOGE", "perTransactionLimit": 1, "dailyLimit": 1, "monthlyLimit": 1}}`, "spendingLimits.currency", catalog.InvalidCurrency},
		// Another currency means other amounts: they are stated with it.
		{"currency without its amounts", `{"spendingLimits": {"currency": "EUR"}}`, "spendingLimits.perTransactionLimit", catalog.InvalidInput},
		{"currency without its monthly limit", `{"spendingLimits": {"currency": "EUR", "perTransactionLimit": 1, "dailyLimit": null}}`, "spendingLimits.monthlyLimit", catalog.InvalidInput},
		{"threshold currency without its amount", `{"approvalThresholds": {"currency": "MXN"}}`, "approvalThresholds.amount", catalog.InvalidInput},
		// The base policy's rule for acct1 has a per-transaction limit in USD.
		{"currency without the rules' limits", `{"spendingLimits": {"currency": "EUR", "perTransactionLimit": 900, "dailyLimit": null, "monthlyLimit": null}}`,
			"accountRestrictions.accountRules[0].perTransactionLimit", catalog.InvalidInput},
		{"negative limit", `{"spendingLimits": {"monthlyLimit": -1}}`, "spendingLimits.monthlyLimit", catalog.InvalidInput},
		{"limit of the wrong type", `{"spendingLimits": {"dailyLimit": true}}`, "spendingLimits.dailyLimit", catalog.InvalidInput},
		{"malformed allowed ids", `{"accountRestrictions": {"allowedAccountIds": [1]}}`, "accountRestrictions.allowedAccountIds[0]", catalog.InvalidInput},
		{"rule limit of the wrong type", `{"accountRestrictions": {"accountRules": [{"accountId": "` + acct1 + `", "perTransactionLimit": "1"}]}}`, "accountRestrictions.accountRules[0].perTransactionLimit", catalog.InvalidInput},
		{"threshold currency unknown", `{"approvalThresholds": {"currency": "usd", "amount": 1}}`, "approvalThresholds.currency", catalog.InvalidCurrency},
		// null only where the member is nullable.
		{"null permissions", `{"permissions": null}`, "permissions", catalog.InvalidInput},
		{"null mode", `{"defaultExecutionMode": null}`, "defaultExecutionMode", catalog.InvalidInput},
		{"null limits", `{"spendingLimits": null}`, "spendingLimits", catalog.InvalidInput},
		{"null currency", `{"spendingLimits": {"currency": null}}`, "spendingLimits.currency", catalog.InvalidInput},
		{"null per-transaction limit", `{"spendingLimits": {"perTransactionLimit": null}}`, "spendingLimits.perTransactionLimit", catalog.InvalidInput},
		{"null restrictions", `{"accountRestrictions": null}`, "accountRestrictions", catalog.InvalidInput},
		{"null rules", `{"accountRestrictions": {"accountRules": null}}`, "accountRestrictions.accountRules", catalog.InvalidInput},
		{"null rule account", `{"accountRestrictions": {"accountRules": [{"accountId": null}]}}`, "accountRestrictions.accountRules[0].accountId", catalog.InvalidInput},
		{"null rule mode", `{"accountRestrictions": {"accountRules": [{"accountId": "` + acct1 + `", "executionMode": null}]}}`, "accountRestrictions.accountRules[0].executionMode", catalog.InvalidInput},
		{"null thresholds", `{"approvalThresholds": null}`, "approvalThresholds", catalog.InvalidInput},
		{"null threshold currency", `{"approvalThresholds": {"currency": null}}`, "approvalThresholds.currency", catalog.InvalidInput},
		// Nested members are decoded as strictly as the body.
		{"unknown limit", `{"spendingLimits": {"weeklyLimit": 1}}`, "spendingLimits.weeklyLimit", catalog.InvalidInput},
		{"unknown rule member", `{"accountRestrictions": {"accountRules": [{"accountId": "` + acct1 + `", "mode": "AUTO"}]}}`, "accountRestrictions.accountRules[0].mode", catalog.InvalidInput},
		{"limits not an object", `{"spendingLimits": [1]}`, "spendingLimits", catalog.InvalidInput},
		{"blank currency", `{"spendingLimits": {"currency": " "}}`, "spendingLimits.currency", catalog.InvalidInput},
		{"permissions not strings", `{"permissions": [1]}`, "permissions[0]", catalog.InvalidInput},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := base.Apply("", decode(t, c.body))
			field, code := fieldOfErr(t, err)
			if field != c.field || code != c.code {
				t.Fatalf("refused %q (%s): %v; want %q (%s)", field, code, err, c.field, c.code)
			}
		})
	}
	// A threshold amount on a policy without a threshold currency needs one.
	bare, err := New("", decode(t, minimal))
	if err != nil {
		t.Fatal(err)
	}
	_, err = bare.Apply("", decode(t, `{"approvalThresholds": {"amount": 10}}`))
	if field, _ := fieldOfErr(t, err); field != "approvalThresholds.currency" {
		t.Fatalf("a threshold amount without a currency: %v", err)
	}
	if p, err := bare.Apply("", decode(t, `{"approvalThresholds": {"amount": 10, "currency": "USD"}}`)); err != nil || *p.ApprovalThresholds.Amount != 10 {
		t.Fatalf("a threshold with its currency: %+v, %v", p.ApprovalThresholds, err)
	}
}

func TestUsageWindows(t *testing.T) {
	at := func(s string) time.Time {
		tt, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tt
	}
	// The UTC day and month, whatever the zone of the moment.
	if d, m := Day(at("2025-03-31T23:30:00-02:00")), Month(at("2025-03-31T23:30:00-02:00")); d != "2025-04-01" || m != "2025-04" {
		t.Fatalf("day %s month %s, want 2025-04-01 2025-04 (UTC)", d, m)
	}
	if d := Day(at("2025-04-01T00:30:00+02:00")); d != "2025-03-31" {
		t.Fatalf("day %s, want 2025-03-31 (UTC)", d)
	}

	u := Fresh(at("2025-01-30T10:00:00Z"), "USD")
	if u != (Usage{Currency: "USD", DailyResetDate: "2025-01-30", MonthlyResetMonth: "2025-01"}) {
		t.Fatalf("fresh %+v", u)
	}
	u = u.Add(at("2025-01-30T10:00:00Z"), 100).Add(at("2025-01-30T23:59:59.999Z"), 50)
	if u != (Usage{Currency: "USD", DailyTransactionCount: 2, DailySpend: 150, DailyResetDate: "2025-01-30", MonthlySpend: 150, MonthlyResetMonth: "2025-01"}) {
		t.Fatalf("same day %+v", u)
	}
	// The next day starts the daily counters at zero; the month goes on.
	next := u.At(at("2025-01-31T00:00:00Z"))
	if next != (Usage{Currency: "USD", DailyResetDate: "2025-01-31", MonthlySpend: 150, MonthlyResetMonth: "2025-01"}) {
		t.Fatalf("next day %+v", next)
	}
	u = u.Add(at("2025-01-31T08:00:00Z"), 10)
	if u != (Usage{Currency: "USD", DailyTransactionCount: 1, DailySpend: 10, DailyResetDate: "2025-01-31", MonthlySpend: 160, MonthlyResetMonth: "2025-01"}) {
		t.Fatalf("next day's spend %+v", u)
	}
	// A new month starts both at zero.
	feb := u.Add(at("2025-02-01T00:00:00Z"), 7)
	if feb != (Usage{Currency: "USD", DailyTransactionCount: 1, DailySpend: 7, DailyResetDate: "2025-02-01", MonthlySpend: 7, MonthlyResetMonth: "2025-02"}) {
		t.Fatalf("new month %+v", feb)
	}
	// The same day of another month or year is another window too.
	if r := feb.At(at("2026-02-01T12:00:00Z")); r.DailySpend != 0 || r.MonthlySpend != 0 || r.MonthlyResetMonth != "2026-02" {
		t.Fatalf("a year later %+v", r)
	}
	// Giving back: only windows still current are reduced, never below zero.
	back := feb.At(at("2025-02-01T01:00:00Z")).Release(at("2025-02-01T00:00:00Z"), 7, "USD")
	if back != (Usage{Currency: "USD", DailyResetDate: "2025-02-01", MonthlyResetMonth: "2025-02"}) {
		t.Fatalf("given back the same day %+v", back)
	}
	late := feb.Add(at("2025-02-02T09:00:00Z"), 3).At(at("2025-02-02T10:00:00Z")).Release(at("2025-02-01T00:00:00Z"), 7, "USD")
	if late != (Usage{Currency: "USD", DailyTransactionCount: 1, DailySpend: 3, DailyResetDate: "2025-02-02", MonthlySpend: 3, MonthlyResetMonth: "2025-02"}) {
		t.Fatalf("given back the next day %+v", late)
	}
	if z := Fresh(at("2025-02-02T00:00:00Z"), "USD").Release(at("2025-02-02T00:00:00Z"), 5, "USD"); z.DailySpend != 0 || z.MonthlySpend != 0 || z.DailyTransactionCount != 0 {
		t.Fatalf("below zero %+v", z)
	}
}
