package db

// Named operations on receiver_lookups for the API: each runs one query on pool.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// CustomerFindByUma runs the CustomerFindByUma query on pool.
func CustomerFindByUma(ctx context.Context, pool *pgxpool.Pool, arg CustomerFindByUmaParams) ([]CustomerFindByUmaRow, error) {
	return newQueries(pool).CustomerFindByUma(ctx, arg)
}

// ReceiverLookupCreate runs the ReceiverLookupCreate query on pool.
func ReceiverLookupCreate(ctx context.Context, pool *pgxpool.Pool, arg ReceiverLookupCreateParams) error {
	return newQueries(pool).ReceiverLookupCreate(ctx, arg)
}
