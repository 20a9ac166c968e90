package walletauth

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The not-found refusals are answered byte for byte as the API answered them.
func TestNotFoundRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "CredentialNotFound", Err: CredentialNotFound(), Want: problem.Wire{Code: catalog.CredentialNotFound, Message: "credential not found"}},
		problemtest.Case{Name: "SessionNotFound", Err: SessionNotFound(), Want: problem.Wire{Code: catalog.SessionNotFound, Message: "session not found"}},
	)
}
