package db

// Named operations on api_tokens for the API: each runs one query on pool.

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TokenAuthenticate runs the TokenAuthenticate query on pool.
func TokenAuthenticate(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) (TokenAuthenticateRow, error) {
	return newQueries(pool).TokenAuthenticate(ctx, id)
}

// TokenGet runs the TokenGet query on pool.
func TokenGet(ctx context.Context, pool *pgxpool.Pool, arg TokenGetParams) (ApiToken, error) {
	return newQueries(pool).TokenGet(ctx, arg)
}
