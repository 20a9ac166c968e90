package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"paycore/activities"
	"paycore/internal/problem"
	"paycore/internal/quote"
	"paycore/internal/transfer"
	"paycore/workflows/start"
)

// Payments makes the payments of agent actions through their workflows
// (activities.Payments).
type Payments struct{ Starter start.Starter }

var _ activities.Payments = Payments{}

// Transfer starts or joins the transfer's workflow and waits for its create step.
func (p Payments) Transfer(ctx context.Context, r transfer.Request) error {
	_, err := p.Starter.Transfer(ctx, r)
	if errors.Is(err, start.ErrPaymentExists) {
		return activities.ErrPaymentEnded
	}
	return refusalOf(err)
}

// QuoteExecute sends the execute update to the quote's workflow and waits for it.
func (p Payments) QuoteExecute(ctx context.Context, quoteID uuid.UUID, e quote.Execution) error {
	_, err := p.Starter.QuoteExecute(ctx, quoteID, e)
	if errors.Is(err, start.ErrWorkflowClosed) {
		return activities.ErrPaymentEnded
	}
	return refusalOf(err)
}

// refusalOf turns the application error of a refused update (its details are the
// problem.Wire of the refusal) back into the domain refusal. An application error without
// one is the workflow's validator rejecting the update (the payment ended or was refused):
// activities.ErrPaymentEnded. Other errors stay as they are, to be retried.
func refusalOf(err error) error {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		var w problem.Wire
		if appErr.HasDetails() && appErr.Details(&w) == nil && w.Code != "" {
			return w.Err()
		}
		return fmt.Errorf("%w: %w", activities.ErrPaymentEnded, err)
	}
	return err
}
