package customer

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The refusals are answered byte for byte as before they moved here.
func TestRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "NotFound", Err: NotFound(), Want: problem.Wire{Code: catalog.UserNotFound, Message: "customer not found"}},
		problemtest.Case{Name: "PlatformCustomerIDTaken", Err: PlatformCustomerIDTaken(), Want: problem.Wire{Code: catalog.PlatformCustomerIDExists, Message: "another customer of the platform already has this platformCustomerId"}},
		problemtest.Case{Name: "UmaAddressTaken", Err: UmaAddressTaken(), Want: problem.Wire{Code: catalog.UmaAddressExists, Message: "another customer already has this umaAddress (addresses are unique on the deployment, a deleted customer's included)"}},
	)
}
