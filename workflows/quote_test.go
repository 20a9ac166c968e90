package workflows

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"paycore/activities"
	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/quote"
	"paycore/internal/sandbox"
)

var (
	quoteStart = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	quoteReq   = quote.Request{QuoteID: uuid.MustParse("0190a000-0000-7000-8000-0000000000e1"), TransactionID: uuid.MustParse("0190a000-0000-7000-8000-0000000000e2"),
		PlatformID: uuid.MustParse("0190a000-0000-7000-8000-0000000000e3"), LockedSide: quote.Sending, LockedAmount: 1000,
		Lifetime: 5 * time.Minute, SlowDelay: 6 * time.Minute, ReturnDelay: 30 * time.Second}
	quoteRail    = quote.Rail{Identifier: "DE89370400440532013001", Environment: catalog.Sandbox}
	quoteCreated = activities.CreatedQuote{Resource: json.RawMessage(`{"id":"Quote:x"}`), Rail: quoteRail, ExpiresAt: quoteStart.Add(5 * time.Minute)}
)

// quoteRun is what one run of the Quote workflow showed.
type quoteRun struct {
	createErr, executeErr error
	statuses              []string
	steps                 []string // activities in the order they ran, with when (offset from the start)
}

// runQuote runs the Quote workflow: the create update at once, then an execute update
// (with key) after executeAfter unless it is negative.
func runQuote(t *testing.T, env *testsuite.TestWorkflowEnvironment, in quote.Request, executeAfter time.Duration, key string) *quoteRun {
	t.Helper()
	run := &quoteRun{}
	env.SetStartTime(quoteStart)
	env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil).Run(func(args mock.Arguments) {
		if v, ok := args.Get(0).(temporal.SearchAttributes).GetKeyword(AttrTransactionStatus); ok {
			run.statuses = append(run.statuses, v)
		}
	})
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateCreate, "c", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { run.createErr = err }, OnAccept: func() {},
			OnComplete: func(_ interface{}, err error) { run.createErr = err },
		})
	}, 0)
	if executeAfter >= 0 {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateExecute, "e", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { run.executeErr = err }, OnAccept: func() {},
				OnComplete: func(_ interface{}, err error) { run.executeErr = err },
			}, quote.Execution{Key: key})
		}, executeAfter)
	}
	env.ExecuteWorkflow(Quote, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	return run
}

// record makes a mocked activity note when it ran.
func (r *quoteRun) record(env *testsuite.TestWorkflowEnvironment, name string) func(mock.Arguments) {
	return func(mock.Arguments) { r.steps = append(r.steps, name+"@"+env.Now().Sub(quoteStart).String()) }
}

// A quote nobody executes expires when its timer fires, and its workflow ends (a later
// execute finds it closed: TestQuoteExpires end to end).
func TestQuoteExpiresOnItsTimer(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	run := &quoteRun{}
	env.OnActivity(a.CreateQuote, mock.Anything, quoteReq).Return(quoteCreated, nil).Once()
	env.OnActivity(a.ExpireQuote, mock.Anything, quoteReq.QuoteID).Return(activities.QuoteState{}, nil).Once().Run(run.record(env, "expire"))
	got := runQuote(t, env, quoteReq, -1, "")
	if got.createErr != nil || len(run.steps) != 1 || run.steps[0] != "expire@5m0s" {
		t.Fatalf("create %v, steps %v", got.createErr, run.steps)
	}
	if !slices.Equal(got.statuses, []string{"EXPIRED"}) {
		t.Fatalf("statuses %v", got.statuses)
	}
	env.AssertExpectations(t)
}

// Each sandbox outcome takes its path after the execution: the slow scenario waits on a
// durable timer, a returned payment fails and is refunded after ReturnDelay, failures that
// took the money are refunded, and the others end at the finish.
func TestQuoteOutcomePaths(t *testing.T) {
	cases := []struct {
		suffix string
		steps  []string
		final  catalog.TransactionStatus
	}{
		{"001", []string{"execute@1m0s", "finish@1m0s"}, catalog.TxCompleted},
		{"002", []string{"execute@1m0s", "finish@1m0s"}, catalog.TxFailed},
		{"003", []string{"execute@1m0s", "finish@7m0s"}, catalog.TxCompleted},
		{"004", []string{"execute@1m0s", "finish@1m0s", "refund@1m0s"}, catalog.TxFailed},
		{"005", []string{"execute@1m0s", "finish@1m0s", "return@1m30s", "refund@1m30s"}, catalog.TxCompleted},
		{"006", []string{"execute@1m0s", "finish@1m0s", "refund@1m0s"}, catalog.TxFailed},
		{"007", []string{"execute@1m0s", "finish@1m0s", "refund@1m0s"}, catalog.TxFailed},
	}
	for _, tc := range cases {
		t.Run(tc.suffix, func(t *testing.T) {
			env := newEnv(t)
			var a *activities.Activities
			run := &quoteRun{}
			rail := quote.Rail{Identifier: "DE8937040044053201" + "0" + tc.suffix, Environment: catalog.Sandbox}
			created := quoteCreated
			created.Rail = rail
			out := sandbox.QuoteOutcome(rail.Identifier) // what the sandbox rail answers (activities.SubmitQuote)
			env.OnActivity(a.CreateQuote, mock.Anything, quoteReq).Return(created, nil).Once()
			env.OnActivity(activities.ExecuteQuoteActivity, mock.Anything, quoteReq.QuoteID, quote.Execution{Key: "k"}).Return(json.RawMessage(`{}`), nil).Once().Run(run.record(env, "execute"))
			env.OnActivity(a.SubmitQuote, mock.Anything, rail).Return(out, nil).Once()
			env.OnActivity(a.FinishQuote, mock.Anything, quoteReq.TransactionID, out).Return(tc.final, nil).Once().Run(run.record(env, "finish"))
			env.OnActivity(a.ReturnQuote, mock.Anything, quoteReq.TransactionID, sandbox.ReturnedOutcome()).Return(catalog.TxFailed, nil).Maybe().Run(run.record(env, "return"))
			env.OnActivity(a.RefundQuote, mock.Anything, quoteReq.TransactionID, mock.Anything).Return(nil).Maybe().Run(func(args mock.Arguments) {
				run.record(env, "refund")(args)
				refunded := args.Get(2).(sandbox.Outcome)
				if tc.suffix == "005" && !refunded.PaidOut {
					t.Errorf("the returned payment's refund does not reverse the money: %+v", refunded)
				}
			})
			got := runQuote(t, env, quoteReq, time.Minute, "k")
			if got.createErr != nil || got.executeErr != nil {
				t.Fatalf("create %v, execute %v", got.createErr, got.executeErr)
			}
			if !slices.Equal(run.steps, tc.steps) {
				t.Fatalf("steps %v, want %v", run.steps, tc.steps)
			}
			want := []string{"PROCESSING", string(tc.final)}
			if tc.suffix == "005" {
				want = append(want, "FAILED")
			}
			if !slices.Equal(got.statuses, want) {
				t.Fatalf("statuses %v, want %v", got.statuses, want)
			}
			env.AssertExpectations(t)
		})
	}
}

// An execution the database refuses (too little money) leaves the quote pending: a later
// execution pays, and the expiry timer then does nothing.
func TestQuoteExecutionRefusedThenAccepted(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	refusal := temporal.NewNonRetryableApplicationError("too little", string(catalog.InsufficientFunds), nil)
	env.OnActivity(a.CreateQuote, mock.Anything, quoteReq).Return(quoteCreated, nil).Once()
	env.OnActivity(activities.ExecuteQuoteActivity, mock.Anything, quoteReq.QuoteID, quote.Execution{Key: "poor"}).Return(nil, refusal).Once()
	env.OnActivity(activities.ExecuteQuoteActivity, mock.Anything, quoteReq.QuoteID, quote.Execution{Key: "rich"}).Return(json.RawMessage(`{}`), nil).Once()
	env.OnActivity(a.SubmitQuote, mock.Anything, quoteRail).Return(sandbox.Outcome{Status: catalog.TxCompleted}, nil).Once()
	env.OnActivity(a.FinishQuote, mock.Anything, quoteReq.TransactionID, sandbox.Outcome{Status: catalog.TxCompleted}).Return(catalog.TxCompleted, nil).Once()
	retried := errors.New("the second execute never ran")
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateExecute, "e2", &testsuite.TestUpdateCallback{OnReject: func(err error) { retried = err }, OnAccept: func() {},
			OnComplete: func(_ interface{}, err error) { retried = err }}, quote.Execution{Key: "rich"})
	}, 2*time.Minute)
	got := runQuote(t, env, quoteReq, time.Minute, "poor")
	if got.executeErr == nil || retried != nil {
		t.Fatalf("first execute %v (want the refusal), second %v", got.executeErr, retried)
	}
	if !slices.Equal(got.statuses, []string{"PROCESSING", "COMPLETED"}) {
		t.Fatalf("statuses %v", got.statuses)
	}
	env.AssertExpectations(t)
}

// Once a request executed the quote, another request's execution is refused by the
// validator, before anything is recorded in the history (no execute step runs for it): the
// state machine's refusal as a coded application error, 409 QUOTE_NOT_PENDING.
func TestQuoteSecondExecutionRefusedByTheValidator(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	env.OnActivity(a.CreateQuote, mock.Anything, quoteReq).Return(quoteCreated, nil).Once()
	env.OnActivity(activities.ExecuteQuoteActivity, mock.Anything, quoteReq.QuoteID, quote.Execution{Key: "first"}).Return(json.RawMessage(`{}`), nil).Once()
	// Without the validator the second execution would reach the step (which refuses it
	// under the lock): the update would then be accepted and recorded.
	env.OnActivity(activities.ExecuteQuoteActivity, mock.Anything, quoteReq.QuoteID, quote.Execution{Key: "second"}).
		Return(nil, temporal.NewNonRetryableApplicationError("executed by another request", string(catalog.QuoteNotPending), nil)).Maybe()
	// The rail takes a while, so the second request arrives while the payment is in flight.
	env.OnActivity(a.SubmitQuote, mock.Anything, quoteRail).After(5*time.Minute).Return(sandbox.Outcome{Status: catalog.TxCompleted}, nil).Once()
	env.OnActivity(a.FinishQuote, mock.Anything, quoteReq.TransactionID, sandbox.Outcome{Status: catalog.TxCompleted}).Return(catalog.TxCompleted, nil).Once()
	var rejected error
	accepted := false
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateExecute, "e2", &testsuite.TestUpdateCallback{OnReject: func(err error) { rejected = err },
			OnAccept: func() { accepted = true }, OnComplete: func(interface{}, error) {}}, quote.Execution{Key: "second"})
	}, 2*time.Minute)
	got := runQuote(t, env, quoteReq, time.Minute, "first")
	if got.executeErr != nil {
		t.Fatalf("first execute: %v", got.executeErr)
	}
	var appErr *temporal.ApplicationError
	if accepted || !errors.As(rejected, &appErr) || appErr.Type() != string(catalog.QuoteNotPending) {
		t.Fatalf("second execute accepted %v, rejected with %v", accepted, rejected)
	}
	env.AssertExpectations(t)
}

// An immediatelyExecute quote is executed right after its creation, with no update.
func TestQuoteImmediateExecution(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	in := quoteReq
	in.ImmediatelyExecute = true
	env.OnActivity(a.CreateQuote, mock.Anything, in).Return(quoteCreated, nil).Once()
	env.OnActivity(activities.ExecuteQuoteActivity, mock.Anything, in.QuoteID, quote.Execution{Key: ImmediateExecution}).Return(json.RawMessage(`{}`), nil).Once()
	env.OnActivity(a.SubmitQuote, mock.Anything, quoteRail).Return(sandbox.Outcome{Status: catalog.TxCompleted}, nil).Once()
	env.OnActivity(a.FinishQuote, mock.Anything, in.TransactionID, sandbox.Outcome{Status: catalog.TxCompleted}).Return(catalog.TxCompleted, nil).Once()
	got := runQuote(t, env, in, -1, "")
	if got.createErr != nil || !slices.Equal(got.statuses, []string{"PROCESSING", "COMPLETED"}) {
		t.Fatalf("create %v, statuses %v", got.createErr, got.statuses)
	}
	env.AssertExpectations(t)
}

// An execution the workflow did not see (its answer lost) is found at expiry: the quote
// is paid, not abandoned.
func TestQuoteExecutedUnseenIsPaidAtExpiry(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	env.OnActivity(a.CreateQuote, mock.Anything, quoteReq).Return(quoteCreated, nil).Once()
	env.OnActivity(a.ExpireQuote, mock.Anything, quoteReq.QuoteID).Return(activities.QuoteState{Executed: true}, nil).Once()
	env.OnActivity(a.SubmitQuote, mock.Anything, quoteRail).Return(sandbox.Outcome{Status: catalog.TxCompleted}, nil).Once()
	env.OnActivity(a.FinishQuote, mock.Anything, quoteReq.TransactionID, sandbox.Outcome{Status: catalog.TxCompleted}).Return(catalog.TxCompleted, nil).Once()
	got := runQuote(t, env, quoteReq, -1, "")
	if !slices.Equal(got.statuses, []string{"PROCESSING", "COMPLETED"}) {
		t.Fatalf("statuses %v", got.statuses)
	}
	env.AssertExpectations(t)
}

// Once the timer has fired with no execution, the execute update is refused with the state
// machine's expiry refusal as a coded application error (type QUOTE_NOT_PENDING, details
// its problem.Wire), which the API answers as it is: 409 QUOTE_NOT_PENDING.
func TestQuoteExecuteAfterExpiryIsACodedRefusal(t *testing.T) {
	s := &quoteSteps{in: quoteReq, expiresAt: quoteCreated.ExpiresAt}
	s.in.Source.Kind = quote.SourceAccount
	if err := s.validateExecute(nil, quote.Execution{Key: "k"}); err != nil {
		t.Fatalf("before expiry: %v", err)
	}
	s.expired = true
	err := s.validateExecute(nil, quote.Execution{Key: "k"})
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != string(catalog.QuoteNotPending) || !appErr.NonRetryable() {
		t.Fatalf("after expiry: %v", err)
	}
	var w problem.Wire
	if err := appErr.Details(&w); err != nil || w.Code != catalog.QuoteNotPending || w.Message != "the quote expired and can no longer be executed" {
		t.Fatalf("details %+v (%v)", w, err)
	}
	// A REALTIME_FUNDING quote is refused as before its expiry: its deposit executes it.
	s.in.Source.Kind = quote.SourceRealtimeFunding
	if err := s.validateExecute(nil, quote.Execution{Key: "k"}); !errors.As(err, &appErr) || appErr.Type() != string(catalog.Conflict) {
		t.Fatalf("a REALTIME_FUNDING quote after expiry: %v", err)
	}
}
