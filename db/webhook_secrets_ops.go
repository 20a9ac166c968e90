package db

// Named operations on webhook_secrets for the API: each runs one query on pool.

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// WebhookSecretListActive runs the WebhookSecretListActive query on pool.
func WebhookSecretListActive(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID) ([]WebhookSecret, error) {
	return newQueries(pool).WebhookSecretListActive(ctx, platformID)
}
