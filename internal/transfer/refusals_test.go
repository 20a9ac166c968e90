package transfer

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The refusals are answered byte for byte as the API answered them.
func TestRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "TransactionNotFound", Err: TransactionNotFound(), Want: problem.Wire{Code: catalog.TransactionNotFound, Message: "transaction not found"}},
	)
}
