package agent

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The refusals are answered byte for byte as before they moved here.
func TestRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "ErrNotFound", Err: ErrNotFound(), Want: problem.Wire{Code: catalog.AgentNotFound, Message: "agent not found"}},
		problemtest.Case{Name: "ErrDeviceCodeNotFound", Err: ErrDeviceCodeNotFound(), Want: problem.Wire{Code: catalog.DeviceCodeNotFound, Message: "device code not found"}},
		problemtest.Case{Name: "ErrActionNotFound", Err: ErrActionNotFound(), Want: problem.Wire{Code: catalog.AgentActionNotFound, Message: "agent action not found"}},
		problemtest.Case{Name: "GoneBeforeExecution", Err: GoneBeforeExecution(), Want: problem.Wire{Code: catalog.Forbidden, Message: "the agent was paused or deleted before the action was executed"}},
		problemtest.Case{Name: "TransferRefused", Err: TransferRefused(), Want: problem.Wire{Code: catalog.InvalidInput, Message: "the transfer was refused"}},
	)
}
