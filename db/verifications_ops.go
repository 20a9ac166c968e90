package db

// Named operations on verifications: each runs one query on pool.

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// VerificationGet runs the VerificationGet query on pool.
func VerificationGet(ctx context.Context, pool *pgxpool.Pool, arg VerificationGetParams) (Verification, error) {
	return newQueries(pool).VerificationGet(ctx, arg)
}

// VerificationGetByID reads a verification by its id, whatever its platform (the
// VerificationGetByID query on pool).
func VerificationGetByID(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) (Verification, error) {
	return newQueries(pool).VerificationGetByID(ctx, id)
}
