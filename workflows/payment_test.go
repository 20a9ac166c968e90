package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"paycore/internal/catalog"
	"paycore/internal/sandbox"
)

// fakeStep stands for a step's activity: the fake steps run it with the context the
// skeleton gives them, so a step handed the wrong preset fails.
func fakeStep(context.Context) error { return nil }

// fakeSteps is a kind of payment whose steps answer from its fields and record when they
// ran.
type fakeSteps struct {
	env       *testsuite.TestWorkflowEnvironment
	createErr error
	status    catalog.TransactionStatus // MarkProcessing's answer
	outcome   sandbox.Outcome           // Submit's answer
	final     catalog.TransactionStatus // Finish's answer
	ran       []string
	finishAt  time.Time
	finished  sandbox.Outcome // the outcome Finish was given
}

func (f *fakeSteps) local(ctx workflow.Context, step string) error {
	f.ran = append(f.ran, step)
	return workflow.ExecuteLocalActivity(ctx, fakeStep).Get(ctx, nil)
}

func (f *fakeSteps) Create(ctx workflow.Context) (json.RawMessage, error) {
	if err := f.local(ctx, "create"); err != nil {
		return nil, err
	}
	if f.createErr != nil {
		return nil, f.createErr
	}
	return json.RawMessage(`{"id":"Transaction:x"}`), nil
}

func (f *fakeSteps) MarkProcessing(ctx workflow.Context) (catalog.TransactionStatus, error) {
	return f.status, f.local(ctx, "processing")
}

func (f *fakeSteps) Submit(ctx workflow.Context) (sandbox.Outcome, error) {
	f.ran = append(f.ran, "submit")
	return f.outcome, workflow.ExecuteActivity(ctx, fakeStep).Get(ctx, nil)
}

func (f *fakeSteps) Finish(ctx workflow.Context, out sandbox.Outcome) (catalog.TransactionStatus, error) {
	f.finishAt, f.finished = f.env.Now(), out
	return f.final, f.local(ctx, "finish")
}

func (f *fakeSteps) Unsettled(code catalog.Code) sandbox.Outcome { return sandbox.Unsettled(code) }

// paymentRun is what one run of the skeleton showed.
type paymentRun struct {
	resources []string // what each create update answered
	updateErr error
	statuses  []string // TransactionStatus upserts in order
	started   time.Time
}

const slowDelay = 30 * time.Second

// runPayment runs the skeleton with steps, sending the create update updates times, a
// second apart (the payment must still be running then).
func runPayment(t *testing.T, steps *fakeSteps, updates int) paymentRun {
	t.Helper()
	env := newEnv(t)
	steps.env = env
	env.RegisterActivityWithOptions(fakeStep, activity.RegisterOptions{Name: "fakeStep"})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error { return Payment[sandbox.Outcome](ctx, steps, slowDelay) }, workflow.RegisterOptions{Name: "FakePayment"})
	run := paymentRun{started: env.Now()}
	env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil).Run(func(args mock.Arguments) {
		if v, ok := args.Get(0).(temporal.SearchAttributes).GetKeyword(AttrTransactionStatus); ok {
			run.statuses = append(run.statuses, v)
		}
	})
	answered := 0
	for i := range updates {
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateCreate, string(rune('a'+i)), &testsuite.TestUpdateCallback{
				OnReject: func(err error) { run.updateErr, answered = err, answered+1 },
				OnAccept: func() {},
				OnComplete: func(v interface{}, err error) {
					answered++
					if err != nil {
						run.updateErr = err
						return
					}
					b, _ := v.(json.RawMessage)
					run.resources = append(run.resources, string(b))
				},
			})
		}, time.Duration(i)*time.Second)
	}
	env.ExecuteWorkflow("FakePayment")
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	if answered != updates {
		t.Fatalf("%d of %d create updates answered", answered, updates)
	}
	return run
}

func TestPaymentCompletes(t *testing.T) {
	steps := &fakeSteps{status: catalog.TxProcessing, outcome: sandbox.Outcome{Status: catalog.TxCompleted}, final: catalog.TxCompleted}
	run := runPayment(t, steps, 1)
	if run.updateErr != nil || !slices.Equal(run.resources, []string{`{"id":"Transaction:x"}`}) {
		t.Fatalf("create answered %v, %v", run.resources, run.updateErr)
	}
	if want := []string{"create", "processing", "submit", "finish"}; !slices.Equal(steps.ran, want) {
		t.Fatalf("steps %v, want %v", steps.ran, want)
	}
	if !slices.Equal(run.statuses, []string{"PROCESSING", "COMPLETED"}) {
		t.Fatalf("statuses %v", run.statuses)
	}
	if steps.finishAt.Sub(run.started) >= slowDelay {
		t.Fatal("a payment that is not slow waited")
	}
}

// A failure at the rail is handed to Finish (which releases the hold) and ends FAILED.
func TestPaymentFailsAtTheRail(t *testing.T) {
	failed := sandbox.Outcome{Status: catalog.TxFailed, Code: catalog.FailRejectedByBank, Message: "the bank rejected the payment"}
	steps := &fakeSteps{status: catalog.TxProcessing, outcome: failed, final: catalog.TxFailed}
	run := runPayment(t, steps, 1)
	if steps.finished != failed || !slices.Equal(run.statuses, []string{"PROCESSING", "FAILED"}) {
		t.Fatalf("finished with %+v, statuses %v", steps.finished, run.statuses)
	}
}

// The slow scenario waits slowDelay on a durable timer between the rail and Finish.
func TestPaymentSlowWaits(t *testing.T) {
	slow := sandbox.Outcome{Status: catalog.TxFailed, Code: catalog.FailTimedOut, Slow: true}
	steps := &fakeSteps{status: catalog.TxProcessing, outcome: slow, final: catalog.TxFailed}
	run := runPayment(t, steps, 1)
	if waited := steps.finishAt.Sub(run.started); waited < slowDelay {
		t.Fatalf("finished after %s, want at least %s", waited, slowDelay)
	}
	if steps.finished != slow || !slices.Equal(run.statuses, []string{"PROCESSING", "FAILED"}) {
		t.Fatalf("finished with %+v, statuses %v", steps.finished, run.statuses)
	}
}

// A refused creation answers the update with the refusal and ends the payment: no other
// step runs and no status is upserted.
func TestPaymentRefusedCreate(t *testing.T) {
	refusal := temporal.NewNonRetryableApplicationError("the account's available balance is below 5", string(catalog.InsufficientFunds), nil)
	steps := &fakeSteps{createErr: refusal}
	run := runPayment(t, steps, 1)
	var appErr *temporal.ApplicationError
	if !errors.As(run.updateErr, &appErr) || appErr.Type() != string(catalog.InsufficientFunds) {
		t.Fatalf("update error %v", run.updateErr)
	}
	if !slices.Equal(steps.ran, []string{"create"}) || len(run.statuses) != 0 {
		t.Fatalf("steps %v, statuses %v", steps.ran, run.statuses)
	}
}

// A create request arriving after the creation was refused is rejected with that refusal,
// its code included, whether the step's error came bare or wrapped (as a local activity's
// error wraps its application error).
func TestCreateRefusalKeepsItsCode(t *testing.T) {
	refusal := temporal.NewNonRetryableApplicationError("the account's available balance is below 5", string(catalog.InsufficientFunds), nil)
	for _, err := range []error{refusal, fmt.Errorf("local activity: %w", refusal)} {
		var app *temporal.ApplicationError
		if got := createRefusal(err); !errors.As(got, &app) || app.Type() != string(catalog.InsufficientFunds) || got.Error() != refusal.Error() {
			t.Fatalf("createRefusal(%v) = %v", err, got)
		}
	}
	plain := errors.New("database unavailable")
	if got := createRefusal(plain); got != plain {
		t.Fatalf("createRefusal(%v) = %v", plain, got)
	}
}

// A create update repeated once the payment exists (a retried request) answers with the
// same resource without creating again. (Duplicates that arrive together may both run
// Create, which is idempotent.)
func TestPaymentCreateAnswersOnce(t *testing.T) {
	steps := &fakeSteps{status: catalog.TxProcessing, outcome: sandbox.Outcome{Status: catalog.TxFailed, Slow: true}, final: catalog.TxFailed}
	run := runPayment(t, steps, 2)
	if len(run.resources) != 2 || run.resources[0] != run.resources[1] || slices.Index(steps.ran[1:], "create") >= 0 {
		t.Fatalf("answers %v, steps %v", run.resources, steps.ran)
	}
}

// A payment an earlier run already finished stops after MarkProcessing, its status
// upserted.
func TestPaymentAlreadyFinished(t *testing.T) {
	steps := &fakeSteps{status: catalog.TxCompleted}
	run := runPayment(t, steps, 1)
	if !slices.Equal(steps.ran, []string{"create", "processing"}) || !slices.Equal(run.statuses, []string{"COMPLETED"}) {
		t.Fatalf("steps %v, statuses %v", steps.ran, run.statuses)
	}
}

// Histories recorded before Finish answered carry no status: the outcome's is upserted.
func TestPaymentFinishWithoutStatus(t *testing.T) {
	steps := &fakeSteps{status: catalog.TxProcessing, outcome: sandbox.Outcome{Status: catalog.TxCompleted}}
	run := runPayment(t, steps, 1)
	if !slices.Equal(run.statuses, []string{"PROCESSING", "COMPLETED"}) {
		t.Fatalf("statuses %v", run.statuses)
	}
}
