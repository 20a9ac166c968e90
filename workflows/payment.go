package workflows

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/quote"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

// UpdateCreate is the update that creates a payment and answers the API request with the
// created resource.
const UpdateCreate = "create"

// PaymentSteps are what one kind of payment does at each stage of the Payment lifecycle,
// O being what its finish takes: the rail's sandbox.Outcome for payments a rail settles
// (transfers, quotes), the receiving platform's incoming.Decision for an incoming payment.
// Each step runs its activity with the context it is given: Create and Finish get the
// LocalStep preset (database steps, local activities).
type PaymentSteps[O any] interface {
	// Create checks and persists the payment (the transaction row, any hold, the PENDING
	// event) and returns the resource the API answers with. An error refuses the payment:
	// nothing is written and the workflow ends.
	Create(ctx workflow.Context) (json.RawMessage, error)
	// Finish ends the payment with out (its postings, or the hold released) and returns
	// the status it ended with.
	Finish(ctx workflow.Context, out O) (catalog.TransactionStatus, error)
	// Unsettled is what the payment ends with when its finish is refused for good with
	// code: FAILED, its hold released, nothing credited (see finishOrFail).
	Unsettled(code catalog.Code) O
}

// RailSteps are the steps of a payment its rail settles once it is created (and
// triggered): transfers and quotes. MarkProcessing runs with the LocalStep preset, Submit
// with the RailCall preset (the outside world, a regular activity). Steps whose trigger
// always decides the outcome (an incoming payment: its platform's decision) have no rail.
type RailSteps interface {
	// MarkProcessing moves the payment to PROCESSING and returns its status afterwards,
	// another one when an earlier run already finished it.
	MarkProcessing(ctx workflow.Context) (catalog.TransactionStatus, error)
	// Submit hands the payment to its rail and returns how the rail ends it.
	Submit(ctx workflow.Context) (sandbox.Outcome, error)
	// Finish settles the payment with the rail's outcome (see PaymentSteps).
	Finish(ctx workflow.Context, out sandbox.Outcome) (catalog.TransactionStatus, error)
}

// CreatedByParent is implemented by the steps of payments a parent workflow may start
// (the counterpart of a quote paying another customer of this deployment): when
// CreatedByParent is true, Create runs as the workflow starts, not in an UpdateCreate
// update, and its refusal fails the workflow for the parent to see.
type CreatedByParent interface {
	CreatedByParent() bool
}

// Triggered are the steps of a payment that waits, once created, for what starts it (a
// quote: its execution, its deposit, or its expiry; an incoming payment: its platform's
// decision).
type Triggered[O any] interface {
	// AwaitTrigger waits for the payment to be started. proceed is false when it is not
	// finished here (it ended without moving: an expired quote; or another workflow's
	// finish ends it: an incoming payment from a customer of this deployment, which its
	// paying quote finishes); decided, when set, is the outcome the payment ends with
	// without its rail (a deposit that does not match the quote's total, the decision on
	// an incoming payment).
	AwaitTrigger(ctx workflow.Context) (proceed bool, decided *O, err error)
}

// Aftermath are the steps of a payment that has more to do once finished (a quote: the
// receiving bank's return of a completed payout, the refund of a failed one whose money
// was taken).
type Aftermath[O any] interface {
	// Aftermath runs after the finish, with the outcome the payment ended with and its
	// status ("" for both when an earlier run had finished it).
	Aftermath(ctx workflow.Context, out O, final catalog.TransactionStatus) error
}

// errNoRail fails the workflow of a payment whose trigger proceeded without deciding its
// outcome and whose steps have no rail to settle it: a step set that cannot happen.
var errNoRail = errors.New("the payment proceeded without a decided outcome and has no rail")

// Payment is the one lifecycle every payment follows, filled with the steps of its kind:
// create → await its trigger (Triggered steps only) → PROCESSING → the rail → the slow
// scenario's durable wait → finish (RailSteps only; a trigger may decide the outcome
// instead) → aftermath (Aftermath steps only).
//
// The API starts it with Update-with-Start: the UpdateCreate update runs Create, which
// persists the payment (and the hold on the funds of money going out) in one database
// transaction, and answers the request with the resource; a refused creation ends the
// workflow with nothing written. A payment its parent workflow starts (CreatedByParent)
// is created at once instead. A payment with a trigger waits for it (a quote for its
// execution, guarded by the quote's state machine; an incoming payment for its platform's
// decision). The workflow then marks the payment PROCESSING, submits it to the rail, waits
// slowDelay on a durable timer when the rail says the payment is slow (the sandbox's slow
// scenario), and finishes it: COMPLETED with its ledger postings, or FAILED with the hold
// released; then its aftermath. Every step is idempotent, and the TransactionStatus search
// attribute follows the status so operators can find stuck payments. Updates taken
// meanwhile (an operator's action at the rail, a repeated execution, a platform's
// decision) get their answer before the workflow ends.
func Payment[O any](ctx workflow.Context, steps PaymentSteps[O], slowDelay time.Duration) error {
	if p, ok := steps.(CreatedByParent); ok && p.CreatedByParent() {
		if _, err := steps.Create(LocalStep(ctx)); err != nil {
			return err
		}
	} else if ok, err := awaitCreate(ctx, steps.Create); err != nil || !ok {
		return err
	}
	var decided *O
	if t, ok := steps.(Triggered[O]); ok {
		proceed, d, err := t.AwaitTrigger(ctx)
		if err != nil {
			return err
		}
		if !proceed {
			return allHandlersFinished(ctx)
		}
		decided = d
	}
	var out O
	var final catalog.TransactionStatus
	var err error
	if decided != nil {
		if out, final, err = finishOrFail(ctx, steps.Finish, *decided, steps.Unsettled); err != nil {
			return err
		}
		setStatus(ctx, final)
	} else {
		// RailSteps' Finish takes a sandbox.Outcome: steps that implement it are
		// PaymentSteps[sandbox.Outcome], so the rail's outcome is an O.
		rail, ok := any(steps).(RailSteps)
		if !ok {
			return errNoRail
		}
		var railed sandbox.Outcome
		if railed, final, err = settle(ctx, rail, slowDelay); err != nil {
			return err
		}
		out = any(railed).(O)
	}
	if a, ok := steps.(Aftermath[O]); ok {
		if err := a.Aftermath(ctx, out, final); err != nil {
			return err
		}
	}
	return allHandlersFinished(ctx)
}

// allHandlersFinished waits until every update the workflow took has been answered.
func allHandlersFinished(ctx workflow.Context) error {
	return workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
}

// awaitCreate registers the UpdateCreate handler, which runs create (with the LocalStep
// preset) once and answers every create request with its resource, and waits until it has
// run: true when it created the payment, false when it refused it. A create request that
// arrives after the refusal, while the workflow ends, is rejected with the same refusal
// (createRefusal), its code included.
func awaitCreate(ctx workflow.Context, create func(workflow.Context) (json.RawMessage, error)) (bool, error) {
	created := false
	var refusal error
	var resource json.RawMessage
	err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateCreate,
		func(ctx workflow.Context) (json.RawMessage, error) {
			if created {
				return resource, nil
			}
			r, err := create(LocalStep(ctx))
			if err != nil {
				refusal = createRefusal(err)
				return nil, err
			}
			resource, created = r, true
			return resource, nil
		},
		workflow.UpdateHandlerOptions{Validator: func(workflow.Context) error { return refusal }})
	if err != nil {
		return false, err
	}
	if err := workflow.Await(ctx, func() bool { return created || refusal != nil }); err != nil {
		return false, err
	}
	return created, nil
}

// createRefusal is what a create request is rejected with once the payment's creation was
// refused with err: the step's coded application error (the refusal's code and its
// problem.Wire, which the API answers as it is), else err itself.
func createRefusal(err error) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app
	}
	return err
}

// settle runs the rail steps of a created payment: PROCESSING, the rail, the slow
// scenario's durable wait, and the finish. It returns the rail's outcome and the status
// the payment ended with ("" for either when an earlier run had finished it).
func settle(ctx workflow.Context, steps RailSteps, slowDelay time.Duration) (sandbox.Outcome, catalog.TransactionStatus, error) {
	status, err := steps.MarkProcessing(LocalStep(ctx))
	if err != nil {
		// Refused for good: the payment ends FAILED, its hold released, without its rail.
		code, ok := permanent(err)
		if !ok || !failsUnsettled(ctx) {
			return sandbox.Outcome{}, "", err
		}
		out, final, err := finishOrFail(ctx, steps.Finish, sandbox.Unsettled(code), sandbox.Unsettled)
		if err == nil {
			setStatus(ctx, final)
		}
		return out, final, err
	}
	setStatus(ctx, status)
	if status != catalog.TxProcessing {
		return sandbox.Outcome{}, "", nil // finished by an earlier run
	}
	desk, err := newOperatorDesk(ctx, steps)
	if err != nil {
		return sandbox.Outcome{}, "", err
	}
	outcome, err := desk.atRail(ctx, slowDelay)
	if err != nil {
		// A rail that refused the payment for good ends it FAILED like a rail answering so.
		code, ok := permanent(err)
		if !ok || !failsUnsettled(ctx) {
			return outcome, "", err
		}
		outcome = sandbox.Unsettled(code)
	}
	if outcome.PaymentHash != "" { // a Lightning payment: operators find it by its hash
		_ = workflow.UpsertTypedSearchAttributes(ctx, AttrPaymentHash.ValueSet(outcome.PaymentHash))
	}
	// Finish answers with the status the payment ended with (a transfer in to an account
	// closed meanwhile fails whatever the rail said). Histories recorded before it answered
	// carry no result; their status is the outcome's, as it was then, so replaying them
	// issues the same search-attribute upsert.
	outcome, final, err := finishOrFail(ctx, steps.Finish, outcome, sandbox.Unsettled)
	if err != nil {
		return outcome, "", err
	}
	if final == "" {
		final = outcome.Status
	}
	setStatus(ctx, final)
	desk.done(final)
	return outcome, final, nil
}

// versionFailUnsettled gates ending a payment FAILED, its hold released, when a step
// after its creation is refused for good, instead of failing the workflow. It is asked
// only on that path, so histories that never took it replay unchanged, and one that ended
// its workflow there replays as it was recorded.
const versionFailUnsettled = "fail-unsettled-payment"

// failsUnsettled reports whether this run ends an unsettleable payment FAILED (see
// versionFailUnsettled).
func failsUnsettled(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, versionFailUnsettled, workflow.DefaultVersion, 1) != workflow.DefaultVersion
}

// permanent reports whether err is a step's refusal for good (a non-retryable application
// error; LocalStep and RailCall retry every other error without end) and its type, the
// payment failure code for a finish the ledger refused (see activities.unsettled).
func permanent(err error) (catalog.Code, bool) {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() {
		return "", false
	}
	return catalog.Code(app.Type()), true
}

// unsettledRetryMax bounds the wait between attempts to fail a payment whose failing is
// itself refused.
const unsettledRetryMax = time.Hour

// finishOrFail is where every payment ends, in one place: it runs finish with out and,
// when the finish is refused for good (the ledger cannot credit the receiver: its account
// was closed meanwhile, see activities.unsettled), runs it again with failed(code), which
// ends the payment FAILED with its hold released, nothing credited, and the usual events,
// rather than failing the workflow and leaving the payment PROCESSING with its money held
// and nothing left to finish it. Should failing it be refused too, it tries again on a
// durable timer for as long as it takes: the workflow stays running and the payment shows
// in `paycore payments stuck`. It returns the outcome the payment ended with and the
// finish's answer.
func finishOrFail[O, R any](ctx workflow.Context, finish func(workflow.Context, O) (R, error), out O, failed func(catalog.Code) O) (O, R, error) {
	r, err := finish(LocalStep(ctx), out)
	code, ok := permanent(err)
	if err == nil || !ok || !failsUnsettled(ctx) {
		return out, r, err
	}
	out = failed(code)
	wait := time.Minute
	for {
		workflow.GetLogger(ctx).Warn("the payment could not be settled; failing it", "error", err)
		if r, err = finish(LocalStep(ctx), out); err == nil {
			return out, r, nil
		}
		if _, ok := permanent(err); !ok {
			return out, r, err
		}
		if err := workflow.Sleep(ctx, wait); err != nil {
			return out, r, err
		}
		wait = min(2*wait, unsettledRetryMax)
	}
}

// PaymentWorkflowID is the id of the workflow of a transaction of kind (its quote's for a
// QUOTE payment); ok is false for kinds no workflow runs (sandbox funding).
func PaymentWorkflowID(kind string, transactionID uuid.UUID, quoteID uuid.NullUUID) (id string, ok bool) {
	switch {
	case kind == string(transfer.Out) || kind == string(transfer.In):
		return TransferWorkflowID(transfer.Kind(kind), transactionID), true
	case kind == quote.Kind && quoteID.Valid:
		return QuoteWorkflowID(quoteID.UUID), true
	case kind == incoming.Kind:
		return IncomingWorkflowID(transactionID), true
	}
	return "", false
}

// PaymentSearchAttributes are the search attributes a payment's workflow starts with:
// its platform, transaction and customer (none for the platform's own accounts), and the
// status PENDING, which the skeleton then keeps up to date.
func PaymentSearchAttributes(platformID, transactionID uuid.UUID, customerID uuid.NullUUID) temporal.SearchAttributes {
	attrs := []temporal.SearchAttributeUpdate{
		AttrPlatformID.ValueSet(ids.Format(ids.Platform, platformID)),
		AttrTransactionID.ValueSet(ids.Format(ids.Transaction, transactionID)),
		AttrTransactionStatus.ValueSet(string(catalog.TxPending)),
	}
	if customerID.Valid {
		attrs = append(attrs, AttrCustomerID.ValueSet(ids.Format(ids.Customer, customerID.UUID)))
	}
	return temporal.NewSearchAttributes(attrs...)
}

func setStatus(ctx workflow.Context, status catalog.TransactionStatus) {
	_ = workflow.UpsertTypedSearchAttributes(ctx, AttrTransactionStatus.ValueSet(string(status)))
}

// result waits for an activity's result of type T.
func result[T any](ctx workflow.Context, f workflow.Future) (T, error) {
	var v T
	err := f.Get(ctx, &v)
	return v, err
}
