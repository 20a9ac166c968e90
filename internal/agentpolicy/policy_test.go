package agentpolicy

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/kit/strictjson"
	"paycore/internal/problem"
)

// decode reads a policy body the way the API does (the one strict request decoder).
func decode(t *testing.T, body string) Update {
	t.Helper()
	var u Update
	if err := strictjson.Decode([]byte(body), &u); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return u
}

func fieldOfErr(t *testing.T, err error) (string, catalog.Code) {
	t.Helper()
	var fe *problem.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a field error", err)
	}
	return fe.Field, fe.Code
}

var (
	acct1 = ids.Format(ids.InternalAccount, ids.New())
	acct2 = ids.Format(ids.InternalAccount, ids.New())
)

const minimal = `{"permissions": ["VIEW_TRANSACTIONS"], "defaultExecutionMode": "AUTO",
	"spendingLimits": {"currency": "USD", "perTransactionLimit": 10000}}`

func TestNewMinimalDefaults(t *testing.T) {
	p, err := New("policy", decode(t, minimal))
	if err != nil {
		t.Fatal(err)
	}
	want := Policy{Permissions: []Permission{ViewTransactions}, DefaultExecutionMode: Auto,
		SpendingLimits:      SpendingLimits{Currency: "USD", PerTransactionLimit: 10000},
		AccountRestrictions: AccountRestrictions{AccountRules: []AccountRule{}}}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("got %+v\nwant %+v", p, want)
	}
	// Shown with every nullable member spelled out as null.
	var shown map[string]any
	if err := json.Unmarshal(p.Encode(), &shown); err != nil {
		t.Fatal(err)
	}
	limits := shown["spendingLimits"].(map[string]any)
	if v, ok := limits["dailyLimit"]; !ok || v != nil {
		t.Errorf("dailyLimit shown as %v (present %v), want null", v, ok)
	}
	if v, ok := limits["monthlyLimit"]; !ok || v != nil {
		t.Errorf("monthlyLimit shown as %v, want null", v)
	}
	if _, ok := limits["dailyTransactionLimit"]; ok {
		t.Errorf("an unlimited dailyTransactionLimit is shown: %v", limits)
	}
	r := shown["accountRestrictions"].(map[string]any)
	if v, ok := r["allowedAccountIds"]; !ok || v != nil {
		t.Errorf("allowedAccountIds shown as %v, want null (every account)", v)
	}
	if rules, ok := r["accountRules"].([]any); !ok || len(rules) != 0 {
		t.Errorf("accountRules shown as %v, want []", r["accountRules"])
	}
	if v, ok := shown["approvalThresholds"].(map[string]any)["amount"]; !ok || v != nil {
		t.Errorf("approvalThresholds.amount shown as %v, want null", v)
	}
}

func TestNewFull(t *testing.T) {
	body := `{"permissions": ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"],
		"defaultExecutionMode": "APPROVAL_REQUIRED",
		"spendingLimits": {"currency": "EUR", "perTransactionLimit": 500, "dailyLimit": 1000, "dailyTransactionLimit": 3, "monthlyLimit": null},
		"accountRestrictions": {"allowedAccountIds": ["` + acct1 + `", "` + acct2 + `"],
			"accountRules": [{"accountId": "` + acct1 + `", "executionMode": "AUTO", "perTransactionLimit": 100},
			                 {"accountId": "` + acct2 + `", "perTransactionLimit": null}]},
		"approvalThresholds": {"currency": "USD", "amount": 250}}`
	p, err := New("policy", decode(t, body))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Permissions) != 5 || p.DefaultExecutionMode != ApprovalRequired || !p.Allows(ManageExternalAccounts) {
		t.Fatalf("permissions/mode %+v", p)
	}
	l := p.SpendingLimits
	if l.Currency != "EUR" || l.PerTransactionLimit != 500 || *l.DailyLimit != 1000 || *l.DailyTransactionLimit != 3 || l.MonthlyLimit != nil {
		t.Fatalf("limits %+v", l)
	}
	r := p.AccountRestrictions
	if len(r.AllowedAccountIDs) != 2 || len(r.AccountRules) != 2 || *r.AccountRules[0].ExecutionMode != Auto ||
		*r.AccountRules[0].PerTransactionLimit != 100 || r.AccountRules[1].ExecutionMode != nil || r.AccountRules[1].PerTransactionLimit != nil {
		t.Fatalf("restrictions %+v", r)
	}
	if p.ApprovalThresholds.Currency != "USD" || *p.ApprovalThresholds.Amount != 250 {
		t.Fatalf("thresholds %+v", p.ApprovalThresholds)
	}
	refs := p.AccountRefs("policy")
	if len(refs) != 4 || refs[0].Field != "policy.accountRestrictions.allowedAccountIds[0]" ||
		refs[3].Field != "policy.accountRestrictions.accountRules[1].accountId" || ids.Format(ids.InternalAccount, refs[3].ID) != acct2 {
		t.Fatalf("refs %+v", refs)
	}
	// Stored and read back unchanged.
	back, err := Decode(p.Encode())
	if err != nil || !reflect.DeepEqual(back, p) {
		t.Fatalf("round trip: %+v, %v\nwant %+v", back, err, p)
	}
}

func TestNewRefusals(t *testing.T) {
	for _, c := range []struct {
		name, body, field string
		code              catalog.Code
	}{
		{"permissions missing", `{"defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1}}`, "policy.permissions", catalog.InvalidInput},
		{"mode missing", `{"permissions": [], "spendingLimits": {"currency": "USD", "perTransactionLimit": 1}}`, "policy.defaultExecutionMode", catalog.InvalidInput},
		{"limits missing", `{"permissions": [], "defaultExecutionMode": "AUTO"}`, "policy.spendingLimits", catalog.InvalidInput},
		{"currency missing", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"perTransactionLimit": 1}}`, "policy.spendingLimits.currency", catalog.InvalidInput},
		{"per-transaction limit missing", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD"}}`, "policy.spendingLimits.perTransactionLimit", catalog.InvalidInput},
		{"unknown permission", `{"permissions": ["VIEW_TRANSACTIONS", "SEND_ALL"], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1}}`, "policy.permissions[1]", catalog.InvalidInput},
		{"repeated permission", `{"permissions": ["CREATE_QUOTES", "CREATE_QUOTES"], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1}}`, "policy.permissions[1]", catalog.InvalidInput},
		{"unknown mode", `{"permissions": [], "defaultExecutionMode": "MANUAL", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1}}`, "policy.defaultExecutionMode", catalog.InvalidInput},
		{"unknown currency", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "XXX", "perTransactionLimit": 1}}`, "policy.spendingLimits.currency", catalog.InvalidCurrency},
		{"lower-case currency", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "usd", "perTransactionLimit": 1}}`, "policy.spendingLimits.currency", catalog.InvalidCurrency},
		{"negative per-transaction", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": -1}}`, "policy.spendingLimits.perTransactionLimit", catalog.InvalidInput},
		{"negative daily", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1, "dailyLimit": -5}}`, "policy.spendingLimits.dailyLimit", catalog.InvalidInput},
		{"negative count", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1, "dailyTransactionLimit": -1}}`, "policy.spendingLimits.dailyTransactionLimit", catalog.InvalidInput},
		{"negative monthly", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1, "monthlyLimit": -1}}`, "policy.spendingLimits.monthlyLimit", catalog.InvalidInput},
		{"daily not an integer", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1, "dailyLimit": "100"}}`, "policy.spendingLimits.dailyLimit", catalog.InvalidInput},
		{"monthly fractional", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1, "monthlyLimit": 1.5}}`, "policy.spendingLimits.monthlyLimit", catalog.InvalidInput},
		{"malformed account id", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": {"allowedAccountIds": ["` + acct1 + `", "ExternalAccount:` + ids.New().String() + `"]}}`, "policy.accountRestrictions.allowedAccountIds[1]", catalog.InvalidInput},
		{"repeated account id", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": {"allowedAccountIds": ["` + acct1 + `", "` + acct1 + `"]}}`, "policy.accountRestrictions.allowedAccountIds[1]", catalog.InvalidInput},
		{"blank account id", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": {"allowedAccountIds": [" "]}}`, "policy.accountRestrictions.allowedAccountIds[0]", catalog.InvalidInput},
		{"allowed ids not an array", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": {"allowedAccountIds": "all"}}`, "policy.accountRestrictions.allowedAccountIds", catalog.InvalidInput},
		{"rule without account", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": {"accountRules": [{"executionMode": "AUTO"}]}}`, "policy.accountRestrictions.accountRules[0].accountId", catalog.InvalidInput},
		{"rule with malformed account", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": {"accountRules": [{"accountId": "InternalAccount:nope"}]}}`, "policy.accountRestrictions.accountRules[0].accountId", catalog.InvalidInput},
		{"two rules for one account", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": {"accountRules": [{"accountId": "` + acct1 + `"}, {"accountId": "` + acct1 + `"}]}}`, "policy.accountRestrictions.accountRules[1].accountId", catalog.InvalidInput},
		{"rule for a disallowed account", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": {"allowedAccountIds": ["` + acct1 + `"], "accountRules": [{"accountId": "` + acct2 + `"}]}}`, "policy.accountRestrictions.accountRules[0].accountId", catalog.InvalidInput},
		{"rule with unknown mode", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": {"accountRules": [{"accountId": "` + acct1 + `", "executionMode": "LATER"}]}}`, "policy.accountRestrictions.accountRules[0].executionMode", catalog.InvalidInput},
		{"rule with negative limit", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": {"accountRules": [{"accountId": "` + acct1 + `", "perTransactionLimit": -2}]}}`, "policy.accountRestrictions.accountRules[0].perTransactionLimit", catalog.InvalidInput},
		{"threshold without currency", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"approvalThresholds": {"amount": 100}}`, "policy.approvalThresholds.currency", catalog.InvalidInput},
		{"threshold in an unknown currency", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"approvalThresholds": {"currency": "ABC", "amount": 100}}`, "policy.approvalThresholds.currency", catalog.InvalidCurrency},
		{"negative threshold", `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
			"approvalThresholds": {"currency": "USD", "amount": -1}}`, "policy.approvalThresholds.amount", catalog.InvalidInput},
	} {
		t.Run(c.name, func(t *testing.T) {
			var u Update
			if err := strictjson.DecodeAt("policy", []byte(c.body), &u); err != nil {
				var se *strictjson.Error
				if errors.As(err, &se) && se.Field == c.field {
					return // refused by the decoder, naming the field
				}
				t.Fatalf("decode: %v", err)
			}
			_, err := New("policy", u)
			field, code := fieldOfErr(t, err)
			if field != c.field || code != c.code {
				t.Fatalf("refused %q (%s): %v; want %q (%s)", field, code, err, c.field, c.code)
			}
			if !strings.Contains(err.Error(), c.field) {
				t.Errorf("the message does not name the field: %v", err)
			}
		})
	}
}

// A threshold currency alone (no amount) is allowed; an empty policy restricts to nothing
// and allows zero-limit agents (they may only read).
func TestNewEdges(t *testing.T) {
	p, err := New("", decode(t, `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "BTC", "perTransactionLimit": 0,
		"dailyLimit": 0, "dailyTransactionLimit": 0, "monthlyLimit": 0}, "approvalThresholds": {"currency": "USD"},
		"accountRestrictions": {"allowedAccountIds": []}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.AccountRestrictions.AllowedAccountIDs == nil || len(p.AccountRestrictions.AllowedAccountIDs) != 0 {
		t.Fatalf("an empty allowedAccountIds (no account) became %#v", p.AccountRestrictions.AllowedAccountIDs)
	}
	if p.Allows(ViewTransactions) || *p.SpendingLimits.DailyLimit != 0 || p.ApprovalThresholds.Amount != nil {
		t.Fatalf("policy %+v", p)
	}
	back, _ := Decode(p.Encode())
	if back.AccountRestrictions.AllowedAccountIDs == nil {
		t.Fatal("an empty allowedAccountIds was stored as null (every account)")
	}
}

// Whatever a platform sends, a policy is either refused with a field error or checked, and
// a checked one is stored and read back unchanged and still checks.
func FuzzNewPolicy(f *testing.F) {
	f.Add(minimal)
	f.Add(`{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1, "dailyLimit": null},
		"accountRestrictions": {"allowedAccountIds": null, "accountRules": []}, "approvalThresholds": {"amount": null}}`)
	f.Add(`{"permissions": null}`)
	f.Fuzz(func(t *testing.T, body string) {
		var u Update
		if strictjson.Decode([]byte(body), &u) != nil {
			return
		}
		p, err := New("policy", u)
		if err != nil {
			var fe *problem.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("refused without naming a field: %v", err)
			}
			return
		}
		back, err := Decode(p.Encode())
		if err != nil || !reflect.DeepEqual(back, p) || back.Check("") != nil {
			t.Fatalf("round trip of %s: %+v, %v", p.Encode(), back, err)
		}
	})
}

func TestRequire(t *testing.T) {
	p := Policy{Permissions: []Permission{ViewTransactions}}
	if err := p.Require(ViewTransactions); err != nil {
		t.Fatal(err)
	}
	err := p.Require(ManageExternalAccounts)
	var rf *problem.Refusal
	if !errors.As(err, &rf) || rf.Code != catalog.Forbidden || rf.Details["permission"] != "MANAGE_EXTERNAL_ACCOUNTS" {
		t.Fatalf("%#v", err)
	}
}
