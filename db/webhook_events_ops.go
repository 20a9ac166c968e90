package db

// Named operations on webhook events and their delivery attempts, for the activities that
// deliver them, the relay that dispatches them and the operator's commands.

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/catalog"
)

// WebhookEventGet reads an event by its id, whatever its platform (the WebhookEventGetByID
// query on pool).
func WebhookEventGet(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) (WebhookEvent, error) {
	return newQueries(pool).WebhookEventGetByID(ctx, id)
}

// WebhookEventReopen runs the WebhookEventReopen query on pool: the event is PENDING again,
// for a redelivery.
func WebhookEventReopen(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) error {
	return newQueries(pool).WebhookEventReopen(ctx, id)
}

// WebhookEventMarkFinal runs the WebhookEventMarkFinal query on pool: a pending event is
// closed with a final status.
func WebhookEventMarkFinal(ctx context.Context, pool *pgxpool.Pool, arg WebhookEventMarkFinalParams) error {
	return newQueries(pool).WebhookEventMarkFinal(ctx, arg)
}

// WebhookEventBacklog runs the WebhookEventBacklog query on pool: how many events wait for
// their delivery, and since when the oldest.
func WebhookEventBacklog(ctx context.Context, pool *pgxpool.Pool) (WebhookEventBacklogRow, error) {
	return newQueries(pool).WebhookEventBacklog(ctx)
}

// WebhookAttemptList runs the WebhookAttemptList query on pool: the event's delivery
// attempts.
func WebhookAttemptList(ctx context.Context, pool *pgxpool.Pool, eventID uuid.UUID) ([]WebhookAttempt, error) {
	return newQueries(pool).WebhookAttemptList(ctx, eventID)
}

// WebhookAttemptDecision is what a recorded delivery attempt decides for its event.
type WebhookAttemptDecision int

const (
	// WebhookAttemptRetry leaves the event PENDING (its delivery goes on).
	WebhookAttemptRetry WebhookAttemptDecision = iota
	// WebhookAttemptDelivered marks the event DELIVERED.
	WebhookAttemptDelivered
	// WebhookAttemptFailed marks the event FAILED (a single attempt that was not accepted).
	WebhookAttemptFailed
	// WebhookAttemptGone disables the platform's endpoint the attempt was sent to (it
	// answered 410 Gone) and marks the event UNDELIVERABLE.
	WebhookAttemptGone
)

// WebhookAttemptRecord records a delivery attempt of an event of the platform (the
// attempt's row and the event's last attempt) and what it decides, in one transaction: the
// event delivered, or the endpoint disabled, at now.
func WebhookAttemptRecord(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID, attempt WebhookAttemptCreateParams, decision WebhookAttemptDecision, now time.Time) error {
	return withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		if err := q.WebhookAttemptCreate(ctx, attempt); err != nil {
			return fmt.Errorf("record attempt: %w", err)
		}
		if err := q.WebhookEventRecordAttempt(ctx, WebhookEventRecordAttemptParams{
			ID: attempt.EventID, AttemptedAt: &attempt.StartedAt, StatusCode: attempt.StatusCode, LastError: attempt.Error,
		}); err != nil {
			return fmt.Errorf("record the event's last attempt: %w", err)
		}
		var err error
		switch decision {
		case WebhookAttemptDelivered:
			err = q.WebhookEventMarkDelivered(ctx, WebhookEventMarkDeliveredParams{ID: attempt.EventID, Now: now})
		case WebhookAttemptFailed:
			err = q.WebhookEventMarkFinal(ctx, WebhookEventMarkFinalParams{ID: attempt.EventID, Status: catalog.WebhookFailed})
		case WebhookAttemptGone:
			if err = q.PlatformDisableWebhook(ctx, PlatformDisableWebhookParams{ID: platformID, WebhookEndpoint: attempt.Url, Now: now}); err != nil {
				return fmt.Errorf("disable the webhook endpoint: %w", err)
			}
			err = q.WebhookEventMarkFinal(ctx, WebhookEventMarkFinalParams{ID: attempt.EventID, Status: catalog.WebhookUndeliverable})
		}
		if err != nil {
			return fmt.Errorf("mark event %s: %w", attempt.EventID, err)
		}
		return nil
	})
}

// WebhookEventsDispatch claims up to limit undispatched events in one transaction (the
// WebhookEventClaimUndispatched query) and calls start for each deliverable one, in order:
// the ones it started (nil error) are marked dispatched, the others stay undispatched for
// a later batch; the undeliverable ones are marked UNDELIVERABLE without a call. It returns
// the claimed events; on an error nothing is marked (the transaction rolls back).
func WebhookEventsDispatch(ctx context.Context, pool *pgxpool.Pool, limit int32, start func(WebhookEventClaimUndispatchedRow) error) ([]WebhookEventClaimUndispatchedRow, error) {
	var claimed []WebhookEventClaimUndispatchedRow
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		rows, err := q.WebhookEventClaimUndispatched(ctx, limit)
		if err != nil {
			return fmt.Errorf("claim events: %w", err)
		}
		claimed = rows
		started := make([]uuid.UUID, 0, len(rows))
		var skipped []uuid.UUID
		for _, ev := range rows {
			if !ev.Deliverable {
				skipped = append(skipped, ev.ID)
				continue
			}
			if start(ev) != nil {
				continue
			}
			started = append(started, ev.ID)
		}
		if len(skipped) > 0 {
			if err := q.WebhookEventMarkUndeliverable(ctx, skipped); err != nil {
				return fmt.Errorf("mark events undeliverable: %w", err)
			}
		}
		if len(started) == 0 {
			return nil
		}
		if err := q.WebhookEventMarkDispatched(ctx, started); err != nil {
			return fmt.Errorf("mark events dispatched: %w", err)
		}
		return nil
	})
	return claimed, err
}
