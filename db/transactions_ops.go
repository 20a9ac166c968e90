package db

// Named operations on transactions for the API: each runs one query on pool.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// TransactionGet runs the TransactionGet query on pool.
func TransactionGet(ctx context.Context, pool *pgxpool.Pool, arg TransactionGetParams) (Transaction, error) {
	return New(pool).TransactionGet(ctx, arg)
}
