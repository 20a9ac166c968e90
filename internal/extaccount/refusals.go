package extaccount

import (
	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// Exists is the refusal of an external account its owner has registered already.
func Exists() error {
	return problem.Refuse(catalog.ExternalAccountExists, "this account is already registered for the same owner")
}

// NotFound is the refusal of an external account the caller's platform does not have
// (another platform's, or a deleted one): 404 EXTERNAL_ACCOUNT_NOT_FOUND.
func NotFound() error { return problem.NotFound(catalog.ExternalAccountNotFound, "external account") }
