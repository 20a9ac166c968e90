package workflows

import (
	"encoding/json"
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/ids"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

// UpdateCreateTransfer is the update that persists a transfer and answers the API request.
const UpdateCreateTransfer = "create"

// TransferWorkflowID is the id of a transfer's workflow: one per transaction, so a
// duplicate start can never create a second payment.
func TransferWorkflowID(kind, transactionID string) string {
	prefix := "transfer-out/"
	if kind == transfer.In {
		prefix = "transfer-in/"
	}
	return prefix + ids.Transaction + ":" + transactionID
}

// localStep runs database steps as local activities: no server round trip each.
func localStep(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 15 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second,
			NonRetryableErrorTypes: []string{transfer.ErrInsufficientFunds, transfer.ErrAccountInactive, transfer.ErrCustomerDeleted}},
	})
}

// Transfer moves money between an internal and an external account in one currency.
//
// The API starts it with Update-with-Start: the "create" update persists the transaction
// (and, for a transfer out, the hold on the funds) in one database transaction and
// answers the request with the Transaction resource; a refused creation ends the workflow with nothing written. The
// workflow then marks the payment PROCESSING, submits it to the rail (a regular activity:
// the outside world), waits on a durable timer for the sandbox's slow scenario, and
// finishes it: COMPLETED with its ledger postings, or FAILED with the hold released.
// Every step is idempotent, and the TransactionStatus search attribute follows the status
// so operators can find stuck payments.
func Transfer(ctx workflow.Context, in transfer.Request) error {
	var a *activities.Activities
	logger := workflow.GetLogger(ctx)
	created, refused := false, false
	var resource json.RawMessage
	err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateCreateTransfer,
		func(ctx workflow.Context) (json.RawMessage, error) {
			if created {
				return resource, nil
			}
			if err := workflow.ExecuteLocalActivity(localStep(ctx), a.CreateTransfer, in).Get(ctx, &resource); err != nil {
				refused = true
				return nil, err
			}
			created = true
			return resource, nil
		},
		workflow.UpdateHandlerOptions{Validator: func(workflow.Context) error {
			if refused {
				return errors.New("this transfer was refused")
			}
			return nil
		}})
	if err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return created || refused }); err != nil {
		return err
	}
	if refused {
		return nil
	}

	var status string
	if err := workflow.ExecuteLocalActivity(localStep(ctx), a.MarkTransferProcessing, in.TransactionID).Get(ctx, &status); err != nil {
		return err
	}
	if status != "PROCESSING" {
		setStatus(ctx, status)
		return nil // finished by an earlier run
	}
	setStatus(ctx, status)

	var outcome sandbox.Outcome
	railCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
	if err := workflow.ExecuteActivity(railCtx, a.SubmitTransfer, in.TransactionID).Get(ctx, &outcome); err != nil {
		return err
	}
	if outcome.Slow {
		logger.Info("payment pending at the rail", "delay", in.SlowDelay)
		if err := workflow.Sleep(ctx, in.SlowDelay); err != nil {
			return err
		}
	}
	// FinishTransfer answers with the status the transaction ended with (a transfer in to
	// an account closed meanwhile fails whatever the rail said). Histories recorded before
	// it answered carry no result; their status is the outcome's, as it was then, so
	// replaying them issues the same search-attribute upsert.
	var final string
	if err := workflow.ExecuteLocalActivity(localStep(ctx), a.FinishTransfer, in.TransactionID, outcome).Get(ctx, &final); err != nil {
		return err
	}
	if final == "" {
		final = outcome.Status
	}
	setStatus(ctx, final)
	return nil
}

func setStatus(ctx workflow.Context, status string) {
	_ = workflow.UpsertTypedSearchAttributes(ctx, AttrTransactionStatus.ValueSet(status))
}
