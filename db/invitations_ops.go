package db

// Named operations on invitations for the API: each runs one query on pool.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// InvitationGetByCode runs the InvitationGetByCode query on pool.
func InvitationGetByCode(ctx context.Context, pool *pgxpool.Pool, code string) (Invitation, error) {
	return newQueries(pool).InvitationGetByCode(ctx, code)
}

// InvitationGet runs the InvitationGet query on pool: an invitation by its code in one
// environment.
func InvitationGet(ctx context.Context, pool *pgxpool.Pool, arg InvitationGetParams) (Invitation, error) {
	return newQueries(pool).InvitationGet(ctx, arg)
}
