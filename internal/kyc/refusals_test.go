package kyc

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The refusals are answered byte for byte as the API answered them.
func TestRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "VerificationNotFound", Err: VerificationNotFound(), Want: problem.Wire{Code: catalog.NotFound, Message: "verification not found"}},
	)
}
