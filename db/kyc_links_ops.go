package db

// Named operations on kyc_links for the API: each runs one query on pool.

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// KycLinkCreate runs the KycLinkCreate query on pool.
func KycLinkCreate(ctx context.Context, pool *pgxpool.Pool, arg KycLinkCreateParams) (KycLink, error) {
	return newQueries(pool).KycLinkCreate(ctx, arg)
}

// KycLinkReopen runs the KycLinkReopen query on pool.
func KycLinkReopen(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) error {
	return newQueries(pool).KycLinkReopen(ctx, id)
}
