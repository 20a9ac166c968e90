package workflows

// Definition is a workflow function with the name it is registered under (its workflow
// type, which histories and starts refer to).
type Definition struct {
	Name string
	Func any
}

// All lists every workflow the worker runs: the worker registers them, and the replay
// test replays a recorded history of each, so a change that breaks a running workflow is
// caught before it is deployed.
func All() []Definition {
	return []Definition{
		{"WebhookDelivery", WebhookDelivery},
		{"Transfer", Transfer},
		{"Quote", Quote},
		{"IncomingPayment", IncomingPayment},
		{"Invitation", Invitation},
		{"CustomerVerification", CustomerVerification},
		{"OwnerKyc", OwnerKyc},
		{"BulkImport", BulkImport},
		{"AgentAction", AgentAction},
	}
}
