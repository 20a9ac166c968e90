// Package apitoken holds the rules of a platform's API tokens that are not their
// storage: which token may be created and revoked, and the refusals of the token endpoints.
package apitoken

import (
	"slices"

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

// CheckMint decides whether a token holding the permissions held may create a token with
// the permissions requested: a token cannot mint more than it holds, and the first
// permission it lacks is refused, 403 FORBIDDEN on permissions.
func CheckMint(held, requested []string) error {
	for _, p := range requested {
		if !slices.Contains(held, p) {
			return problem.Refuse(catalog.Forbidden, "this API token lacks the %s permission, so it cannot create a token that has it", p).
				With(map[string]any{"field": "permissions", "permission": p})
		}
	}
	return nil
}
