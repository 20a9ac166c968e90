package invitation

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The refusals are answered byte for byte as before they moved here.
func TestRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "ErrNotFound", Err: ErrNotFound(), Want: problem.Wire{Code: catalog.InvitationNotFound, Message: "invitation not found"}},
	)
}
