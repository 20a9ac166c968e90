package db

// Named operations on documents for the API: each runs one query on pool.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DocumentGet runs the DocumentGet query on pool.
func DocumentGet(ctx context.Context, pool *pgxpool.Pool, arg DocumentGetParams) (Document, error) {
	return newQueries(pool).DocumentGet(ctx, arg)
}
