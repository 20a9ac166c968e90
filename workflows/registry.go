package workflows

import "go.temporal.io/sdk/workflow"

// Definition is a workflow function with the name it is registered under (its workflow
// type, which histories and starts refer to) and, for versioned workers, its versioning
// behavior: a payment (minutes) is pinned to the build that started it, so a changed
// payment workflow is deployed beside running ones without patching; a workflow that
// waits for days (a verification, an invitation, an agent's approval, a bulk import across
// continue-as-new) moves to the current build at its next task, so its changes are
// patched with workflow.GetVersion, which the replay test guards.
type Definition struct {
	Name     string
	Func     any
	Behavior workflow.VersioningBehavior
}

// All lists every workflow the worker runs: the worker registers them, and the replay
// test replays a recorded history of each, so a change that breaks a running workflow is
// caught before it is deployed.
func All() []Definition {
	return []Definition{
		{"WebhookDelivery", WebhookDelivery, pinned},
		{"Transfer", Transfer, pinned},
		{"Quote", Quote, pinned},
		{"IncomingPayment", IncomingPayment, pinned},
		{"Invitation", Invitation, upgrade},
		{"CustomerVerification", CustomerVerification, upgrade},
		{"OwnerKyc", OwnerKyc, upgrade},
		{"BulkImport", BulkImport, upgrade},
		{"AgentAction", AgentAction, upgrade},
		{"EndPayment", EndPayment, pinned},
		{"Refund", Refund, pinned},
		{"OwnershipVerification", OwnershipVerification, upgrade},
	}
}

const (
	pinned  = workflow.VersioningBehaviorPinned
	upgrade = workflow.VersioningBehaviorAutoUpgrade
)
