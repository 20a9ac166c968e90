package db

// Named operations on customers for the API: each runs one query on pool.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// CustomerGet runs the CustomerGet query on pool.
func CustomerGet(ctx context.Context, pool *pgxpool.Pool, arg CustomerGetParams) (Customer, error) {
	return newQueries(pool).CustomerGet(ctx, arg)
}
