package db

// Named operations on transactions: each runs one query on pool.

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TransactionGet runs the TransactionGet query on pool.
func TransactionGet(ctx context.Context, pool *pgxpool.Pool, arg TransactionGetParams) (Transaction, error) {
	return newQueries(pool).TransactionGet(ctx, arg)
}

// TransactionGetByID reads a transaction by its id, whatever its platform (the
// TransactionGetByID query on pool).
func TransactionGetByID(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) (Transaction, error) {
	return newQueries(pool).TransactionGetByID(ctx, id)
}

// TransactionPayerOf runs the TransactionPayerOf query on pool: the paying transaction
// whose receiving side is id.
func TransactionPayerOf(ctx context.Context, pool *pgxpool.Pool, id uuid.NullUUID) (TransactionPayerOfRow, error) {
	return newQueries(pool).TransactionPayerOf(ctx, id)
}

// TransactionsUnfinished runs the TransactionsUnfinished query on pool: the payments in
// the given statuses, oldest first.
func TransactionsUnfinished(ctx context.Context, pool *pgxpool.Pool, arg TransactionsUnfinishedParams) ([]TransactionsUnfinishedRow, error) {
	return newQueries(pool).TransactionsUnfinished(ctx, arg)
}

// TransactionCountStuck runs the TransactionCountStuck query on pool: per open status, how
// many payments have not moved since before.
func TransactionCountStuck(ctx context.Context, pool *pgxpool.Pool, before time.Time) ([]TransactionCountStuckRow, error) {
	return newQueries(pool).TransactionCountStuck(ctx, before)
}
