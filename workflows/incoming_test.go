package workflows

import (
	"context"
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
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/problem"
)

var (
	incomingReq = incoming.Request{TransactionID: uuid.MustParse("0190a000-0000-7000-8000-0000000000f1"), PlatformID: uuid.MustParse("0190a000-0000-7000-8000-0000000000f2"),
		Sender:   incoming.Counterparty{Address: "$success.usd@" + incoming.SandboxDomain, Scenario: incoming.ScenarioSuccess, Currency: "USD"},
		Currency: "USD", Amount: 500, ApprovalDeadline: 5 * time.Second, SlowDelay: 6 * time.Minute}
	incomingCreated = activities.CreatedIncoming{Resource: json.RawMessage(`{"id":"Transaction:x"}`), EventID: uuid.MustParse("0190a000-0000-7000-8000-0000000000f3"),
		Receiver: map[string]string{"FULL_NAME": "Ada"}}
)

// incomingRun is what one run of the IncomingPayment workflow showed.
type incomingRun struct {
	decideErr error
	decided   bool
	// rejected is set when the decide update was refused by its validator (never
	// accepted).
	rejected bool
	finished []incoming.Decision
	finishAt time.Duration
	statuses []string
}

// runIncoming runs the workflow with the create update at once and, when decision is set,
// a decide update after decideAfter; the platform's webhook answers answer (nil: it is not
// asked).
func runIncoming(t *testing.T, in incoming.Request, answer *incoming.Decision, decision *incoming.Decision, decideAfter time.Duration) *incomingRun {
	t.Helper()
	return runIncomingAsking(t, in, answer, 0, decision, decideAfter)
}

// runIncomingAsking is runIncoming with the platform's webhook answering after askFor.
func runIncomingAsking(t *testing.T, in incoming.Request, answer *incoming.Decision, askFor time.Duration, decision *incoming.Decision, decideAfter time.Duration) *incomingRun {
	t.Helper()
	env := newEnv(t)
	env.SetStartTime(quoteStart)
	var a *activities.Activities
	run := &incomingRun{}
	env.OnActivity(a.CreateIncoming, mock.Anything, in).Return(incomingCreated, nil).Once()
	if answer != nil {
		env.OnActivity(a.AskApproval, mock.Anything, incomingCreated.EventID, incomingCreated.Receiver).Return(*answer, nil).Once().After(askFor)
	}
	env.OnActivity(a.FinishIncoming, mock.Anything, in.TransactionID, mock.Anything, incomingCreated.Receiver).Return(func(_ context.Context, _ uuid.UUID, d incoming.Decision, _ map[string]string) (activities.FinishedIncoming, error) {
		status := catalog.TxCompleted
		if !d.Approved {
			status = d.Status
		}
		return activities.FinishedIncoming{Resource: json.RawMessage(`{"id":"Transaction:x"}`), Status: status}, nil
	}).Once().
		Run(func(args mock.Arguments) {
			run.finished = append(run.finished, args.Get(2).(incoming.Decision))
			run.finishAt = env.Now().Sub(quoteStart)
		})
	env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil).Run(func(args mock.Arguments) {
		if v, ok := args.Get(0).(temporal.SearchAttributes).GetKeyword(AttrTransactionStatus); ok {
			run.statuses = append(run.statuses, v)
		}
	})
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateCreate, "c", &testsuite.TestUpdateCallback{OnReject: func(error) {}, OnAccept: func() {}, OnComplete: func(interface{}, error) {}})
	}, 0)
	if decision != nil {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateDecide, "d", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { run.decideErr, run.decided, run.rejected = err, true, true }, OnAccept: func() {},
				OnComplete: func(_ interface{}, err error) { run.decideErr, run.decided = err, true },
			}, *decision)
		}, decideAfter)
	}
	env.ExecuteWorkflow(IncomingPayment, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	env.AssertExpectations(t)
	if len(run.finished) != 1 {
		t.Fatalf("finished %d times", len(run.finished))
	}
	return run
}

func TestIncomingApprovedByTheWebhook(t *testing.T) {
	answer := incoming.Approve(map[string]string{"FULL_NAME": "Ada"})
	run := runIncoming(t, incomingReq, &answer, nil, 0)
	if !run.finished[0].Approved || !slices.Equal(run.statuses, []string{"COMPLETED"}) {
		t.Fatalf("finished with %+v, statuses %v", run.finished[0], run.statuses)
	}
}

// After a 202 the decide update decides; the service completes the receiver's details.
func TestIncomingApprovedAfterAccepted(t *testing.T) {
	answer := incoming.Decision{Pending: true}
	decision := incoming.Approve(nil)
	run := runIncoming(t, incomingReq, &answer, &decision, 2*time.Second)
	if run.decideErr != nil || !run.finished[0].Approved || run.finishAt != 2*time.Second || !slices.Equal(run.statuses, []string{"COMPLETED"}) {
		t.Fatalf("decide %v, finished with %+v at %s", run.decideErr, run.finished[0], run.finishAt)
	}
}

// After a 202 nobody decides: the payment fails at the deadline, and a decision after it
// is refused.
func TestIncomingApprovalTimesOut(t *testing.T) {
	answer := incoming.Decision{Pending: true}
	run := runIncoming(t, incomingReq, &answer, nil, 0)
	if got := run.finished[0]; got.Reason != incoming.ReasonTimedOut || run.finishAt != 5*time.Second || !slices.Equal(run.statuses, []string{"FAILED"}) {
		t.Fatalf("finished with %+v at %s, statuses %v", got, run.finishAt, run.statuses)
	}
}

// A decide update that comes before the platform was asked waits for its answer, and is
// refused (with the catalogue's code) when that answer decided.
func TestIncomingDecisionNotAwaited(t *testing.T) {
	in := incomingReq
	in.Sender = incoming.Counterparty{Address: "$pending.long.usd@" + incoming.SandboxDomain, Scenario: incoming.ScenarioPendingLong, Currency: "USD"}
	answer := incoming.Reject("no")
	decision := incoming.Approve(nil)
	run := runIncoming(t, in, &answer, &decision, time.Minute)
	var appErr *temporal.ApplicationError
	if !run.decided || !run.rejected || !errors.As(run.decideErr, &appErr) || appErr.Type() != string(catalog.TransactionNotPendingApproval) {
		t.Fatalf("decide answered %v (rejected by the validator: %v)", run.decideErr, run.rejected)
	}
	var w problem.Wire
	if !appErr.HasDetails() || appErr.Details(&w) != nil || w.Code != catalog.TransactionNotPendingApproval {
		t.Fatalf("refusal details %+v", w)
	}
	if run.finished[0].Status != catalog.TxRejected || !slices.Equal(run.statuses, []string{"REJECTED"}) {
		t.Fatalf("finished with %+v", run.finished[0])
	}
}

// The sandbox's failing sender fails without asking; its long-pending one waits first.
func TestIncomingSandboxSenders(t *testing.T) {
	in := incomingReq
	in.Sender = incoming.Counterparty{Address: "$fail.compliance.usd@" + incoming.SandboxDomain, Scenario: incoming.ScenarioFailCompliance, Currency: "USD"}
	if run := runIncoming(t, in, nil, nil, 0); run.finished[0].Reason != incoming.ReasonPayRequestFail || run.finishAt != 0 {
		t.Fatalf("compliance failure: %+v at %s", run.finished[0], run.finishAt)
	}
	in.Sender = incoming.Counterparty{Address: "$pending.long.usd@" + incoming.SandboxDomain, Scenario: incoming.ScenarioPendingLong, Currency: "USD"}
	answer := incoming.Approve(nil)
	if run := runIncoming(t, in, &answer, nil, 0); !run.finished[0].Approved || run.finishAt != 6*time.Minute {
		t.Fatalf("long pending: %+v at %s", run.finished[0], run.finishAt)
	}
}

// A decide update that comes while the platform is being asked is accepted and waits for
// the answer: after a 202 it decides the payment; after an answer that decided, the
// handler refuses it with the catalogue's code.
func TestIncomingDecisionWhileAsking(t *testing.T) {
	pending := incoming.Decision{Pending: true}
	decision := incoming.Reject("no")
	run := runIncomingAsking(t, incomingReq, &pending, 3*time.Second, &decision, time.Second)
	if run.decideErr != nil || run.rejected || run.finished[0].Status != catalog.TxRejected || run.finishAt != 3*time.Second {
		t.Fatalf("decide %v, finished with %+v at %s", run.decideErr, run.finished[0], run.finishAt)
	}
	approved := incoming.Approve(nil)
	run = runIncomingAsking(t, incomingReq, &approved, 3*time.Second, &decision, time.Second)
	var appErr *temporal.ApplicationError
	if run.rejected || !errors.As(run.decideErr, &appErr) || appErr.Type() != string(catalog.TransactionNotPendingApproval) || !run.finished[0].Approved {
		t.Fatalf("decide %v (rejected %v), finished with %+v", run.decideErr, run.rejected, run.finished[0])
	}
}

// The counterpart of a quote's payment is created as its workflow starts (no create
// update), asks the platform the same way and returns its decision without finishing: the
// quote's finish ends it. A decision call answers with the transaction as created.
func TestIncomingForQuoteReturnsTheDecisionUnfinished(t *testing.T) {
	in := incomingReq
	in.ForQuote = ids.Some(uuid.MustParse("0190a000-0000-7000-8000-0000000000f4"))
	env := newEnv(t)
	env.SetStartTime(quoteStart)
	var a *activities.Activities
	env.OnActivity(a.CreateIncoming, mock.Anything, in).Return(incomingCreated, nil).Once()
	env.OnActivity(a.AskApproval, mock.Anything, incomingCreated.EventID, incomingCreated.Receiver).Return(incoming.Decision{Pending: true}, nil).Once()
	finished, upserts := 0, 0
	env.OnActivity(a.FinishIncoming, mock.Anything, mock.Anything, mock.Anything, mock.Anything).Return(activities.FinishedIncoming{}, nil).
		Maybe().Run(func(mock.Arguments) { finished++ })
	env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil).Maybe().Run(func(mock.Arguments) { upserts++ })
	var answer json.RawMessage
	var decideErr error
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateDecide, "d", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { decideErr = err }, OnAccept: func() {},
			OnComplete: func(r interface{}, err error) { answer, _ = r.(json.RawMessage); decideErr = err },
		}, incoming.Reject("no"))
	}, 2*time.Second)
	env.ExecuteWorkflow(IncomingPayment, in)
	var d incoming.Decision
	if err := env.GetWorkflowError(); err != nil || env.GetWorkflowResult(&d) != nil {
		t.Fatalf("workflow error: %v", err)
	}
	env.AssertExpectations(t)
	if d.Status != catalog.TxRejected || finished != 0 || upserts != 0 {
		t.Fatalf("returned %+v, finished %d times, %d status upserts", d, finished, upserts)
	}
	if decideErr != nil || string(answer) != string(incomingCreated.Resource) {
		t.Fatalf("decide answered %s, %v", answer, decideErr)
	}
}
