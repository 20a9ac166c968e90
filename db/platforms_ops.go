package db

// Named operations on platforms for the API: each runs one query on pool.

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PlatformGet runs the PlatformGet query on pool.
func PlatformGet(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) (Platform, error) {
	return newQueries(pool).PlatformGet(ctx, id)
}
