package workflows

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"paycore/internal/catalog"
	"paycore/internal/operator"
	"paycore/internal/payment"
	"paycore/internal/sandbox"
)

// railSteps are fake payment steps whose rail call is an activity of its own (railStep),
// which fails (the rail is down) until up is set.
type railSteps struct {
	fakeSteps
	up bool
	// cancellable makes the steps Cancellable (cancellableRail); cancelAnswers are the
	// answers of the successive attempts of the rail's cancel call (nil once used up).
	cancellable   bool
	cancelAnswers []error
	// pending are the reasons MarkPending recorded.
	pending []string
}

func (r *railSteps) MarkPending(_ workflow.Context, reason string) error {
	r.pending = append(r.pending, reason)
	return nil
}

// cancellableRail are railSteps whose payment its platform may cancel at its rail: the
// rail's cancel call is an activity of its own (cancelStep).
type cancellableRail struct{ *railSteps }

func (c cancellableRail) CancelAtRail(ctx workflow.Context) error {
	return workflow.ExecuteActivity(CancelCall(ctx), "cancelStep").Get(ctx, nil)
}

func (r *railSteps) Submit(ctx workflow.Context) (sandbox.Outcome, error) {
	r.ran = append(r.ran, "submit")
	return r.outcome, workflow.ExecuteActivity(ctx, "railStep").Get(ctx, nil)
}

// operatorRun is one run of the skeleton with operator actions sent at given moments.
type operatorRun struct {
	answers []string // each action's answer: its status, or "rejected: ..." / "error: ..."
	calls   int      // rail calls made
}

type timedAction struct {
	at time.Duration
	r  operator.Request
	// cancel, when set, sends the platform's cancellation instead of r.
	cancel *payment.Cancellation
	// before runs just before the action is sent.
	before func()
}

func runOperator(t *testing.T, steps *railSteps, actions ...timedAction) operatorRun {
	t.Helper()
	env := newEnv(t)
	steps.env = env
	var run operatorRun
	env.RegisterActivityWithOptions(fakeStep, activity.RegisterOptions{Name: "fakeStep"})
	env.RegisterActivityWithOptions(func(ctx context.Context) error {
		run.calls++
		if !steps.up {
			return errors.New("the rail is down")
		}
		return nil
	}, activity.RegisterOptions{Name: "railStep"})
	env.RegisterActivityWithOptions(func(ctx context.Context) error {
		if len(steps.cancelAnswers) == 0 {
			return nil
		}
		err := steps.cancelAnswers[0]
		steps.cancelAnswers = steps.cancelAnswers[1:]
		return err
	}, activity.RegisterOptions{Name: "cancelStep"})
	var p PaymentSteps[sandbox.Outcome] = steps
	if steps.cancellable {
		p = cancellableRail{steps}
	}
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error { return Payment[sandbox.Outcome](ctx, p, slowDelay) }, workflow.RegisterOptions{Name: "FakePayment"})
	env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil)
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateCreate, "create", &testsuite.TestUpdateCallback{OnReject: func(error) {}, OnAccept: func() {}, OnComplete: func(any, error) {}})
	}, 0)
	for i, a := range actions {
		env.RegisterDelayedCallback(func() {
			if a.before != nil {
				a.before()
			}
			name, arg := UpdateOperator, any(a.r)
			if a.cancel != nil {
				name, arg = UpdateCancelPayment, *a.cancel
			}
			env.UpdateWorkflow(name, fmt.Sprintf("op-%d-%s", i, a.at), &testsuite.TestUpdateCallback{
				OnReject: func(err error) { run.answers = append(run.answers, "rejected: "+rejection(err)) },
				OnAccept: func() {},
				OnComplete: func(v any, err error) {
					if err != nil {
						run.answers = append(run.answers, "error: "+err.Error())
						return
					}
					s, _ := v.(catalog.TransactionStatus)
					run.answers = append(run.answers, string(s))
				},
			}, arg)
		}, a.at)
	}
	env.ExecuteWorkflow("FakePayment")
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error after %d rail calls: %v", run.calls, err)
	}
	return run
}

var (
	failIt  = operator.Request{Action: operator.Fail, Operator: "alice", Reason: "the bank confirmed it never arrived"}
	retryIt = operator.Request{Action: operator.RetryRail, Operator: "bob"}
)

// A payment whose rail is down waits at its rail call (retried without end); an operator
// fails it: the call is cancelled and Finish gets FAILED_BY_OPERATOR naming the operator and
// the reason, and the action is answered with the status the payment ended with.
func TestOperatorFailsPaymentStuckAtRail(t *testing.T) {
	steps := &railSteps{fakeSteps: fakeSteps{status: catalog.TxProcessing, outcome: sandbox.Outcome{Status: catalog.TxCompleted}, final: catalog.TxFailed}}
	run := runOperator(t, steps, timedAction{at: 2 * time.Minute, r: failIt})
	if len(run.answers) != 1 || run.answers[0] != "FAILED" {
		t.Fatalf("answers %v", run.answers)
	}
	f := steps.finished
	if f.Status != catalog.TxFailed || f.Code != catalog.FailByOperator || !strings.Contains(f.Message, "alice") || !strings.Contains(f.Message, failIt.Reason) {
		t.Fatalf("finished with %+v", f)
	}
	if run.calls < 3 {
		t.Fatalf("%d rail calls: the rail call was not retried while it waited", run.calls)
	}
}

// A retry cancels the rail call under way and submits again at once: the payment then
// completes with the rail's answer.
func TestOperatorRetriesRail(t *testing.T) {
	steps := &railSteps{fakeSteps: fakeSteps{status: catalog.TxProcessing, outcome: sandbox.Outcome{Status: catalog.TxCompleted}, final: catalog.TxCompleted}}
	run := runOperator(t, steps, timedAction{at: 2 * time.Minute, r: retryIt, before: func() { steps.up = true }})
	if len(run.answers) != 1 || run.answers[0] != "PROCESSING" {
		t.Fatalf("answers %v", run.answers)
	}
	submits := 0
	for _, s := range steps.ran {
		if s == "submit" {
			submits++
		}
	}
	if submits != 2 || steps.finished.Status != catalog.TxCompleted {
		t.Fatalf("%d submissions, finished %+v (ran %v)", submits, steps.finished, steps.ran)
	}
}

// During the rail's slow scenario an operator fails the payment before the wait ends.
func TestOperatorFailsDuringSlowWait(t *testing.T) {
	steps := &railSteps{up: true, fakeSteps: fakeSteps{status: catalog.TxProcessing, outcome: sandbox.Outcome{Status: catalog.TxFailed, Code: catalog.FailTimedOut, Slow: true}, final: catalog.TxFailed}}
	var started time.Time
	run := runOperator(t, steps, timedAction{at: 10 * time.Second, r: failIt, before: func() { started = steps.env.Now() }})
	if len(run.answers) != 1 || run.answers[0] != "FAILED" || steps.finished.Code != catalog.FailByOperator {
		t.Fatalf("answers %v, finished %+v", run.answers, steps.finished)
	}
	if !steps.finishAt.Before(started.Add(slowDelay)) {
		t.Fatalf("finished at %s, after the slow wait would have ended", steps.finishAt.Sub(started))
	}
}

// Actions are refused when they do not say who asks, or fail without a reason, and when
// the payment is not at its rail (finished already).
func TestOperatorActionsRefused(t *testing.T) {
	steps := &railSteps{up: true, fakeSteps: fakeSteps{status: catalog.TxProcessing, outcome: sandbox.Outcome{Status: catalog.TxCompleted, Slow: true}, final: catalog.TxCompleted}}
	run := runOperator(t, steps,
		timedAction{at: time.Second, r: operator.Request{Action: operator.Fail, Reason: "no name"}},
		timedAction{at: 2 * time.Second, r: operator.Request{Action: operator.Fail, Operator: "alice"}},
		timedAction{at: 3 * time.Second, r: operator.Request{Action: "REFUND", Operator: "alice"}},
	)
	if len(run.answers) != 3 {
		t.Fatalf("answers %v", run.answers)
	}
	for _, a := range run.answers {
		if !strings.HasPrefix(a, "rejected: INVALID_INPUT: ") {
			t.Fatalf("answers %v", run.answers)
		}
	}
	if steps.finished.Status != catalog.TxCompleted {
		t.Fatalf("finished %+v", steps.finished)
	}
}

// A second action sent while the first is being carried out finds the payment no longer
// waiting at its rail: it is rejected with the coded CONFLICT refusal, and the first
// action alone takes effect.
func TestOperatorSecondActionIsACodedConflict(t *testing.T) {
	steps := &railSteps{up: true, fakeSteps: fakeSteps{status: catalog.TxProcessing, outcome: sandbox.Outcome{Status: catalog.TxCompleted, Slow: true}, final: catalog.TxFailed}}
	run := runOperator(t, steps, timedAction{at: 5 * time.Second, r: failIt}, timedAction{at: 5 * time.Second, r: failIt})
	if len(run.answers) != 2 || !slices.Contains(run.answers, "rejected: CONFLICT: the payment is not waiting at its rail") ||
		!slices.Contains(run.answers, string(catalog.TxFailed)) {
		t.Fatalf("answers %v", run.answers)
	}
	if steps.finished.Code != catalog.FailByOperator {
		t.Fatalf("finished %+v", steps.finished)
	}
}

// An action on a payment that is not at its rail yet (before its creation) is rejected.
func TestOperatorActionBeforeRail(t *testing.T) {
	env := newEnv(t)
	steps := &railSteps{up: true, fakeSteps: fakeSteps{env: env, status: catalog.TxProcessing, outcome: sandbox.Outcome{Status: catalog.TxCompleted}, final: catalog.TxCompleted}}
	env.RegisterActivityWithOptions(fakeStep, activity.RegisterOptions{Name: "fakeStep"})
	env.RegisterActivityWithOptions(func(context.Context) error { return nil }, activity.RegisterOptions{Name: "railStep"})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error { return Payment[sandbox.Outcome](ctx, steps, slowDelay) }, workflow.RegisterOptions{Name: "FakePayment"})
	env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil)
	var answer string
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateOperator, "early", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { answer = "rejected: " + rejection(err) }, OnAccept: func() {}, OnComplete: func(any, error) { answer = "completed" }}, failIt)
	}, 0)
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateCreate, "create", &testsuite.TestUpdateCallback{OnReject: func(error) {}, OnAccept: func() {}, OnComplete: func(any, error) {}})
	}, time.Second)
	env.ExecuteWorkflow("FakePayment")
	if !strings.HasPrefix(answer, "rejected: ") {
		t.Fatalf("an action before the rail: %q", answer)
	}
}

// A rail that says the payment is slow for a reason has it recorded before the wait (the
// transaction's pendingReason); a slow outcome without one records nothing.
func TestSlowOutcomeRecordsItsPendingReason(t *testing.T) {
	steps := &railSteps{up: true, fakeSteps: fakeSteps{status: catalog.TxProcessing,
		outcome: sandbox.Outcome{Status: catalog.TxCompleted, Slow: true, PendingReason: catalog.PendingComplianceReview}, final: catalog.TxCompleted}}
	runOperator(t, steps)
	if len(steps.pending) != 1 || steps.pending[0] != catalog.PendingComplianceReview || steps.finished.Status != catalog.TxCompleted {
		t.Fatalf("pending %v, finished %+v", steps.pending, steps.finished)
	}
	plain := &railSteps{up: true, fakeSteps: fakeSteps{status: catalog.TxProcessing, outcome: sandbox.Outcome{Status: catalog.TxCompleted, Slow: true}, final: catalog.TxCompleted}}
	runOperator(t, plain)
	if len(plain.pending) != 0 {
		t.Fatalf("pending %v", plain.pending)
	}
}

// rejection is how a validator's rejection reads in these tests: the code it carries (the
// application error's type, which the API answers) and its message.
func rejection(err error) string {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return "UNCODED: " + err.Error()
	}
	return app.Type() + ": " + app.Message()
}
