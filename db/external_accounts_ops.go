package db

// Named operations on external_accounts for the API: each runs one query on pool.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ExternalAccountDelete runs the ExternalAccountDelete query on pool.
func ExternalAccountDelete(ctx context.Context, pool *pgxpool.Pool, arg ExternalAccountDeleteParams) (int64, error) {
	return newQueries(pool).ExternalAccountDelete(ctx, arg)
}

// ExternalAccountGet runs the ExternalAccountGet query on pool.
func ExternalAccountGet(ctx context.Context, pool *pgxpool.Pool, arg ExternalAccountGetParams) (ExternalAccount, error) {
	return newQueries(pool).ExternalAccountGet(ctx, arg)
}
