package db

// Named operations on beneficial_owners for the API: each runs one query on pool.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// OwnerGet runs the OwnerGet query on pool.
func OwnerGet(ctx context.Context, pool *pgxpool.Pool, arg OwnerGetParams) (BeneficialOwner, error) {
	return newQueries(pool).OwnerGet(ctx, arg)
}

// OwnersOfCustomer runs the OwnersOfCustomer query on pool.
func OwnersOfCustomer(ctx context.Context, pool *pgxpool.Pool, arg OwnersOfCustomerParams) ([]BeneficialOwner, error) {
	return newQueries(pool).OwnersOfCustomer(ctx, arg)
}
