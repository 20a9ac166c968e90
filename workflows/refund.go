package workflows

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/rail"
)

// RefundWorkflowID is the id of the workflow of the refund of an incoming payment: one per
// transaction at a time (the refund rule allows one refund per payment).
func RefundWorkflowID(transactionID uuid.UUID) string {
	return "refund/" + ids.Format(ids.Transaction, transactionID)
}

// RefundRequest is a platform's refund of one of its completed incoming payments.
type RefundRequest struct {
	TransactionID uuid.UUID
	// SlowDelay is how long a refund its rail says is slow waits before it ends.
	SlowDelay time.Duration
}

// Refund sends a completed incoming payment back to where it came from: the Payment
// skeleton with the refund's steps. Its create step opens the refund (the amount held on
// the account, the refund PENDING); the rail step sends the money back; the finish takes
// the held amount off the account (REFUNDED) or releases it (the refund FAILED). An
// operator may retry or fail it at the rail like any payment.
func Refund(ctx workflow.Context, in RefundRequest) error {
	return Payment[rail.Outcome](ctx, &refundSteps{in: in}, in.SlowDelay)
}

// refundSteps are the refund's steps of the payment lifecycle (PaymentSteps and
// RailSteps). instruction is the refund as the create step gave it to the rail step.
type refundSteps struct {
	in          RefundRequest
	instruction rail.Instruction
}

func (s *refundSteps) Create(ctx workflow.Context) (json.RawMessage, error) {
	var a *activities.Activities
	opened, err := result[activities.OpenedRefund](ctx, workflow.ExecuteLocalActivity(ctx, a.OpenIncomingRefund, s.in.TransactionID))
	s.instruction = opened.Instruction
	return opened.Resource, err
}

// MarkProcessing changes nothing: the transaction stays COMPLETED while its refund is
// pending. The status it answers, PROCESSING while the refund is pending, is what the
// workflow's TransactionStatus search attribute shows meanwhile.
func (s *refundSteps) MarkProcessing(ctx workflow.Context) (catalog.TransactionStatus, error) {
	var a *activities.Activities
	return result[catalog.TransactionStatus](ctx, workflow.ExecuteLocalActivity(ctx, a.RefundProcessing, s.in.TransactionID))
}

func (s *refundSteps) Submit(ctx workflow.Context) (rail.Outcome, error) {
	var a *activities.Activities
	return result[rail.Outcome](ctx, workflow.ExecuteActivity(ctx, a.SubmitRefund, s.instruction))
}

func (s *refundSteps) Finish(ctx workflow.Context, out rail.Outcome) (catalog.TransactionStatus, error) {
	var a *activities.Activities
	return result[catalog.TransactionStatus](ctx, workflow.ExecuteLocalActivity(ctx, a.FinishIncomingRefund, s.in.TransactionID, out))
}

// Unsettled: a refund whose rail step is refused for good fails, the money staying on the
// account.
func (s *refundSteps) Unsettled(code catalog.Code) rail.Outcome {
	return rail.Outcome{Status: catalog.TxFailed, Code: code, Message: "the refund could not be sent"}
}
