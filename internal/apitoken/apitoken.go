// Package apitoken holds the rules of a platform's API tokens that are not their
// storage: which token may be revoked, and the refusals of the token endpoints.
package apitoken

import (
	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// ErrNotFound is the refusal of an unknown (or another platform's) API token.
func ErrNotFound() error { return problem.NotFound(catalog.TokenNotFound, "token") }

// CheckRevoke decides whether a token of a platform that holds active API tokens (the
// token to revoke among them) may be revoked: never the last one, which would lock the
// platform out of the API.
func CheckRevoke(active int64) error {
	if active <= 1 {
		return problem.Refuse(catalog.InvalidInput, "this is the platform's last API token; create another token before deleting it")
	}
	return nil
}
