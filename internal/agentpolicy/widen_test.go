package agentpolicy

import (
	"errors"
	"slices"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func mode(m ExecutionMode) *ExecutionMode { return &m }

const acctA, acctB = "InternalAccount:00000000-0000-0000-0000-00000000000a", "InternalAccount:00000000-0000-0000-0000-00000000000b"

// wideningBase is an approval-required money agent with every kind of limit set.
func wideningBase() Policy {
	return Policy{Permissions: []Permission{ViewTransactions, CreateTransfers}, DefaultExecutionMode: ApprovalRequired,
		SpendingLimits: SpendingLimits{Currency: "USD", PerTransactionLimit: 1000, DailyLimit: i64(5000), DailyTransactionLimit: i64(3), MonthlyLimit: i64(20000)},
		AccountRestrictions: AccountRestrictions{AllowedAccountIDs: []string{acctA},
			AccountRules: []AccountRule{{AccountID: acctA, ExecutionMode: mode(ApprovalRequired), PerTransactionLimit: i64(500)}}},
		ApprovalThresholds: ApprovalThresholds{Currency: "USD", Amount: i64(100)}}
}

func TestWidening(t *testing.T) {
	for name, c := range map[string]struct {
		change func(*Policy)
		want   []string
	}{
		"unchanged":                   {func(*Policy) {}, nil},
		"money permission added":      {func(p *Policy) { p.Permissions = append(p.Permissions, ExecuteQuotes) }, []string{"permissions"}},
		"payees permission added":     {func(p *Policy) { p.Permissions = append(p.Permissions, ManageExternalAccounts) }, []string{"permissions"}},
		"permission removed":          {func(p *Policy) { p.Permissions = []Permission{CreateTransfers} }, nil},
		"all money permissions gone":  {func(p *Policy) { p.Permissions = []Permission{ViewTransactions}; p.DefaultExecutionMode = Auto }, nil},
		"AUTO by default, rule holds": {func(p *Policy) { p.DefaultExecutionMode = Auto }, []string{"executionMode"}},
		"AUTO everywhere": {func(p *Policy) {
			p.DefaultExecutionMode = Auto
			p.AccountRestrictions.AccountRules[0].ExecutionMode = nil
		}, []string{"executionMode"}},
		"approval required": {func(p *Policy) { p.DefaultExecutionMode = ApprovalRequired }, nil},
		"per-transaction raised": {func(p *Policy) { p.SpendingLimits.PerTransactionLimit = 2000 },
			[]string{"spendingLimits.perTransactionLimit"}},
		"per-transaction lowered": {func(p *Policy) { p.SpendingLimits.PerTransactionLimit = 10 }, nil},
		"rule limit dropped, inherits a higher one": {func(p *Policy) { p.AccountRestrictions.AccountRules[0].PerTransactionLimit = nil },
			[]string{"spendingLimits.perTransactionLimit"}},
		"rule removed": {func(p *Policy) { p.AccountRestrictions.AccountRules = []AccountRule{} },
			[]string{"spendingLimits.perTransactionLimit"}},
		"daily raised":          {func(p *Policy) { p.SpendingLimits.DailyLimit = i64(6000) }, []string{"spendingLimits.dailyLimit"}},
		"daily lifted":          {func(p *Policy) { p.SpendingLimits.DailyLimit = nil }, []string{"spendingLimits.dailyLimit"}},
		"daily lowered":         {func(p *Policy) { p.SpendingLimits.DailyLimit = i64(1) }, nil},
		"daily count lifted":    {func(p *Policy) { p.SpendingLimits.DailyTransactionLimit = nil }, []string{"spendingLimits.dailyTransactionLimit"}},
		"monthly raised":        {func(p *Policy) { p.SpendingLimits.MonthlyLimit = i64(30000) }, []string{"spendingLimits.monthlyLimit"}},
		"limits currency moved": {func(p *Policy) { p.SpendingLimits.Currency = "EUR" }, []string{"spendingLimits.currency"}},
		"every account":         {func(p *Policy) { p.AccountRestrictions.AllowedAccountIDs = nil }, []string{"accountRestrictions.allowedAccountIds"}},
		"another account": {func(p *Policy) { p.AccountRestrictions.AllowedAccountIDs = []string{acctA, acctB} },
			[]string{"accountRestrictions.allowedAccountIds"}},
		"fewer accounts":     {func(p *Policy) { p.AccountRestrictions.AllowedAccountIDs = []string{} }, nil},
		"threshold raised":   {func(p *Policy) { p.ApprovalThresholds.Amount = i64(200) }, []string{"approvalThresholds"}},
		"threshold removed":  {func(p *Policy) { p.ApprovalThresholds = ApprovalThresholds{} }, []string{"approvalThresholds"}},
		"threshold currency": {func(p *Policy) { p.ApprovalThresholds.Currency = "EUR" }, []string{"approvalThresholds"}},
		"threshold lowered":  {func(p *Policy) { p.ApprovalThresholds.Amount = i64(1) }, nil},
		"everything tightened": {func(p *Policy) {
			p.SpendingLimits.MonthlyLimit = i64(1)
			p.SpendingLimits.PerTransactionLimit = 1
			p.ApprovalThresholds.Amount = i64(0)
		}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			prev := wideningBase()
			next := prev.clone()
			c.change(&next)
			if got := Widening(prev, next); !slices.Equal(got, c.want) {
				t.Fatalf("Widening = %v, want %v", got, c.want)
			}
			err := CheckChange(prev, next, false)
			if (err != nil) != (len(c.want) > 0) {
				t.Fatalf("CheckChange without TRANSACT = %v", err)
			}
			var r *problem.Refusal
			if err != nil && (!errors.As(err, &r) || r.Code != catalog.Forbidden || r.Details["permission"] != "TRANSACT") {
				t.Fatalf("refusal %#v, want FORBIDDEN naming TRANSACT", err)
			}
			if err := CheckChange(prev, next, true); err != nil {
				t.Fatalf("CheckChange with TRANSACT = %v", err)
			}
		})
	}
}

func TestWideningFromNoMoneyPolicy(t *testing.T) {
	prev := Policy{Permissions: []Permission{ViewTransactions}, DefaultExecutionMode: ApprovalRequired,
		SpendingLimits: SpendingLimits{Currency: "USD", PerTransactionLimit: 1}}
	next := prev.clone()
	next.DefaultExecutionMode, next.SpendingLimits.PerTransactionLimit = Auto, 1_000_000
	if w := Widening(prev, next); w != nil {
		t.Fatalf("a policy without money permissions widened %v", w)
	}
	next.Permissions = []Permission{CreateQuotes}
	if w := Widening(prev, next); !slices.Contains(w, "permissions") {
		t.Fatalf("adding CREATE_QUOTES widened %v", w)
	}
}

func TestCheckMoneyAgent(t *testing.T) {
	view := Policy{Permissions: []Permission{ViewTransactions}}
	money := Policy{Permissions: []Permission{ViewTransactions, ManageExternalAccounts}}
	if CheckMoneyAgent(view, false, "creating an agent") != nil || CheckMoneyAgent(money, true, "creating an agent") != nil {
		t.Fatal("refused an allowed agent")
	}
	if err := CheckMoneyAgent(money, false, "creating an agent"); err == nil {
		t.Fatal("a money agent without TRANSACT was allowed")
	}
	for _, p := range Permissions {
		if p.MovesMoney() == (p == ViewTransactions) {
			t.Fatalf("%s: MovesMoney = %v", p, p.MovesMoney())
		}
	}
}

func TestCheckResume(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		isPaused    *bool
		canTransact bool
		refused     bool
	}{
		{nil, false, false}, {&yes, false, false}, {&no, true, false}, {&no, false, true},
	} {
		err := CheckResume(tc.isPaused, tc.canTransact)
		if (err != nil) != tc.refused {
			t.Errorf("%+v: %v", tc, err)
		}
		if r, ok := err.(*problem.Refusal); ok && r.Details["permission"] != "TRANSACT" {
			t.Errorf("%+v: details %v", tc, r.Details)
		}
	}
}
