package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/apitoken"
)

// TokenRevoke deletes an API token of a platform, refusing to delete its last one (the
// platform would lock itself out). The platform row's lock serialises deletions, so two
// concurrent deletes can never remove the last two tokens. An unknown token (or another
// platform's) is TOKEN_NOT_FOUND. The token is marked deleted at now.
func TokenRevoke(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID, now time.Time) error {
	return withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		if _, err := q.PlatformGetForUpdate(ctx, platformID); err != nil {
			return fmt.Errorf("lock platform: %w", err)
		}
		if _, err := q.TokenGet(ctx, TokenGetParams{PlatformID: platformID, ID: id}); IsNotFound(err) {
			return apitoken.ErrNotFound()
		} else if err != nil {
			return fmt.Errorf("get token: %w", err)
		}
		n, err := q.TokenCountActive(ctx, platformID)
		if err != nil {
			return fmt.Errorf("count tokens: %w", err)
		}
		if err := apitoken.CheckRevoke(n); err != nil {
			return err
		}
		if _, err := q.TokenDelete(ctx, TokenDeleteParams{PlatformID: platformID, ID: id, Now: now}); err != nil {
			return fmt.Errorf("delete token: %w", err)
		}
		return nil
	})
}
