package workflows

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"paycore/activities"
	"paycore/internal/catalog"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

var req = transfer.Request{TransactionID: uuid.MustParse("0190a000-0000-7000-8000-000000000001"), Kind: transfer.Out,
	PlatformID: uuid.MustParse("0190a000-0000-7000-8000-000000000002"), InternalAccountID: uuid.MustParse("0190a000-0000-7000-8000-000000000003"),
	ExternalAccountID: uuid.MustParse("0190a000-0000-7000-8000-000000000004"), Amount: 100, SlowDelay: 30 * time.Second}

// created is what the create step answers for req.
var created = activities.CreatedTransfer{Resource: json.RawMessage(`{"id":"Transaction:x"}`),
	Rail: transfer.Rail{ExternalIdentifier: "123456789001", Environment: catalog.Sandbox}}

// runTransfer executes the workflow, sending the create update first, and returns the
// update's error.
func runTransfer(t *testing.T, env *testsuite.TestWorkflowEnvironment) error {
	t.Helper()
	var updateErr error
	done := false
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateCreate, "u1", &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { updateErr, done = err, true },
			OnAccept:   func() {},
			OnComplete: func(_ interface{}, err error) { updateErr, done = err, true },
		})
	}, 0)
	env.ExecuteWorkflow(Transfer, req)
	if !done {
		t.Fatal("the create update never completed")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	return updateErr
}

func TestTransferCompletes(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	env.OnActivity(a.CreateTransfer, mock.Anything, req).Return(created, nil).Once()
	env.OnActivity(a.MarkTransferProcessing, mock.Anything, req.TransactionID).Return(catalog.TxProcessing, nil).Once()
	env.OnActivity(a.SubmitTransfer, mock.Anything, req.TransactionID, created.Rail).Return(sandbox.Outcome{Status: "COMPLETED"}, nil).Once()
	env.OnActivity(a.FinishTransfer, mock.Anything, req, sandbox.Outcome{Status: "COMPLETED"}).Return(catalog.TxCompleted, nil).Once()
	if err := runTransfer(t, env); err != nil {
		t.Fatalf("update: %v", err)
	}
	env.AssertExpectations(t)
}

// A refused creation (insufficient funds) answers the update with the business error and
// ends the workflow without touching the rail.
func TestTransferRefused(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	env.OnActivity(a.CreateTransfer, mock.Anything, req).
		Return(activities.CreatedTransfer{}, temporal.NewNonRetryableApplicationError("balance too low", string(catalog.InsufficientFunds), nil)).Once()
	err := runTransfer(t, env)
	var appErr *temporal.ApplicationError
	if err == nil || !asApp(err, &appErr) || appErr.Type() != string(catalog.InsufficientFunds) {
		t.Fatalf("update error %v", err)
	}
	env.AssertExpectations(t)
	env.AssertNotCalled(t, "SubmitTransfer", mock.Anything, mock.Anything, mock.Anything)
}

// The slow scenario waits on a durable timer before finishing.
func TestTransferSlowScenarioWaits(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	slow := sandbox.Outcome{Status: "FAILED", Code: "TIMED_OUT", Slow: true}
	var finishedAt time.Time
	start := env.Now()
	env.OnActivity(a.CreateTransfer, mock.Anything, req).Return(created, nil)
	env.OnActivity(a.MarkTransferProcessing, mock.Anything, mock.Anything).Return(catalog.TxProcessing, nil)
	env.OnActivity(a.SubmitTransfer, mock.Anything, mock.Anything, mock.Anything).Return(slow, nil)
	env.OnActivity(a.FinishTransfer, mock.Anything, req, slow).Return(catalog.TxFailed, nil).Run(func(mock.Arguments) { finishedAt = env.Now() })
	if err := runTransfer(t, env); err != nil {
		t.Fatal(err)
	}
	if waited := finishedAt.Sub(start); waited < req.SlowDelay {
		t.Fatalf("finished after %s, want at least %s", waited, req.SlowDelay)
	}
}

// A workflow that finds its transaction already finished (a re-run) stops.
func TestTransferAlreadyFinished(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	env.OnActivity(a.CreateTransfer, mock.Anything, req).Return(created, nil)
	env.OnActivity(a.MarkTransferProcessing, mock.Anything, mock.Anything).Return(catalog.TxCompleted, nil)
	if err := runTransfer(t, env); err != nil {
		t.Fatal(err)
	}
	env.AssertNotCalled(t, "SubmitTransfer", mock.Anything, mock.Anything, mock.Anything)
	env.AssertNotCalled(t, "FinishTransfer", mock.Anything, mock.Anything, mock.Anything)
}

func asApp(err error, target **temporal.ApplicationError) bool {
	return errors.As(err, target)
}

// The TransactionStatus search attribute ends with the status the transaction finished
// with, not the rail's outcome: a transfer in whose account was closed meanwhile FAILED.
func TestTransferStatusFollowsFinish(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	in := req
	in.Kind = transfer.In
	ok := sandbox.Outcome{Status: "COMPLETED"}
	env.OnActivity(a.CreateTransfer, mock.Anything, in).Return(created, nil)
	env.OnActivity(a.MarkTransferProcessing, mock.Anything, mock.Anything).Return(catalog.TxProcessing, nil)
	env.OnActivity(a.SubmitTransfer, mock.Anything, mock.Anything, mock.Anything).Return(ok, nil)
	env.OnActivity(a.FinishTransfer, mock.Anything, in, ok).Return(catalog.TxFailed, nil).Once()
	var statuses []string
	env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil).Run(func(args mock.Arguments) {
		if v, found := args.Get(0).(temporal.SearchAttributes).GetKeyword(AttrTransactionStatus); found {
			statuses = append(statuses, v)
		}
	})
	var updateErr error
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateCreate, "u1", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { updateErr = err }, OnAccept: func() {}, OnComplete: func(_ interface{}, err error) { updateErr = err },
		})
	}, 0)
	env.ExecuteWorkflow(Transfer, in)
	if err := env.GetWorkflowError(); err != nil || updateErr != nil {
		t.Fatalf("workflow %v, update %v", err, updateErr)
	}
	if len(statuses) == 0 || statuses[len(statuses)-1] != "FAILED" {
		t.Fatalf("TransactionStatus upserts %v, want the last FAILED", statuses)
	}
}
