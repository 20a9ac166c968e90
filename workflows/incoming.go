package workflows

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/ids"
	"paycore/internal/incoming"
)

// UpdateDecide is the update that carries the platform's approve or reject call (an
// incoming.Decision) to a payment awaiting its decision, and answers with the
// Transaction as it ended.
const UpdateDecide = "decide"

// IncomingWorkflowID is the id of an incoming payment's workflow.
func IncomingWorkflowID(transactionID uuid.UUID) string {
	return "incoming/" + ids.Format(ids.Transaction, transactionID)
}

// IncomingPayment is a payment received over UMA, awaiting the receiving platform's
// decision.
//
// The API starts it with Update-with-Start: UpdateCreate persists the PENDING INCOMING
// transaction (a refusal ends it with nothing written). The sandbox's fail.compliance
// sender's payment fails at once; its pending.long sender's stays pending for SlowDelay.
// Then the platform is asked, synchronously, with its INCOMING_PAYMENT_PENDING webhook:
// its answer approves, rejects or fails the payment, or (202) leaves the decision to an
// approve or reject call (UpdateDecide) within ApprovalDeadline, after which the payment
// fails with PAYMENT_APPROVAL_TIMED_OUT. The finish credits an approved payment; nothing
// is credited otherwise. A decision call that comes when none is awaited is refused with
// TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL.
//
// The counterpart of a payment between customers on this deployment (in.ForQuote) is
// started by the paying quote's workflow as a child: it creates the transaction at once,
// asks for the decision the same way, and returns it; the quote's finish then moves the
// money and ends both transactions together.
func IncomingPayment(ctx workflow.Context, in incoming.Request) (incoming.Decision, error) {
	var created activities.CreatedIncoming
	create := func(ctx workflow.Context) (json.RawMessage, error) {
		var a *activities.Activities
		c, err := result[activities.CreatedIncoming](ctx, workflow.ExecuteLocalActivity(ctx, a.CreateIncoming, in))
		created = c
		return c.Resource, err
	}
	if in.ForQuote.Valid {
		if _, err := create(LocalStep(ctx)); err != nil {
			return incoming.Decision{}, err
		}
	} else if ok, err := awaitCreate(ctx, create); err != nil || !ok {
		return incoming.Decision{}, err
	}

	// The payment's stage follows its state machine (incoming.Stage); the decision call's
	// rule is incoming.Call, applied by the validator (a refusal is a coded application
	// error, and the update is never accepted) and again by the handler once it runs.
	stage := incoming.StageCreated
	var decision incoming.Decision
	var final json.RawMessage
	err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateDecide, func(ctx workflow.Context, d incoming.Decision) (json.RawMessage, error) {
		// A call that comes while the platform is being asked waits for its answer (a 202
		// may be on its way); one that comes at another time takes the rule's answer at
		// once. The handler applies the rule too: histories recorded before the validator
		// replay their refusals here.
		next, wait, err := incoming.Call(stage)
		if wait {
			if err := workflow.Await(ctx, func() bool { return stage != incoming.StageAsking }); err != nil {
				return nil, err
			}
			next, _, err = incoming.Call(stage)
		}
		if err != nil {
			return nil, coded(err)
		}
		decision, stage = d, next
		if err := workflow.Await(ctx, func() bool { return stage == incoming.StageFinished }); err != nil {
			return nil, err
		}
		return final, nil
	}, workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, _ incoming.Decision) error {
		_, _, err := incoming.Call(stage)
		return coded(err)
	}})
	if err != nil {
		return incoming.Decision{}, err
	}

	switch in.Sender.Scenario {
	case incoming.ScenarioFailCompliance:
		decision, stage = incoming.ComplianceFailure(), incoming.StageDecided
	case incoming.ScenarioPendingLong:
		if err := workflow.Sleep(ctx, in.SlowDelay); err != nil {
			return incoming.Decision{}, err
		}
	}
	if stage != incoming.StageDecided {
		var a *activities.Activities
		stage = incoming.StageAsking
		askCtx := OutboundCall(ctx, time.Second, 10*time.Second, 0, 5)
		decision, err = result[incoming.Decision](ctx, workflow.ExecuteActivity(askCtx, a.AskApproval, created.EventID, created.Receiver))
		if err != nil {
			// Asking failed for good (the attempts are in the event's log): the payment
			// fails rather than staying pending.
			decision = incoming.WebhookError(err.Error())
		}
	}
	stage = incoming.Answered(decision)
	if stage == incoming.StageAwaiting {
		if _, err := workflow.AwaitWithTimeout(ctx, in.ApprovalDeadline, func() bool { return stage == incoming.StageDecided }); err != nil {
			return incoming.Decision{}, err
		}
		if next, d, ok := incoming.Timeout(stage); ok {
			decision, stage = d, next
		}
	}
	if in.ForQuote.Valid {
		// The paying quote's finish ends the transaction; a decision call answers it as
		// it stands.
		final, stage = created.Resource, incoming.StageFinished
		return decision, allHandlersFinished(ctx)
	}
	finish := func(ctx workflow.Context, d incoming.Decision) (activities.FinishedIncoming, error) {
		var a *activities.Activities
		return result[activities.FinishedIncoming](ctx, workflow.ExecuteLocalActivity(ctx, a.FinishIncoming, in.TransactionID, d, created.Receiver))
	}
	decision, ended, err := finishOrFail(ctx, finish, decision, incoming.Unsettled)
	if err != nil {
		return incoming.Decision{}, err
	}
	final, stage = ended.Resource, incoming.StageFinished
	setStatus(ctx, ended.Status)
	return decision, allHandlersFinished(ctx)
}
