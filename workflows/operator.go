package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"paycore/internal/catalog"
	"paycore/internal/operator"
	"paycore/internal/payment"
	"paycore/internal/sandbox"
)

// UpdateOperator is the update an operator sends a payment that waits at its rail (its
// argument is an operator.Request): retry the rail step now, or fail the payment with a
// reason. It answers with the payment's status once the action took effect (PROCESSING
// after a retry's new submission, FAILED after a failure). The update is in the payment's
// history with the operator's name and reason.
const UpdateOperator = "operator"

// UpdateCancelPayment is the update a platform's cancellation sends a payment (its argument is a
// payment.Cancellation): while the payment waits at its rail and its steps can cancel
// there (Cancellable), the rail is asked to cancel it and, once it has, the payment ends
// FAILED (payment.Cancelled), its hold released. It answers with the payment's status
// then; every refusal is TRANSACTION_NOT_CANCELLABLE.
const UpdateCancelPayment = "cancel-payment"

// Cancellable is implemented by the steps of payments a platform may cancel while they
// wait at their rail (transfers, quotes' payouts): CancelAtRail asks the rail to cancel
// the payment and returns its refusal (a coded TRANSACTION_NOT_CANCELLABLE) when it
// cannot.
type Cancellable interface {
	CancelAtRail(ctx workflow.Context) error
}

// PendingRecorder is implemented by the steps of payments that record why they wait at
// their rail (the transaction's pendingReason) when the rail's slow outcome says.
type PendingRecorder interface {
	MarkPending(ctx workflow.Context, reason string) error
}

// Interruptible is implemented by the steps of payments whose rail step an operator may
// only interrupt sometimes (a quote paying another customer of this deployment runs a
// child workflow that must finish on its own); steps that do not implement it always may.
type Interruptible interface {
	Interruptible() bool
}

// operatorDesk takes operator actions, and its platform's cancellation, while a payment
// waits at its rail: during the rail call (an activity, retried without end) and during the
// rail's slow scenario.
type operatorDesk struct {
	steps RailSteps
	// waiting is set while the payment waits at its rail; cancelling while the rail is
	// asked to cancel it; pending is the action taken and not yet carried out; status is
	// the payment's status once it was.
	waiting, cancelling bool
	pending             *deskAction
	applied             int
	status              catalog.TransactionStatus
}

// deskAction is an action taken on a payment waiting at its rail: submit it again (retry),
// or end it with end (an operator's failure, a cancellation).
type deskAction struct {
	retry bool
	end   sandbox.Outcome
}

// interruptible reports whether the payment's rail step may be interrupted now.
func (d *operatorDesk) interruptible() bool {
	if !d.waiting || d.pending != nil || d.cancelling {
		return false
	}
	i, ok := d.steps.(Interruptible)
	return !ok || i.Interruptible()
}

// act hands a the rail step and waits until it took effect: the payment's status then.
func (d *operatorDesk) act(ctx workflow.Context, a deskAction) (catalog.TransactionStatus, error) {
	d.pending = &a
	seen := d.applied
	if err := workflow.Await(ctx, func() bool { return d.applied > seen }); err != nil {
		return "", err
	}
	return d.status, nil
}

// newOperatorDesk registers the operator and cancel updates on the payment's workflow.
func newOperatorDesk(ctx workflow.Context, steps RailSteps) (*operatorDesk, error) {
	d := &operatorDesk{steps: steps}
	err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateOperator, func(ctx workflow.Context, r operator.Request) (catalog.TransactionStatus, error) {
		return d.act(ctx, deskAction{retry: r.Action == operator.RetryRail, end: operator.FailOutcome(r)})
	}, workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, r operator.Request) error {
		if err := r.Check(); err != nil {
			return coded(err)
		}
		if !d.interruptible() {
			return coded(operator.NotAtRail())
		}
		return nil
	}})
	if err != nil {
		return nil, err
	}
	err = workflow.SetUpdateHandlerWithOptions(ctx, UpdateCancelPayment, d.cancel, workflow.UpdateHandlerOptions{
		Validator: func(_ workflow.Context, c payment.Cancellation) error {
			if err := c.Check(); err != nil {
				return coded(err)
			}
			if _, ok := steps.(Cancellable); !ok || !d.interruptible() {
				return coded(payment.NotCancellable("it is not waiting at its rail"))
			}
			return nil
		}})
	return d, err
}

// cancel asks the rail to cancel the payment and, once it has, ends the payment with the
// cancellation's outcome. A rail that settled the payment meanwhile (the payment no longer
// waits at it) leaves it as it ended.
func (d *operatorDesk) cancel(ctx workflow.Context, c payment.Cancellation) (catalog.TransactionStatus, error) {
	d.cancelling = true
	err := d.steps.(Cancellable).CancelAtRail(ctx)
	d.cancelling = false
	if code, _ := permanent(err); err != nil && code != catalog.TransactionNotCancellable {
		workflow.GetLogger(ctx).Warn("the rail did not answer the cancellation", "error", err)
		err = coded(payment.NotCancellable("its rail did not confirm the cancellation; the payment goes on"))
	}
	if err != nil {
		return "", err
	}
	if !d.waiting {
		return "", coded(payment.NotCancellable("it settled before its rail cancelled it"))
	}
	return d.act(ctx, deskAction{end: payment.Cancelled(c)})
}

// atRail submits the payment to its rail and, when the rail says it is slow, waits
// slowDelay on a durable timer, taking actions meanwhile: a retry cancels the rail call
// under way (or ends the slow wait) and submits again; a failure or a cancellation cancels
// it and answers its outcome, for Finish to release the hold.
func (d *operatorDesk) atRail(ctx workflow.Context, slowDelay time.Duration) (sandbox.Outcome, error) {
	d.waiting = true
	defer func() { d.waiting = false }()
	for {
		outcome, answered, err := d.submit(ctx)
		if err != nil {
			return outcome, err
		}
		if !answered { // an action interrupted the rail call
			if a := d.take(); !a.retry {
				return a.end, nil
			}
			continue // retried: submit again
		}
		if !outcome.Slow {
			// An action that came as the rail answered is answered with how the payment
			// ends (done).
			return outcome, nil
		}
		workflow.GetLogger(ctx).Info("payment pending at the rail", "delay", slowDelay, "reason", outcome.PendingReason)
		if p, ok := d.steps.(PendingRecorder); ok && outcome.PendingReason != "" {
			if err := p.MarkPending(LocalStep(ctx), outcome.PendingReason); err != nil {
				return outcome, err
			}
		}
		if _, err := workflow.AwaitWithTimeout(ctx, slowDelay, func() bool { return d.pending != nil }); err != nil {
			return outcome, err
		}
		a := d.take()
		switch {
		case a == nil:
			return outcome, nil
		case !a.retry:
			return a.end, nil
		}
		// retried: submit again
	}
}

// submit runs the rail step until it answers (answered) or an operator acts; an action
// cancels the call under way, whose outcome is then of no use.
func (d *operatorDesk) submit(ctx workflow.Context) (outcome sandbox.Outcome, answered bool, err error) {
	railCtx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	done := false
	workflow.Go(railCtx, func(ctx workflow.Context) {
		outcome, err = d.steps.Submit(RailCall(ctx))
		done = true
	})
	if err := workflow.Await(ctx, func() bool { return done || d.pending != nil }); err != nil {
		return sandbox.Outcome{}, false, err
	}
	if done {
		return outcome, true, err
	}
	cancel()
	if err := workflow.Await(ctx, func() bool { return done }); err != nil {
		return sandbox.Outcome{}, false, err
	}
	return sandbox.Outcome{}, false, nil
}

// take hands over the pending action, if any. A retry is answered PROCESSING at once; an
// action that ends the payment once it finished (done).
func (d *operatorDesk) take() *deskAction {
	if d.pending == nil {
		return nil
	}
	a := d.pending
	d.pending = nil
	if a.retry {
		d.status, d.applied = catalog.TxProcessing, d.applied+1
	}
	return a
}

// done answers an action still waiting (a failure taken at the rail, or an action that
// came as the rail answered) with the status the payment ended with.
func (d *operatorDesk) done(final catalog.TransactionStatus) {
	d.pending, d.status, d.applied = nil, final, d.applied+1
}
