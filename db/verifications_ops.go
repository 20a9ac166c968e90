package db

// Named operations on verifications for the API: each runs one query on pool.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// VerificationGet runs the VerificationGet query on pool.
func VerificationGet(ctx context.Context, pool *pgxpool.Pool, arg VerificationGetParams) (Verification, error) {
	return New(pool).VerificationGet(ctx, arg)
}
