package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/internal/events"
)

// StreamPos is a position in a platform's event stream (GET /webhooks/events/stream): just
// after the event ID recorded by transaction Xact. The stream is ordered by (transaction,
// event id) and shows only events whose transaction and every earlier one have ended
// (migration 0060), so a reader resuming after its last event misses none.
type StreamPos struct {
	Xact int64
	ID   uuid.UUID
}

// WebhookStreamNow is where a stream that names no event starts: after the platform's newest
// event already recorded (in stream order). An event of a transaction still running that
// sorts before it is not shown when it commits; a reader that needs those starts after an
// earlier event.
func WebhookStreamNow(ctx context.Context, d DBTX, platformID uuid.UUID) (StreamPos, error) {
	last, err := newQueries(d).WebhookEventStreamLast(ctx, platformID)
	if errors.Is(err, pgx.ErrNoRows) {
		return StreamPos{}, nil
	}
	if err != nil {
		return StreamPos{}, fmt.Errorf("read the stream's start: %w", err)
	}
	return StreamPos{Xact: last.Xact, ID: last.ID}, nil
}

// WebhookStreamAfter is the position just after the platform's event id: the stream goes on
// with the events that follow it. Another platform's event, or none, is
// events.ErrWebhookEventNotFound.
func WebhookStreamAfter(ctx context.Context, d DBTX, platformID, id uuid.UUID) (StreamPos, error) {
	ev, err := newQueries(d).WebhookEventGet(ctx, WebhookEventGetParams{PlatformID: platformID, ID: id})
	if errors.Is(err, pgx.ErrNoRows) {
		return StreamPos{}, events.ErrWebhookEventNotFound()
	}
	if err != nil {
		return StreamPos{}, fmt.Errorf("read the stream's last event: %w", err)
	}
	return StreamPos{Xact: ev.Xact, ID: ev.ID}, nil
}

// WebhookStreamRead reads up to max of the platform's events after pos, in stream order; the
// position after the last one is where the next read starts.
func WebhookStreamRead(ctx context.Context, d DBTX, platformID uuid.UUID, pos StreamPos, max int32) ([]WebhookEventsStreamRow, error) {
	rows, err := newQueries(d).WebhookEventsStream(ctx, WebhookEventsStreamParams{
		PlatformID: platformID, AfterXact: pos.Xact, AfterID: pos.ID, Max: max})
	if err != nil {
		return nil, fmt.Errorf("read the event stream: %w", err)
	}
	return rows, nil
}
