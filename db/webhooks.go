package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/kit/sealbox"
	"paycore/internal/platformconfig"
	"paycore/internal/webhooksig"
)

// webhookSecretAdd creates a new current webhook secret of a platform, sealed with box.
func webhookSecretAdd(ctx context.Context, q *queries, box *sealbox.Box, platformID uuid.UUID) error {
	raw, _ := webhooksig.NewSecret()
	if _, err := q.WebhookSecretCreate(ctx, WebhookSecretCreateParams{ID: ids.New(), PlatformID: platformID,
		SecretSealed: box.Seal(webhooksig.SealLabel, raw)}); err != nil {
		return fmt.Errorf("create webhook secret: %w", err)
	}
	return nil
}

// WebhookSecretRotate replaces a platform's webhook secret under the platform's row lock:
// the current secret keeps signing beside the new one for grace. It returns the active
// secrets, newest first.
func WebhookSecretRotate(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, platformID uuid.UUID, grace time.Duration, now time.Time) ([]WebhookSecret, error) {
	var rows []WebhookSecret
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		if _, err := q.PlatformGetForUpdate(ctx, platformID); err != nil {
			return fmt.Errorf("lock platform: %w", err)
		}
		expires := now.Add(grace)
		if err := q.WebhookSecretExpireCurrent(ctx, WebhookSecretExpireCurrentParams{PlatformID: platformID, ExpiresAt: &expires}); err != nil {
			return fmt.Errorf("expire webhook secret: %w", err)
		}
		if err := webhookSecretAdd(ctx, q, box, platformID); err != nil {
			return err
		}
		var err error
		rows, err = q.WebhookSecretListActive(ctx, WebhookSecretListActiveParams{PlatformID: platformID, Now: now})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rotate webhook secret: %w", err)
	}
	return rows, nil
}

// WebhookEventAttempts is an event with its delivery attempts.
type WebhookEventAttempts struct {
	Event    WebhookEvent
	Attempts []WebhookAttempt
}

// WebhookEventAttemptsGet reads a platform's event with its delivery attempts.
func WebhookEventAttemptsGet(ctx context.Context, d DBTX, platformID, id uuid.UUID) (WebhookEventAttempts, error) {
	q := newQueries(d)
	ev, err := q.WebhookEventGet(ctx, WebhookEventGetParams{PlatformID: platformID, ID: id})
	if err != nil {
		return WebhookEventAttempts{}, err
	}
	attempts, err := q.WebhookAttemptList(ctx, ev.ID)
	if err != nil {
		return WebhookEventAttempts{}, fmt.Errorf("list webhook attempts: %w", err)
	}
	return WebhookEventAttempts{Event: ev, Attempts: attempts}, nil
}

// WebhookEventForRedelivery loads a platform's event for POST .../redeliver and checks that
// the platform has an enabled endpoint. It changes nothing: the delivery workflow reopens
// the event itself (Activities.ReopenWebhookEvent), so the reopening is ordered after any
// earlier delivery run of the event has closed and a refused start leaves the event as it was.
func WebhookEventForRedelivery(ctx context.Context, d DBTX, platformID, id uuid.UUID) (WebhookEvent, error) {
	q := newQueries(d)
	ev, err := q.WebhookEventGet(ctx, WebhookEventGetParams{PlatformID: platformID, ID: id})
	if IsNotFound(err) {
		return WebhookEvent{}, events.ErrWebhookEventNotFound()
	}
	if err != nil {
		return WebhookEvent{}, fmt.Errorf("get webhook event: %w", err)
	}
	p, err := q.PlatformGet(ctx, platformID)
	if err != nil {
		return WebhookEvent{}, fmt.Errorf("load platform: %w", err)
	}
	if err := (platformconfig.Webhook{Endpoint: p.WebhookEndpoint, DisabledAt: p.WebhookDisabledAt}).CheckEnabled(); err != nil {
		return WebhookEvent{}, err
	}
	return ev, nil
}
