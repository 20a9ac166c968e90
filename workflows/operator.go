package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"paycore/internal/catalog"
	"paycore/internal/operator"
	"paycore/internal/sandbox"
)

// UpdateOperator is the update an operator sends a payment that waits at its rail (its
// argument is an operator.Request): retry the rail step now, or fail the payment with a
// reason. It answers with the payment's status once the action took effect (PROCESSING
// after a retry's new submission, FAILED after a failure). The update is in the payment's
// history with the operator's name and reason.
const UpdateOperator = "operator"

// errNotAtRail rejects an operator action on a payment that does not wait at its rail
// (not there yet, finished, or one whose rail step cannot be interrupted).
var errNotAtRail = errors.New("the payment is not waiting at its rail")

// Interruptible is implemented by the steps of payments whose rail step an operator may
// only interrupt sometimes (a quote paying another customer of this deployment runs a
// child workflow that must finish on its own); steps that do not implement it always may.
type Interruptible interface {
	Interruptible() bool
}

// operatorDesk takes operator actions while a payment waits at its rail: during the rail
// call (an activity, retried without end) and during the rail's slow scenario.
type operatorDesk struct {
	steps RailSteps
	// waiting is set while the payment waits at its rail; pending is the action taken and
	// not yet carried out; status is the payment's status once it was.
	waiting bool
	pending *operator.Request
	applied int
	status  catalog.TransactionStatus
}

// newOperatorDesk registers the operator update on the payment's workflow.
func newOperatorDesk(ctx workflow.Context, steps RailSteps) (*operatorDesk, error) {
	d := &operatorDesk{steps: steps}
	err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateOperator, func(ctx workflow.Context, r operator.Request) (catalog.TransactionStatus, error) {
		d.pending = &r
		seen := d.applied
		if err := workflow.Await(ctx, func() bool { return d.applied > seen }); err != nil {
			return "", err
		}
		return d.status, nil
	}, workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, r operator.Request) error {
		if err := r.Check(); err != nil {
			return temporal.NewNonRetryableApplicationError(err.Error(), string(catalog.InvalidInput), nil)
		}
		if !d.waiting || d.pending != nil {
			return errNotAtRail
		}
		if i, ok := steps.(Interruptible); ok && !i.Interruptible() {
			return errNotAtRail
		}
		return nil
	}})
	return d, err
}

// atRail submits the payment to its rail and, when the rail says it is slow, waits
// slowDelay on a durable timer, taking operator actions meanwhile: a retry cancels the
// rail call under way (or ends the slow wait) and submits again; a failure cancels it and
// answers the failure's outcome, for Finish to release the hold.
func (d *operatorDesk) atRail(ctx workflow.Context, slowDelay time.Duration) (sandbox.Outcome, error) {
	d.waiting = true
	defer func() { d.waiting = false }()
	for {
		outcome, answered, err := d.submit(ctx)
		if err != nil {
			return outcome, err
		}
		if !answered { // an action interrupted the rail call
			if r := d.take(); r.Action == operator.Fail {
				return operator.FailOutcome(*r), nil
			}
			continue // retried: submit again
		}
		if !outcome.Slow {
			// An action that came as the rail answered is answered with how the payment
			// ends (done).
			return outcome, nil
		}
		workflow.GetLogger(ctx).Info("payment pending at the rail", "delay", slowDelay)
		if _, err := workflow.AwaitWithTimeout(ctx, slowDelay, func() bool { return d.pending != nil }); err != nil {
			return outcome, err
		}
		r := d.take()
		switch {
		case r == nil:
			return outcome, nil
		case r.Action == operator.Fail:
			return operator.FailOutcome(*r), nil
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

// take hands over the pending action, if any. A retry is answered PROCESSING at once; a
// failure once the payment finished (done).
func (d *operatorDesk) take() *operator.Request {
	if d.pending == nil {
		return nil
	}
	r := d.pending
	d.pending = nil
	if r.Action == operator.RetryRail {
		d.status, d.applied = catalog.TxProcessing, d.applied+1
	}
	return r
}

// done answers an action still waiting (a failure taken at the rail, or an action that
// came as the rail answered) with the status the payment ended with.
func (d *operatorDesk) done(final catalog.TransactionStatus) {
	d.pending, d.status, d.applied = nil, final, d.applied+1
}
