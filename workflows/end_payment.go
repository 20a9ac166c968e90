package workflows

import (
	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/operator"
	"paycore/internal/quote"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

// EndPaymentWorkflowID is the id of the workflow that fails by hand a payment whose own
// workflow has ended: one per transaction.
func EndPaymentWorkflowID(transactionID uuid.UUID) string {
	return "end-payment/" + ids.Format(ids.Transaction, transactionID)
}

// EndPaymentRequest is an operator's failing of a payment whose own workflow ended before
// the payment did (terminated, or failed before the payment skeleton ended unsettleable
// payments itself): the transaction, its kind, and the operator's request.
type EndPaymentRequest struct {
	TransactionID uuid.UUID
	Kind          string
	Request       operator.Request
}

// EndPayment fails such a payment as the operator asked: FAILED_BY_OPERATOR with the
// reason, its hold released, the usual events, through the finish step of its kind (the
// one its own workflow would have run, in finishOrFail). Finishing a finished payment
// changes nothing, so it answers the status the payment has afterwards.
func EndPayment(ctx workflow.Context, in EndPaymentRequest) (catalog.TransactionStatus, error) {
	var finish func(workflow.Context, sandbox.Outcome) (catalog.TransactionStatus, error)
	switch in.Kind {
	case string(transfer.Out), string(transfer.In):
		finish = (&transferSteps{in: transfer.Request{TransactionID: in.TransactionID, Kind: transfer.Kind(in.Kind)}}).Finish
	case quote.Kind:
		finish = (&quoteSteps{in: quote.Request{TransactionID: in.TransactionID}}).Finish
	case incoming.Kind:
		steps := &incomingSteps{in: incoming.Request{TransactionID: in.TransactionID}}
		finish = func(ctx workflow.Context, out sandbox.Outcome) (catalog.TransactionStatus, error) {
			return steps.Finish(ctx, incoming.Decision{Status: out.Status, Code: out.Code, Message: out.Message})
		}
	default:
		return "", errNoWorkflowKind
	}
	_, status, err := finishOrFail(ctx, finish, operator.FailOutcome(in.Request), sandbox.Unsettled)
	return status, err
}

// errNoWorkflowKind refuses ending a payment of a kind no workflow finishes.
var errNoWorkflowKind = temporal.NewNonRetryableApplicationError("no workflow finishes payments of this kind", string(catalog.InvalidInput), nil)
