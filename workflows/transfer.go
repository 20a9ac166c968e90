package workflows

import (
	"encoding/json"

	"github.com/google/uuid"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

// TransferWorkflowID is the id of a transfer's workflow: one per transaction, so a
// duplicate start can never create a second payment.
func TransferWorkflowID(kind transfer.Kind, transactionID uuid.UUID) string {
	prefix := "transfer-out/"
	if kind == transfer.In {
		prefix = "transfer-in/"
	}
	return prefix + ids.Format(ids.Transaction, transactionID)
}

// Transfer moves money between an internal and an external account in one currency: the
// Payment skeleton with the transfer's steps. Its create step applies the transfer rule to
// the accounts as they are under the internal account's lock.
func Transfer(ctx workflow.Context, in transfer.Request) error {
	return Payment[sandbox.Outcome](ctx, &transferSteps{in: in}, in.SlowDelay)
}

// transferSteps are the transfer's steps of the payment lifecycle (PaymentSteps and
// RailSteps). rail is what the create step found for the rail step.
type transferSteps struct {
	in   transfer.Request
	rail transfer.Rail
}

func (s *transferSteps) Create(ctx workflow.Context) (json.RawMessage, error) {
	var a *activities.Activities
	created, err := result[activities.CreatedTransfer](ctx, workflow.ExecuteLocalActivity(ctx, a.CreateTransfer, s.in))
	s.rail = created.Rail
	return created.Resource, err
}

func (s *transferSteps) MarkProcessing(ctx workflow.Context) (catalog.TransactionStatus, error) {
	var a *activities.Activities
	return result[catalog.TransactionStatus](ctx, workflow.ExecuteLocalActivity(ctx, a.MarkTransferProcessing, s.in.TransactionID))
}

func (s *transferSteps) Submit(ctx workflow.Context) (sandbox.Outcome, error) {
	var a *activities.Activities
	return result[sandbox.Outcome](ctx, workflow.ExecuteActivity(ctx, a.SubmitTransfer, s.in.TransactionID, s.rail))
}

func (s *transferSteps) Finish(ctx workflow.Context, out sandbox.Outcome) (catalog.TransactionStatus, error) {
	var a *activities.Activities
	return result[catalog.TransactionStatus](ctx, workflow.ExecuteLocalActivity(ctx, a.FinishTransfer, s.in, out))
}

// MarkPending records why the transfer waits at its rail.
func (s *transferSteps) MarkPending(ctx workflow.Context, reason string) error {
	var a *activities.Activities
	return workflow.ExecuteLocalActivity(ctx, a.MarkPaymentPending, s.in.TransactionID, reason).Get(ctx, nil)
}

// CancelAtRail asks the transfer's rail to cancel it.
func (s *transferSteps) CancelAtRail(ctx workflow.Context) error {
	var a *activities.Activities
	return workflow.ExecuteActivity(CancelCall(ctx), a.CancelTransfer, s.in.TransactionID, s.rail).Get(ctx, nil)
}

// Unsettled: a transfer whose finish is refused for good fails with its hold released.
func (s *transferSteps) Unsettled(code catalog.Code) sandbox.Outcome { return sandbox.Unsettled(code) }
