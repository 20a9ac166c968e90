package start

import (
	"context"
	"encoding/json"

	"paycore/internal/agent"
	"paycore/workflows"
)

// AgentAction starts (or joins) the workflow of an agent's action with Update-with-Start
// and waits for its create update: when it returns nil the action is written (and, when
// it needed no approval, executed), and the result is the AgentAction resource (JSON). A
// refusal comes back as for Transfer; a workflow that already ended is ErrPaymentExists
// (the action is read from the database).
func (s Starter) AgentAction(ctx context.Context, r agent.Request) (json.RawMessage, error) {
	return s.payment(ctx, r.WorkflowID, workflows.AgentActionSearchAttributes(r.PlatformID), workflows.AgentAction, r)
}

// DecideAgentAction sends the platform's approval or rejection to a pending action's
// workflow and waits for it: the result is the AgentAction (JSON) as decided (and, when
// approved, executed). A workflow that ended is ErrWorkflowClosed; an action no longer
// waiting for a decision is refused with an application error.
func (s Starter) DecideAgentAction(ctx context.Context, workflowID string, d agent.Decision) (json.RawMessage, error) {
	return s.update(ctx, workflowID, workflows.UpdateDecide, d)
}
