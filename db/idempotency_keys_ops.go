package db

// Named operations on idempotency_keys: each runs one query on pool.

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// IdempotencyClaim runs the IdempotencyClaim query on pool.
func IdempotencyClaim(ctx context.Context, pool *pgxpool.Pool, arg IdempotencyClaimParams) (uuid.UUID, error) {
	return newQueries(pool).IdempotencyClaim(ctx, arg)
}

// IdempotencyComplete runs the IdempotencyComplete query on pool.
func IdempotencyComplete(ctx context.Context, pool *pgxpool.Pool, arg IdempotencyCompleteParams) error {
	return newQueries(pool).IdempotencyComplete(ctx, arg)
}

// IdempotencyGet runs the IdempotencyGet query on pool.
func IdempotencyGet(ctx context.Context, pool *pgxpool.Pool, arg IdempotencyGetParams) (IdempotencyKey, error) {
	return newQueries(pool).IdempotencyGet(ctx, arg)
}

// IdempotencyRelease runs the IdempotencyRelease query on pool.
func IdempotencyRelease(ctx context.Context, pool *pgxpool.Pool, arg IdempotencyReleaseParams) error {
	return newQueries(pool).IdempotencyRelease(ctx, arg)
}

// IdempotencyRenew runs the IdempotencyRenew query on pool.
func IdempotencyRenew(ctx context.Context, pool *pgxpool.Pool, arg IdempotencyRenewParams) error {
	return newQueries(pool).IdempotencyRenew(ctx, arg)
}

// IdempotencyDeleteExpired runs the IdempotencyDeleteExpired query on pool and returns how
// many keys it deleted.
func IdempotencyDeleteExpired(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	return newQueries(pool).IdempotencyDeleteExpired(ctx)
}
