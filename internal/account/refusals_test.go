package account

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The refusals are answered byte for byte as before they moved here.
func TestRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "CustomerAccountExists", Err: CustomerAccountExists(), Want: problem.Wire{Code: catalog.Conflict, Message: "the customer already has an open account of this currency and type"}},
		problemtest.Case{Name: "PlatformAccountExists", Err: PlatformAccountExists(), Want: problem.Wire{Code: catalog.Conflict, Message: "the platform already has an account of this currency and type"}},
		problemtest.Case{Name: "NotFound", Err: NotFound(), Want: problem.Wire{Code: catalog.AccountNotFound, Message: "internal account not found"}},
	)
}
