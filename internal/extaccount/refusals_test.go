package extaccount

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The refusals are answered byte for byte as before they moved here.
func TestRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "Exists", Err: Exists(), Want: problem.Wire{Code: catalog.ExternalAccountExists, Message: "this account is already registered for the same owner"}},
		problemtest.Case{Name: "NotFound", Err: NotFound(), Want: problem.Wire{Code: catalog.ExternalAccountNotFound, Message: "external account not found"}},
	)
}
