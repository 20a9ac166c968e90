package workflows

import (
	"encoding/json"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/agent"
	"paycore/internal/ids"
)

// AgentActionWorkflowID is the id of an agent action's workflow: one per action, or, for
// a request with an Idempotency-Key, one per key (keyHash, hex, already scoped to the
// agent), so that a repeated request joins the action the first one made.
func AgentActionWorkflowID(actionID uuid.UUID, keyHash string) string {
	if keyHash != "" {
		return "agent-action/key/" + keyHash
	}
	return "agent-action/" + ids.Format(ids.AgentAction, actionID)
}

// AgentActionSearchAttributes are the search attributes an agent action's workflow starts
// with: its platform.
func AgentActionSearchAttributes(platformID uuid.UUID) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(AttrPlatformID.ValueSet(ids.Format(ids.Platform, platformID)))
}

// AgentAction is the life of one money movement an agent asks for.
//
// The API starts it with Update-with-Start: UpdateCreate submits the action, which checks
// it against the agent's policy and usage and writes it with its reservation (a refusal
// writes nothing and ends the workflow). Within AUTO and the limits the action is APPROVED
// and executed in the same update, through the payment's own workflow (a transfer, or the
// quote's execution), and the update answers with the action and its transaction, or with
// the execution's refusal (the action then FAILED, its reservation given back).
//
// Otherwise the action is PENDING_APPROVAL (the platform was sent
// AGENT_ACTION_PENDING_APPROVAL) and the workflow waits on a durable timer, until the
// action's approvalExpiresAt, for UpdateDecide from the platform: approval executes the
// action and answers with it (APPROVED with its transaction, or FAILED when the execution
// was refused, e.g. the quote expired); rejection ends it REJECTED. Nobody deciding in time
// ends it FAILED (APPROVAL_EXPIRED). A rejected, expired or failed action gives its
// reservation back; decisions after the first, or after the expiry, are rejected.
func AgentAction(ctx workflow.Context, in agent.Request) error {
	if err := agentAction(ctx, in); err != nil {
		return err
	}
	// A repeated create (or a late decision) still running answers before the workflow ends.
	return allHandlersFinished(ctx)
}

func agentAction(ctx workflow.Context, in agent.Request) error {
	var a *activities.Activities
	execute := func(ctx workflow.Context) (activities.ActionStep, error) {
		return result[activities.ActionStep](ctx, workflow.ExecuteActivity(DatabaseStep(ctx), a.ExecuteAgentAction, in))
	}
	var submitted activities.ActionStep
	ok, err := awaitCreate(ctx, func(ctx workflow.Context) (json.RawMessage, error) {
		s, err := result[activities.ActionStep](ctx, workflow.ExecuteLocalActivity(ctx, a.SubmitAgentAction, in))
		if err != nil {
			return nil, err
		}
		submitted = s
		if s.Status != agent.Approved {
			return s.Action, nil
		}
		done, err := execute(ctx)
		if err != nil {
			return nil, err
		}
		submitted = done
		if done.Refusal != nil {
			return nil, temporal.NewNonRetryableApplicationError(done.Refusal.Message, string(done.Refusal.Code), nil, *done.Refusal)
		}
		return done.Action, nil
	})
	if err != nil || !ok || submitted.Status != agent.PendingApproval {
		return err
	}

	// decided is set by the first decision, before it runs; expired once the timer ended
	// a pending action. Either rejects later decisions. state is the action as this
	// workflow knows it: PENDING_APPROVAL until a step answered it otherwise.
	var decided, expired, finished bool
	state := agent.Action{Status: agent.PendingApproval}
	err = workflow.SetUpdateHandlerWithOptions(ctx, UpdateDecide, func(ctx workflow.Context, d agent.Decision) (json.RawMessage, error) {
		decided = true
		defer func() { finished = true }()
		s, err := result[activities.ActionStep](ctx, workflow.ExecuteLocalActivity(LocalStep(ctx), a.DecideAgentAction, in.ActionID, d))
		if err == nil {
			state = agent.Action{Status: s.Status, FailureReason: s.FailureReason}
		}
		if err != nil || !d.Approve {
			return s.Action, err
		}
		s, err = execute(ctx)
		if err == nil {
			state = agent.Action{Status: s.Status, FailureReason: s.FailureReason}
		}
		return s.Action, err
	}, workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, _ agent.Decision) error {
		// The state machine's refusal, coded: after the expiry the action is FAILED
		// (APPROVAL_EXPIRED); while the first decision runs it is still PENDING_APPROVAL
		// (another decision is being carried out); after it, as that decision left it.
		switch {
		case expired:
			return coded(agent.Action{Status: agent.Failed, FailureReason: agent.FailureApprovalExpired}.Pending())
		case decided && state.Status == agent.PendingApproval:
			return coded(agent.NotPending(agent.PendingApproval, ""))
		case decided:
			return coded(state.Pending())
		}
		return nil
	}})
	if err != nil {
		return err
	}
	for {
		wait := max(submitted.ApprovalExpiresAt.Sub(workflow.Now(ctx)), 0)
		if _, err := workflow.AwaitWithTimeout(ctx, wait, func() bool { return decided }); err != nil {
			return err
		}
		if !decided {
			expired = true
			if _, err := result[activities.ActionStep](ctx, workflow.ExecuteLocalActivity(LocalStep(ctx), a.ExpireAgentAction, in.ActionID)); err != nil {
				return err
			}
			return nil
		}
		if err := workflow.Await(ctx, func() bool { return finished }); err != nil {
			return err
		}
		if state.Status != agent.PendingApproval || !waitsAfterRefusedDecision(ctx) {
			return nil
		}
		// The decision was refused under the action's lock and left it pending (the
		// database's clock had reached approvalExpiresAt before the workflow's timer): the
		// workflow keeps the action, waiting for another decision or its expiry.
		decided, finished = false, false
	}
}

// versionRefusedDecisionWaits gates waiting on after a decision the action's state
// machine refused under its lock (the action still PENDING_APPROVAL), so that the expiry
// still ends it, instead of ending the workflow with the action pending. It is asked only
// on that path, so histories that never took it replay unchanged.
const versionRefusedDecisionWaits = "refused-decision-waits"

// waitsAfterRefusedDecision reports whether this run keeps waiting after a refused
// decision (see versionRefusedDecisionWaits).
func waitsAfterRefusedDecision(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, versionRefusedDecisionWaits, workflow.DefaultVersion, 1) != workflow.DefaultVersion
}
