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
	"paycore/internal/problem"
	"paycore/internal/rail"
)

// UpdateDecide is the update that carries the platform's approve or reject call (an
// incoming.Decision) to a payment awaiting its decision, and answers with the
// Transaction as it ended.
const UpdateDecide = "decide"

// UpdateCollection is the update that answers a pay request from another UMA provider with
// the payment request (rail.PaymentRequest) its payer pays, once the platform approved the
// payment; a payment refused or failed before is the update's refusal.
const UpdateCollection = "collection"

// SignalCollected tells a payment collecting its money that its payment request was paid
// (the Lightning watcher sends it when the node settles the invoice); the workflow asks the
// rail before it believes it.
const SignalCollected = "collected"

// IncomingWorkflowID is the id of an incoming payment's workflow.
func IncomingWorkflowID(transactionID uuid.UUID) string {
	return "incoming/" + ids.Format(ids.Transaction, transactionID)
}

// IncomingPayment is a payment received over UMA, awaiting the receiving platform's
// decision: the Payment lifecycle with the incoming payment's steps, whose trigger is the
// decision and whose finish takes it (it has no rail).
//
// The API starts it with Update-with-Start: UpdateCreate persists the PENDING INCOMING
// transaction (a refusal ends it with nothing written). The sandbox's fail.compliance
// sender's payment fails at once; its pending.long sender's stays pending for SlowDelay.
// Then the platform is asked, synchronously, with its INCOMING_PAYMENT_PENDING webhook:
// its answer approves, rejects or fails the payment, or (202) leaves the decision to an
// approve or reject call (UpdateDecide) within ApprovalDeadline, after which the payment
// fails with PAYMENT_APPROVAL_TIMED_OUT. The finish credits an approved payment; nothing
// is credited otherwise. A decision call that comes when none is awaited is refused with
// TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL. It returns the decision the payment ended
// with.
//
// The counterpart of a payment between customers on this deployment (in.ForQuote) is
// started by the paying quote's workflow as a child: it creates the transaction at once,
// asks for the decision the same way, and returns it; the quote's finish then moves the
// money and ends both transactions together.
func IncomingPayment(ctx workflow.Context, in incoming.Request) (incoming.Decision, error) {
	s := &incomingSteps{in: in}
	// The decision is the outcome: no rail, so no rail's slow wait.
	if err := Payment[incoming.Decision](ctx, s, 0); err != nil {
		return incoming.Decision{}, err
	}
	return s.decision, nil
}

// incomingSteps are an incoming payment's steps of the payment lifecycle (PaymentSteps,
// Triggered, CreatedByParent), and its state between its creation and its finish.
type incomingSteps struct {
	in incoming.Request
	// created is what the create step answered: the Transaction, its approval event, and
	// what the service knows of the receiver.
	created activities.CreatedIncoming
	// stage follows the payment's state machine (incoming.Stage): the decide update's
	// rule (incoming.Call) reads it.
	stage incoming.Stage
	// decision is the payment's decision (the platform's, a sandbox sender's, or the
	// deadline's), and once finished the one it ended with.
	decision incoming.Decision
	// final is the Transaction as it ended, the decide update's answer.
	final json.RawMessage
	// request is the payment request a payment from another provider is collected by,
	// once made (the collection update's answer), and collected what the rail said of its
	// payment.
	request   *rail.PaymentRequest
	collected rail.Collected
}

// CreatedByParent: the counterpart of a quote's payment is created by the quote's workflow
// starting it.
func (s *incomingSteps) CreatedByParent() bool { return s.in.ForQuote.Valid }

// Create persists the PENDING incoming transaction and its approval event.
func (s *incomingSteps) Create(ctx workflow.Context) (json.RawMessage, error) {
	var a *activities.Activities
	c, err := result[activities.CreatedIncoming](ctx, workflow.ExecuteLocalActivity(ctx, a.CreateIncoming, s.in))
	s.created = c
	return c.Resource, err
}

// AwaitTrigger registers the decide update and waits for the payment's decision: a sandbox
// sender's, the platform's answer to its webhook, or (after a 202) its call or the
// deadline. The decision decides the outcome; the counterpart of a quote's payment does
// not proceed, since the quote's finish ends it.
func (s *incomingSteps) AwaitTrigger(ctx workflow.Context) (bool, *incoming.Decision, error) {
	err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateDecide, s.decide, workflow.UpdateHandlerOptions{Validator: s.validateDecide})
	if err != nil {
		return false, nil, err
	}
	if s.in.Collect != nil {
		if err := workflow.SetUpdateHandler(ctx, UpdateCollection, s.collection); err != nil {
			return false, nil, err
		}
	}
	switch s.in.Sender.Scenario {
	case incoming.ScenarioFailCompliance:
		s.decision, s.stage = incoming.ComplianceFailure(), incoming.StageDecided
	case incoming.ScenarioPendingLong:
		if err := workflow.Sleep(ctx, s.in.SlowDelay); err != nil {
			return false, nil, err
		}
	}
	if s.stage != incoming.StageDecided {
		var a *activities.Activities
		s.stage = incoming.StageAsking
		askCtx := OutboundCall(ctx, time.Second, 10*time.Second, 0, 5)
		s.decision, err = result[incoming.Decision](ctx, workflow.ExecuteActivity(askCtx, a.AskApproval, s.created.EventID, s.created.Receiver))
		if err != nil {
			// Asking failed for good (the attempts are in the event's log): the payment
			// fails rather than staying pending.
			s.decision = incoming.WebhookError(err.Error())
		}
	}
	s.stage = incoming.Answered(s.decision)
	if s.stage == incoming.StageAwaiting {
		if _, err := workflow.AwaitWithTimeout(ctx, s.in.ApprovalDeadline, func() bool { return s.stage == incoming.StageDecided }); err != nil {
			return false, nil, err
		}
		if next, d, ok := incoming.Timeout(s.stage); ok {
			s.decision, s.stage = d, next
		}
	}
	if s.in.Collect != nil {
		// Checked before any money comes: an approval lacking the receiver's details fails
		// the payment here, not once it is paid.
		s.decision = incoming.CheckPayee(s.decision, s.created.Receiver)
	}
	if incoming.Collects(s.in, s.decision) {
		if err := s.collect(ctx); err != nil {
			return false, nil, err
		}
	}
	if s.in.ForQuote.Valid {
		// The paying quote's finish ends the transaction; a decision call answers it as
		// it stands.
		s.final, s.stage = s.created.Resource, incoming.StageFinished
		return false, nil, nil
	}
	decided := s.decision
	return true, &decided, nil
}

// decide is the decide update. A call that comes while the platform is being asked waits
// for its answer (a 202 may be on its way); one that comes at another time takes the
// rule's answer (incoming.Call) at once. The handler applies the rule too: histories
// recorded before the validator replay their refusals here. A call taken answers with the
// Transaction once the payment is finished.
func (s *incomingSteps) decide(ctx workflow.Context, d incoming.Decision) (json.RawMessage, error) {
	next, wait, err := incoming.Call(s.stage)
	if wait {
		if err := workflow.Await(ctx, func() bool { return s.stage != incoming.StageAsking }); err != nil {
			return nil, err
		}
		next, _, err = incoming.Call(s.stage)
	}
	if err != nil {
		return nil, coded(err)
	}
	s.decision, s.stage = d, next
	if err := workflow.Await(ctx, func() bool { return s.stage == incoming.StageFinished }); err != nil {
		return nil, err
	}
	return s.final, nil
}

// validateDecide applies the decision call's rule (incoming.Call) before anything is
// recorded: a refusal is a coded application error, and the update is never accepted.
func (s *incomingSteps) validateDecide(_ workflow.Context, _ incoming.Decision) error {
	_, _, err := incoming.Call(s.stage)
	return coded(err)
}

// collection is the collection update: it waits until the payment request is made and
// answers it with what is said of the payee, or answers the refusal of a payment that will not collect (rejected, failed,
// or its request could not be made).
func (s *incomingSteps) collection(ctx workflow.Context) (incoming.Collecting, error) {
	if err := workflow.Await(ctx, func() bool {
		return s.request != nil || s.stage == incoming.StageFinished || (s.stage == incoming.StageDecided && !incoming.Collects(s.in, s.decision))
	}); err != nil {
		return incoming.Collecting{}, err
	}
	if s.request != nil {
		return incoming.Collecting{Request: *s.request, Receiver: s.decision.ReceiverInfo, Known: s.created.Receiver}, nil
	}
	d := s.decision
	return incoming.Collecting{}, coded(problem.Refuse(d.Code, "%s", d.Message).With(map[string]any{"failureReason": d.Reason, "status": d.Status}))
}

// collect collects the money of an approved payment from another provider: the rail's
// payment request (an invoice of the deployment's node; one that cannot be made in time
// fails the payment), then the payer's payment, reported by SignalCollected or found when
// the request expired, each confirmed by asking the rail. It leaves the payment Decided:
// approved with what the rail received, or failed unpaid.
func (s *incomingSteps) collect(ctx workflow.Context) error {
	var a *activities.Activities
	s.stage = incoming.StageCollecting
	makeCtx := OutboundCall(ctx, 500*time.Millisecond, 2*time.Second, 10*time.Second, 0)
	pr, err := result[rail.PaymentRequest](ctx, workflow.ExecuteActivity(makeCtx, a.CollectIncoming, s.in))
	if err != nil {
		s.decision, s.stage = incoming.NotCollectable(err.Error()), incoming.StageDecided
		return nil
	}
	s.request = &pr
	paid := workflow.GetSignalChannel(ctx, SignalCollected)
	for {
		wait := pr.ExpiresAt.Add(incoming.CollectGrace).Sub(workflow.Now(ctx))
		if wait < incoming.CollectGrace {
			wait = incoming.CollectGrace
		}
		timer, cancel := workflow.WithCancel(ctx)
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(workflow.NewTimer(timer, wait), func(workflow.Future) {})
		sel.AddReceive(paid, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) })
		sel.Select(ctx)
		cancel()
		c, err := result[rail.Collected](ctx, workflow.ExecuteActivity(RailCall(ctx), a.IncomingCollected, s.in, pr.Hash))
		if temporal.IsCanceledError(err) {
			return err
		}
		if err != nil {
			// Only a refusal ends the rail call (no rail collects for the platform any more:
			// its routes changed). Whether the payer paid is unknown, so the payment stays
			// PENDING with its workflow, asking again each CollectGrace until the rail is back.
			workflow.GetLogger(ctx).Error("the rail cannot say what became of the payment request; asking again", "error", err)
			continue
		}
		if d, ok := incoming.Collected(s.decision, c); ok {
			s.decision, s.stage, s.collected = d, incoming.StageDecided, c
			return nil
		}
	}
}

// Finish ends the payment with the decision: an approved one credited, any other with
// nothing credited.
func (s *incomingSteps) Finish(ctx workflow.Context, d incoming.Decision) (catalog.TransactionStatus, error) {
	var a *activities.Activities
	ended, err := result[activities.FinishedIncoming](ctx, workflow.ExecuteLocalActivity(ctx, a.FinishIncoming, s.in.TransactionID, d, s.created.Receiver))
	if err != nil {
		return "", err
	}
	s.decision, s.final, s.stage = d, ended.Resource, incoming.StageFinished
	return ended.Status, nil
}

// Aftermath: a payment collected from another UMA provider whose sender named a
// utxoCallback is reported to it once completed (UMAD-07: the channels that carried it),
// retried for an hour; a callback that fails for good is logged and changes nothing of the
// payment. Other incoming payments have no aftermath.
func (s *incomingSteps) Aftermath(ctx workflow.Context, _ incoming.Decision, final catalog.TransactionStatus) error {
	if s.in.Collect == nil || s.in.Collect.SenderCallback == "" || final != catalog.TxCompleted {
		return nil
	}
	var a *activities.Activities
	callCtx := OutboundCall(ctx, time.Second, time.Minute, time.Hour, 0, "BadCallback")
	if err := workflow.ExecuteActivity(callCtx, a.NotifyUmaSender, s.in, s.collected.Channels).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("the sender's post-transaction callback failed", "error", err)
	}
	return nil
}

// Unsettled: an incoming payment whose finish is refused for good fails, nothing credited.
func (s *incomingSteps) Unsettled(code catalog.Code) incoming.Decision {
	return incoming.Unsettled(code)
}
