package workflows

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/quote"
	"paycore/internal/sandbox"
)

// UpdateExecute is the update that executes a quote and answers the API request with the
// Quote as executed. Its argument is a quote.Execution.
const UpdateExecute = "execute"

// UpdateFund is the update that records the deposit for a REALTIME_FUNDING quote (its
// argument is a quote.Deposit) and answers with the Transaction.
const UpdateFund = "fund"

// QuoteWorkflowID is the id of a quote's workflow: one per quote, so a quote can be
// created once and executed once.
func QuoteWorkflowID(quoteID uuid.UUID) string {
	return "quote/" + ids.Format(ids.Quote, quoteID)
}

// QuoteSearchAttributes are the search attributes a quote's workflow starts with: those of
// its payment and the quote's id.
func QuoteSearchAttributes(r quote.Request) temporal.SearchAttributes {
	attrs := []temporal.SearchAttributeUpdate{
		AttrPlatformID.ValueSet(ids.Format(ids.Platform, r.PlatformID)),
		AttrTransactionID.ValueSet(ids.Format(ids.Transaction, r.TransactionID)),
		AttrQuoteID.ValueSet(ids.Format(ids.Quote, r.QuoteID)),
		AttrTransactionStatus.ValueSet(string(catalog.TxPending)),
	}
	if r.CustomerID.Valid {
		attrs = append(attrs, AttrCustomerID.ValueSet(ids.Format(ids.Customer, r.CustomerID.UUID)))
	}
	return temporal.NewSearchAttributes(attrs...)
}

// Quote is the life of a quote and of the payment it makes: the Payment lifecycle with
// the quote's steps.
//
// The API starts it with Update-with-Start: UpdateCreate prices and persists the quote
// with its PENDING transaction (a refusal ends the workflow with nothing written). The
// quote then waits, on a durable timer, until it expires or an UpdateExecute holds its
// sending amount (an execution refused, e.g. for want of funds, leaves it pending); an
// immediatelyExecute quote is executed right after its creation. Unexecuted at expiry it
// becomes EXPIRED (QUOTE_EXPIRED). Executed, it follows the payment lifecycle (the rail,
// the slow scenario's wait, the finish that converts the money or releases it), then its
// aftermath: a payment the receiving bank returns is failed and refunded after
// ReturnDelay, and a failed payment whose money was taken is refunded.
func Quote(ctx workflow.Context, in quote.Request) error {
	return Payment[sandbox.Outcome](ctx, &quoteSteps{in: in}, in.SlowDelay)
}

// AwaitTrigger registers the execute (and, for a REALTIME_FUNDING quote, the fund) update,
// executes an immediatelyExecute quote, and waits for the execution or the expiry. An
// expired quote does not proceed (a REALTIME_FUNDING one first waits LateDepositWindow for
// a deposit to send back); a deposit that does not match the total decides the outcome.
func (s *quoteSteps) AwaitTrigger(ctx workflow.Context) (bool, *sandbox.Outcome, error) {
	err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateExecute, s.execute, workflow.UpdateHandlerOptions{Validator: s.validateExecute})
	if err != nil {
		return false, nil, err
	}
	if s.in.Source.Kind == quote.SourceRealtimeFunding {
		if err := workflow.SetUpdateHandler(ctx, UpdateFund, s.fund); err != nil {
			return false, nil, err
		}
	}
	if s.in.ImmediatelyExecute {
		// A refusal here (funds spent since the quote was priced) leaves it pending.
		_, _ = s.execute(ctx, quote.Execution{Key: ImmediateExecution})
	}
	if err := s.awaitExecution(ctx); err != nil {
		return false, nil, err
	}
	if !s.executed {
		setStatus(ctx, catalog.TxExpired)
		if s.in.Source.Kind == quote.SourceRealtimeFunding {
			// A deposit may still arrive; it is sent back (the first one: the quote then
			// takes no other).
			if _, err := workflow.AwaitWithTimeout(ctx, s.in.LateDepositWindow, func() bool { return s.late }); err != nil {
				return false, nil, err
			}
		}
		return false, nil, nil
	}
	if s.mismatch {
		out := sandbox.MismatchedDeposit()
		return true, &out, nil
	}
	return true, nil, nil
}

// ImmediateExecution is the execution key of a quote created with immediatelyExecute.
const ImmediateExecution = "immediatelyExecute"

// quoteSteps are a quote's steps of the payment lifecycle (PaymentSteps, RailSteps, Triggered,
// Aftermath), and its state while it waits to be executed.
type quoteSteps struct {
	in        quote.Request
	rail      quote.Rail
	expiresAt time.Time
	// inFlight counts the execute and fund updates running: the expiry waits for all of
	// them (one may commit the execution just before the quote expires).
	inFlight int
	// executed: an execution or a deposit started the payment; expired: the timer fired
	// with none, and the quote takes no more execution.
	executed, expired bool
	// executeKey is the key of the request whose execution this workflow recorded ("" until
	// then).
	executeKey string
	// mismatch: the deposit that executed the quote differs from its total (the payment
	// fails); late: a deposit came after expiry and was sent back.
	mismatch, late bool
}

// execute is the execute update: the database's state machine decides under the quote's
// lock (see db.QuoteExecute) and its refusal is the update's answer.
func (s *quoteSteps) execute(ctx workflow.Context, e quote.Execution) (json.RawMessage, error) {
	s.inFlight++
	defer func() { s.inFlight-- }()
	r, err := result[json.RawMessage](ctx, workflow.ExecuteLocalActivity(LocalStep(ctx), activities.ExecuteQuoteActivity, s.in.QuoteID, e))
	if err == nil {
		s.executed = true
		if s.executeKey == "" {
			s.executeKey = e.Key
		}
	}
	return r, err
}

// validateExecute refuses, before anything is recorded in the history, what the workflow
// already knows the state machine refuses: any execution of a REALTIME_FUNDING quote (its
// deposit executes it), an execution by another request once one executed the quote, and
// any execution once the timer has fired with none (the expiry is under way). The refusal
// is the machine's, as a coded application error the API answers as it is. Everything else
// is decided by the machine under the quote's lock (db.QuoteExecute).
func (s *quoteSteps) validateExecute(_ workflow.Context, e quote.Execution) error {
	known := quote.State{Source: s.in.Source.Kind, Status: catalog.TxPending, ExpiresAt: s.expiresAt, ExecuteKey: s.executeKey}
	if known.Source != quote.SourceRealtimeFunding {
		known.Source = quote.SourceAccount
	}
	if !s.expired {
		// The zero time leaves the expiry to the lock: only the timer judges it here.
		_, err := known.Execute(e.Key, time.Time{}, true)
		return coded(err)
	}
	if _, err := known.Execute(e.Key, s.expiresAt, true); err != nil {
		return coded(err)
	}
	return coded(quote.ErrExpired())
}

// fund is the fund update: a deposit executes a REALTIME_FUNDING quote; one that differs
// from the quote's total fails it, and one after expiry is sent back.
func (s *quoteSteps) fund(ctx workflow.Context, deposit quote.Deposit) (json.RawMessage, error) {
	s.inFlight++
	defer func() { s.inFlight-- }()
	var a *activities.Activities
	f, err := result[activities.FundedQuote](ctx, workflow.ExecuteLocalActivity(LocalStep(ctx), a.FundQuote, s.in.QuoteID, deposit))
	if err != nil {
		return nil, err
	}
	if f.Late {
		s.late = true
	} else {
		s.executed, s.mismatch = true, !f.Matches
	}
	return f.Resource, nil
}

// awaitExecution waits, on the durable timer, until the quote expires or is executed. An
// execution under way when it expires decides (the database refuses it if it came too
// late); then a quote still unexecuted is expired, unless the database finds it executed
// after all.
func (s *quoteSteps) awaitExecution(ctx workflow.Context) error {
	wait := s.expiresAt.Sub(workflow.Now(ctx))
	if _, err := workflow.AwaitWithTimeout(ctx, wait, func() bool { return s.executed }); err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return s.inFlight == 0 }); err != nil {
		return err
	}
	if s.executed {
		return nil
	}
	s.expired = true
	var a *activities.Activities
	st, err := result[activities.QuoteState](ctx, workflow.ExecuteLocalActivity(LocalStep(ctx), a.ExpireQuote, s.in.QuoteID))
	if err != nil {
		return err
	}
	s.executed, s.mismatch = st.Executed, st.Mismatch
	return nil
}

// Create prices and persists the quote with its PENDING transaction.
func (s *quoteSteps) Create(ctx workflow.Context) (json.RawMessage, error) {
	var a *activities.Activities
	created, err := result[activities.CreatedQuote](ctx, workflow.ExecuteLocalActivity(ctx, a.CreateQuote, s.in))
	s.rail, s.expiresAt = created.Rail, created.ExpiresAt
	return created.Resource, err
}

// MarkProcessing: the execution moved the payment to PROCESSING with its hold.
func (s *quoteSteps) MarkProcessing(workflow.Context) (catalog.TransactionStatus, error) {
	return catalog.TxProcessing, nil
}

// Interruptible: an operator may interrupt the rail call of a quote paid out through a
// rail, not one paying another customer of this deployment (its child IncomingPayment
// workflow decides how both sides end).
func (s *quoteSteps) Interruptible() bool { return s.rail.Counterpart == nil }

// MarkPending records why the quote's payout waits at its rail.
func (s *quoteSteps) MarkPending(ctx workflow.Context, reason string) error {
	var a *activities.Activities
	return workflow.ExecuteLocalActivity(ctx, a.MarkPaymentPending, s.in.TransactionID, reason).Get(ctx, nil)
}

// CancelAtRail asks the rail paying the quote out to cancel the payout.
func (s *quoteSteps) CancelAtRail(ctx workflow.Context) error {
	var a *activities.Activities
	return workflow.ExecuteActivity(CancelCall(ctx), a.CancelQuote, s.rail).Get(ctx, nil)
}

func (s *quoteSteps) Submit(ctx workflow.Context) (sandbox.Outcome, error) {
	if cp := s.rail.Counterpart; cp != nil {
		return s.counterpart(ctx, cp)
	}
	var a *activities.Activities
	return result[sandbox.Outcome](ctx, workflow.ExecuteActivity(ctx, a.SubmitQuote, s.rail))
}

// counterpart pays a customer on this deployment: its platform decides on the incoming
// payment (a child IncomingPayment workflow) before any money moves. Approved, the payment
// completes; otherwise it fails with the hold released, and the receiving side ends as its
// platform decided. A counterpart that could not be made (the receiving platform refused
// it) fails the payment the same way.
func (s *quoteSteps) counterpart(ctx workflow.Context, cp *quote.Counterpart) (sandbox.Outcome, error) {
	req := incoming.Request{TransactionID: cp.TransactionID, PlatformID: cp.PlatformID, ReceiverCustomer: ids.Some(cp.CustomerID),
		CustomerID: ids.Some(cp.CustomerID), Sender: incoming.Counterparty{Address: cp.SenderUma, Currency: cp.Currency, DisplayName: cp.SenderName},
		Currency: cp.Currency, Amount: cp.Amount, ApprovalDeadline: s.in.ApprovalDeadline, ForQuote: ids.Some(s.in.TransactionID)}
	child := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: IncomingWorkflowID(cp.TransactionID),
		TypedSearchAttributes: PaymentSearchAttributes(cp.PlatformID, cp.TransactionID, uuid.NullUUID{UUID: cp.CustomerID, Valid: true})})
	d, err := result[incoming.Decision](ctx, workflow.ExecuteChildWorkflow(child, IncomingPayment, req))
	var out sandbox.Outcome
	switch {
	case err != nil:
		out = sandbox.Outcome{Status: catalog.TxFailed, Code: catalog.FailRejectedByPlatform, Message: "the receiving platform did not take the payment: " + err.Error(),
			FailureReason: sandbox.ReasonQuoteExecutionFailed}
	case d.Approved:
		return sandbox.Outcome{Status: catalog.TxCompleted}, nil
	default:
		out = sandbox.Outcome{Status: catalog.TxFailed, Code: d.Code, Message: d.Message, FailureReason: sandbox.ReasonQuoteExecutionFailed,
			CounterpartStatus: d.Status, CounterpartReason: d.Reason}
	}
	if s.rail.Deposit {
		out.Refund = sandbox.RefundTransactionFailed // a deposit goes back to the payer
	}
	return out, nil
}

func (s *quoteSteps) Finish(ctx workflow.Context, out sandbox.Outcome) (catalog.TransactionStatus, error) {
	var a *activities.Activities
	return result[catalog.TransactionStatus](ctx, workflow.ExecuteLocalActivity(ctx, a.FinishQuote, s.in.TransactionID, out))
}

// Unsettled: a quote's payment whose finish is refused for good fails with its hold
// released.
func (s *quoteSteps) Unsettled(code catalog.Code) sandbox.Outcome { return sandbox.Unsettled(code) }

// Aftermath is what follows a quote's finish: the receiving bank's return of a completed
// payment (after ReturnDelay on a durable timer), the refund of a failed payment whose
// money was taken, and the post-transaction callback of a completed payment to a UMA
// receiver elsewhere whose provider asked for one.
func (s *quoteSteps) Aftermath(ctx workflow.Context, out sandbox.Outcome, final catalog.TransactionStatus) error {
	var a *activities.Activities
	local := LocalStep(ctx)
	refund := out
	switch {
	case final == catalog.TxCompleted && out.Returned:
		if err := workflow.Sleep(ctx, s.in.ReturnDelay); err != nil {
			return err
		}
		refund = sandbox.ReturnedOutcome()
		status, err := result[catalog.TransactionStatus](ctx, workflow.ExecuteLocalActivity(local, a.ReturnQuote, s.in.TransactionID, refund))
		if err != nil {
			return err
		}
		setStatus(ctx, status)
	case final == catalog.TxFailed && out.Refund != "":
	case final == catalog.TxCompleted && s.rail.Callback != "":
		// Tell the receiver's provider which channels carried the payment (UMAD-07); a
		// callback that fails for good changes nothing of the payment.
		callCtx := OutboundCall(ctx, time.Second, time.Minute, time.Hour, 0, "BadCallback")
		if err := workflow.ExecuteActivity(callCtx, a.NotifyUmaReceiver, s.rail, out.PaymentHash).Get(ctx, nil); err != nil {
			workflow.GetLogger(ctx).Warn("the receiver's post-transaction callback failed", "error", err)
		}
		return nil
	default:
		return nil
	}
	return workflow.ExecuteLocalActivity(local, a.RefundQuote, s.in.TransactionID, refund).Get(ctx, nil)
}
