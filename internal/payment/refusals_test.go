package payment

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The refusals are answered byte for byte as before they moved here.
func TestRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "RefundUnaffordable", Err: RefundUnaffordable(), Want: problem.Wire{Code: catalog.InsufficientFunds,
			Message: "the account's available balance is below the amount to refund"}},
	)
}
