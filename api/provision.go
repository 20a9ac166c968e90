package api

import (
	"context"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/internal/kit/sealbox"
	"paycore/internal/platformconfig"
)

// PlatformParams describe a platform created by the operator.
type PlatformParams = platformconfig.PlatformParams

// NewToken is a freshly issued API token; Secret is shown once and never stored.
type NewToken = db.IssuedToken

// CreatePlatform creates a platform (the operator's command): checked by
// platformconfig.Provision, stored by db.PlatformProvision with its webhook secret, its
// own accounts and a first token holding every permission.
func CreatePlatform(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, p PlatformParams) (db.Platform, NewToken, error) {
	spec, err := platformconfig.Provision(p)
	if err != nil {
		return db.Platform{}, NewToken{}, err
	}
	return db.PlatformProvision(ctx, pool, box, spec, permissions)
}

// IssueToken creates an API token for a platform (operator command).
func IssueToken(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID, name string, perms []string) (NewToken, error) {
	if err := checkTokenRequest(name, perms); err != nil {
		return NewToken{}, err
	}
	return db.TokenIssueForPlatform(ctx, pool, platformID, name, perms)
}

// issueToken creates an API token of a platform.
func issueToken(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID, name string, perms []string) (NewToken, error) {
	return db.TokenIssue(ctx, pool, platformID, name, perms)
}

func checkTokenRequest(name string, perms []string) *Error {
	if strings.TrimSpace(name) == "" || len(name) > 255 {
		return invalidField("name", "name must be 1 to 255 characters")
	}
	if len(perms) == 0 {
		return invalidField("permissions", "permissions must list at least one of VIEW, TRANSACT, MANAGE")
	}
	seen := map[string]bool{}
	for _, p := range perms {
		if !slices.Contains(permissions, p) {
			return invalidField("permissions", "unknown permission %q (allowed: VIEW, TRANSACT, MANAGE)", p)
		}
		if seen[p] {
			return invalidField("permissions", "permission %s is listed twice", p)
		}
		seen[p] = true
	}
	return nil
}
