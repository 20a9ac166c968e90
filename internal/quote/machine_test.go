package quote

import (
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

var (
	machineNow = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	later      = machineNow.Add(time.Minute)
	earlier    = machineNow.Add(-time.Minute)
)

// states are a quote in every state its transitions see, funded from an account and by a
// deposit.
var states = map[string]State{
	"account pending":        {Source: SourceAccount, Status: catalog.TxPending, ExpiresAt: later, Total: 100},
	"account pending, late":  {Source: SourceAccount, Status: catalog.TxPending, ExpiresAt: machineNow, Total: 100},
	"account executed":       {Source: SourceAccount, Status: catalog.TxProcessing, ExpiresAt: later, ExecuteKey: "k", Total: 100},
	"account executed, done": {Source: SourceAccount, Status: catalog.TxCompleted, ExpiresAt: earlier, ExecuteKey: "k", Total: 100},
	"account expired":        {Source: SourceAccount, Status: catalog.TxExpired, ExpiresAt: earlier, Total: 100},
	"deposit pending":        {Source: SourceRealtimeFunding, Status: catalog.TxPending, ExpiresAt: later, Total: 100},
	"deposit pending, late":  {Source: SourceRealtimeFunding, Status: catalog.TxPending, ExpiresAt: earlier, Total: 100},
	"deposit taken":          {Source: SourceRealtimeFunding, Status: catalog.TxProcessing, ExpiresAt: later, ExecuteKey: "deposit", Deposited: true, DepositKey: "d", DepositAmount: 100, Total: 100},
	"deposit taken, short":   {Source: SourceRealtimeFunding, Status: catalog.TxProcessing, ExpiresAt: later, ExecuteKey: "deposit", Deposited: true, DepositKey: "d", DepositAmount: 90, Total: 100},
	"deposit sent back":      {Source: SourceRealtimeFunding, Status: catalog.TxExpired, ExpiresAt: earlier, Deposited: true, DepositKey: "d", DepositAmount: 100, Total: 100, SentBack: true},
	"deposit expired":        {Source: SourceRealtimeFunding, Status: catalog.TxExpired, ExpiresAt: earlier, Total: 100},
}

func TestExpired(t *testing.T) {
	for _, tc := range []struct {
		at   time.Time
		want bool
	}{{later, false}, {machineNow, true}, {earlier, true}} {
		if got := Expired(tc.at, machineNow); got != tc.want {
			t.Errorf("Expired(%v, %v) = %v, want %v", tc.at, machineNow, got, tc.want)
		}
	}
}

// refusal is the code of a transition's refusal ("" for none).
func refusal(t *testing.T, err error) catalog.Code {
	t.Helper()
	if err == nil {
		return ""
	}
	code := problem.CodeOf(err)
	if code == "" {
		t.Fatalf("refusal without a code: %v", err)
	}
	return code
}

func TestExecuteFromEveryState(t *testing.T) {
	for _, tc := range []struct {
		state string
		key   string
		open  bool
		step  Step
		code  catalog.Code
	}{
		{"account pending", "k", true, StepHold, ""},
		{"account pending", "k", false, "", catalog.QuoteNotPending},
		{"account pending, late", "k", true, "", catalog.QuoteNotPending},
		{"account executed", "k", true, StepRepeat, ""},
		{"account executed", "k", false, StepRepeat, ""},
		{"account executed", "other", true, "", catalog.QuoteNotPending},
		{"account executed", "", true, "", catalog.QuoteNotPending},
		{"account executed, done", "k", false, StepRepeat, ""},
		{"account executed, done", "other", false, "", catalog.QuoteNotPending},
		{"account expired", "k", true, "", catalog.QuoteNotPending},
		{"account expired", "k", false, "", catalog.QuoteNotPending},
		{"deposit pending", "k", true, "", catalog.Conflict},
		{"deposit pending, late", "k", true, "", catalog.Conflict},
		{"deposit taken", "deposit", true, "", catalog.Conflict},
		{"deposit taken, short", "k", true, "", catalog.Conflict},
		{"deposit sent back", "k", true, "", catalog.Conflict},
		{"deposit expired", "k", false, "", catalog.Conflict},
	} {
		step, err := states[tc.state].Execute(tc.key, machineNow, tc.open)
		if code := refusal(t, err); step != tc.step || code != tc.code {
			t.Errorf("%s: Execute(%q, open %v) = %q %q, want %q %q", tc.state, tc.key, tc.open, step, code, tc.step, tc.code)
		}
	}
}

func TestExecuteRefusalMessages(t *testing.T) {
	for _, tc := range []struct {
		state, key, want string
	}{
		{"account executed", "other", "QUOTE_NOT_PENDING: the quote was already executed by another request"},
		{"account expired", "k", "QUOTE_NOT_PENDING: the quote is EXPIRED and can no longer be executed"},
		{"account pending, late", "k", "QUOTE_NOT_PENDING: the quote expired and can no longer be executed"},
		{"deposit pending", "k", "CONFLICT: a REALTIME_FUNDING quote is executed by its deposit (in the sandbox: POST /sandbox/send), not by this request"},
	} {
		if _, err := states[tc.state].Execute(tc.key, machineNow, true); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.state, err, tc.want)
		}
	}
}

func TestFundFromEveryState(t *testing.T) {
	for _, tc := range []struct {
		state  string
		d      Deposit
		open   bool
		want   Funding
		code   catalog.Code
		reason string
	}{
		{state: "deposit pending", d: Deposit{Key: "d", Amount: 100}, open: true, want: Funding{Step: StepTake, Matches: true}},
		{state: "deposit pending", d: Deposit{Key: "d", Amount: 90}, open: true, want: Funding{Step: StepTake}},
		{state: "deposit pending", d: Deposit{Key: "d", Amount: 100}, code: catalog.QuoteNotPending},
		{state: "deposit pending, late", d: Deposit{Key: "d", Amount: 100}, open: true, want: Funding{Step: StepSendBack, Late: true}},
		{state: "deposit expired", d: Deposit{Key: "d", Amount: 100}, open: true, want: Funding{Step: StepSendBack, Late: true}},
		{state: "deposit expired", d: Deposit{Key: "d", Amount: 100}, code: catalog.QuoteNotPending},
		{state: "deposit taken", d: Deposit{Key: "d", Amount: 100}, open: true, want: Funding{Step: StepRepeat, Matches: true}},
		{state: "deposit taken, short", d: Deposit{Key: "d", Amount: 90}, open: true, want: Funding{Step: StepRepeat}},
		{state: "deposit taken", d: Deposit{Key: "d", Amount: 100}, code: catalog.Conflict},
		{state: "deposit taken", d: Deposit{Key: "e", Amount: 100}, open: true, code: catalog.Conflict},
		{state: "deposit sent back", d: Deposit{Key: "d", Amount: 100}, open: true, want: Funding{Step: StepRepeat, Matches: true, Late: true}},
		{state: "deposit sent back", d: Deposit{Key: "e", Amount: 100}, open: true, code: catalog.Conflict},
		{state: "account pending", d: Deposit{Key: "d", Amount: 100}, open: true, code: catalog.InvalidInput},
		{state: "account executed", d: Deposit{Key: "d", Amount: 100}, open: true, code: catalog.InvalidInput},
		{state: "account expired", d: Deposit{Key: "d", Amount: 100}, code: catalog.InvalidInput},
	} {
		got, err := states[tc.state].Fund(tc.d, machineNow, tc.open)
		if code := refusal(t, err); got != tc.want || code != tc.code {
			t.Errorf("%s: Fund(%+v, open %v) = %+v %q, want %+v %q", tc.state, tc.d, tc.open, got, code, tc.want, tc.code)
		}
	}
}

func TestExpireFromEveryState(t *testing.T) {
	want := map[string]Step{
		"account pending":        StepExpire,
		"account pending, late":  StepExpire,
		"account executed":       StepPay,
		"account executed, done": StepPay,
		"account expired":        StepNone,
		"deposit pending":        StepExpire,
		"deposit pending, late":  StepExpire,
		"deposit taken":          StepPay,
		"deposit taken, short":   StepPay,
		"deposit sent back":      StepNone,
		"deposit expired":        StepNone,
	}
	if len(want) != len(states) {
		t.Fatalf("%d states, %d expectations", len(states), len(want))
	}
	for name, s := range states {
		if got := s.Expire(); got != want[name] {
			t.Errorf("%s: Expire() = %q, want %q", name, got, want[name])
		}
	}
}

func TestMismatch(t *testing.T) {
	for name, want := range map[string]bool{"deposit taken": false, "deposit taken, short": true, "account executed": false, "deposit pending": false} {
		if got := states[name].Mismatch(); got != want {
			t.Errorf("%s: Mismatch() = %v, want %v", name, got, want)
		}
	}
}

func TestAwaitsExecution(t *testing.T) {
	for _, tc := range []struct {
		state, key string
		want       bool
	}{
		{"account pending", "k", true},
		{"account pending, late", "k", true}, // the execution judges the expiry
		{"account executed", "k", false},
		{"account executed", "other", false},
		{"account expired", "k", false},
		{"deposit pending", "k", false},
	} {
		if got := states[tc.state].AwaitsExecution(tc.key); got != tc.want {
			t.Errorf("%s: AwaitsExecution(%q) = %v, want %v", tc.state, tc.key, got, tc.want)
		}
	}
}

// A deposit request is refused, before it reaches the quote, exactly as the API refused it:
// a quote funded from an account (INVALID_INPUT on quoteId) before a currency that is not
// the quote's (INVALID_CURRENCY on currencyCode); a deposit in the quote's currency passes.
func TestCheckDepositRequest(t *testing.T) {
	fromAccount := problem.Wire{Code: catalog.InvalidInput, Field: "quoteId",
		Message: "the quote is funded from an account: execute it with POST /quotes/{quoteId}/execute"}
	problemtest.Check(t,
		problemtest.Case{Name: "account", Err: CheckDepositRequest(SourceAccount, "USD", "USD"), Want: fromAccount},
		problemtest.Case{Name: "account, other currency", Err: CheckDepositRequest(SourceAccount, "USD", "EUR"), Want: fromAccount},
		problemtest.Case{Name: "other currency", Err: CheckDepositRequest(SourceRealtimeFunding, "USD", "EUR"),
			Want: problem.Wire{Code: catalog.InvalidCurrency, Field: "currencyCode", Message: "the quote is funded in USD, not EUR"}},
		problemtest.Case{Name: "currency case", Err: CheckDepositRequest(SourceRealtimeFunding, "USD", "usd"),
			Want: problem.Wire{Code: catalog.InvalidCurrency, Field: "currencyCode", Message: "the quote is funded in USD, not usd"}},
	)
	if err := CheckDepositRequest(SourceRealtimeFunding, "USD", "USD"); err != nil {
		t.Errorf("a deposit in the quote's currency: %v", err)
	}
}
