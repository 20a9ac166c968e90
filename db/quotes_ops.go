package db

// Named operations on quotes for the API: each runs one query on pool.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// QuoteGet runs the QuoteGet query on pool: a quote of the platform with its transaction.
func QuoteGet(ctx context.Context, pool *pgxpool.Pool, arg QuoteGetParams) (QuoteGetRow, error) {
	return newQueries(pool).QuoteGet(ctx, arg)
}
