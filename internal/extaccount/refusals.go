package extaccount

import (
	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// Exists is the refusal of an external account its owner has registered already.
func Exists() error {
	return problem.Refuse(catalog.ExternalAccountExists, "this account is already registered for the same owner")
}
