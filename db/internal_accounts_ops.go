package db

// Named operations on internal_accounts for the API: each runs one query on pool.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// InternalAccountGet runs the InternalAccountGet query on pool.
func InternalAccountGet(ctx context.Context, pool *pgxpool.Pool, arg InternalAccountGetParams) (InternalAccountGetRow, error) {
	return newQueries(pool).InternalAccountGet(ctx, arg)
}

// InternalAccountList runs the InternalAccountList query on pool.
func InternalAccountList(ctx context.Context, pool *pgxpool.Pool, arg InternalAccountListParams) ([]InternalAccountListRow, error) {
	return newQueries(pool).InternalAccountList(ctx, arg)
}

// InternalAccountSetPrivate runs the InternalAccountSetPrivate query on pool.
func InternalAccountSetPrivate(ctx context.Context, pool *pgxpool.Pool, arg InternalAccountSetPrivateParams) (InternalAccount, error) {
	return newQueries(pool).InternalAccountSetPrivate(ctx, arg)
}
