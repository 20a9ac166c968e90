package db

// Named operations on webhook_secrets for the API: each runs one query on pool.

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// WebhookSecretListActive runs the WebhookSecretListActive query on pool: the platform's
// secrets that have not expired at now, newest first.
func WebhookSecretListActive(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID, now time.Time) ([]WebhookSecret, error) {
	return newQueries(pool).WebhookSecretListActive(ctx, WebhookSecretListActiveParams{PlatformID: platformID, Now: now})
}
