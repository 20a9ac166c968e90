package customer

import (
	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// PlatformCustomerIDTaken is the refusal of a platformCustomerId another customer of the
// platform holds.
func PlatformCustomerIDTaken() error {
	return problem.Refuse(catalog.PlatformCustomerIDExists, "another customer of the platform already has this platformCustomerId")
}

// UmaAddressTaken is the refusal of a umaAddress another customer holds: addresses are
// unique on the deployment, a deleted customer's included.
func UmaAddressTaken() error {
	return problem.Refuse(catalog.UmaAddressExists, "another customer already has this umaAddress (addresses are unique on the deployment, a deleted customer's included)")
}
