package db

// Named operations on auth for the API: each runs one query on pool.

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/catalog"
)

// AuthCredentialGet runs the AuthCredentialGet query on pool.
func AuthCredentialGet(ctx context.Context, pool *pgxpool.Pool, arg AuthCredentialGetParams) (AuthCredential, error) {
	return newQueries(pool).AuthCredentialGet(ctx, arg)
}

// AuthCredentialListByAccount runs the AuthCredentialListByAccount query on pool.
func AuthCredentialListByAccount(ctx context.Context, pool *pgxpool.Pool, accountID uuid.UUID) ([]AuthCredential, error) {
	return newQueries(pool).AuthCredentialListByAccount(ctx, accountID)
}

// AuthCredentialTypeOf runs the AuthCredentialTypeOf query on pool.
func AuthCredentialTypeOf(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) (catalog.CredentialType, error) {
	return newQueries(pool).AuthCredentialTypeOf(ctx, id)
}

// AuthEmailCredentialOfCustomer runs the AuthEmailCredentialOfCustomer query on pool.
func AuthEmailCredentialOfCustomer(ctx context.Context, pool *pgxpool.Pool, customerID uuid.NullUUID) (AuthCredential, error) {
	return newQueries(pool).AuthEmailCredentialOfCustomer(ctx, customerID)
}

// AuthSessionCreate runs the AuthSessionCreate query on pool.
func AuthSessionCreate(ctx context.Context, pool *pgxpool.Pool, arg AuthSessionCreateParams) (AuthSession, error) {
	return newQueries(pool).AuthSessionCreate(ctx, arg)
}

// AuthSessionGet runs the AuthSessionGet query on pool.
func AuthSessionGet(ctx context.Context, pool *pgxpool.Pool, arg AuthSessionGetParams) (AuthSession, error) {
	return newQueries(pool).AuthSessionGet(ctx, arg)
}

// AuthSessionListActive runs the AuthSessionListActive query on pool: the account's
// sessions neither revoked nor expired at now.
func AuthSessionListActive(ctx context.Context, pool *pgxpool.Pool, accountID uuid.UUID, now time.Time) ([]AuthSessionListActiveRow, error) {
	return newQueries(pool).AuthSessionListActive(ctx, AuthSessionListActiveParams{AccountID: accountID, Now: now})
}

// AuthSessionRevoke runs the AuthSessionRevoke query on pool: the session is marked
// revoked at now.
func AuthSessionRevoke(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID, now time.Time) (int64, error) {
	return newQueries(pool).AuthSessionRevoke(ctx, AuthSessionRevokeParams{ID: id, Now: now})
}
