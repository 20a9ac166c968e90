package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/propagation"

	"paycore/internal/ids"
)

// eventRecord records a webhook event inside the caller's transaction (the outbox). When
// dispatchedAt is nil the worker's relay starts its delivery after commit; a caller that
// starts the delivery itself passes when it does.
func eventRecord(ctx context.Context, q *queries, platformID uuid.UUID, eventType string, data any, dispatchedAt *time.Time) (WebhookEvent, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return WebhookEvent{}, fmt.Errorf("encode %s event: %w", eventType, err)
	}
	ev, err := q.WebhookEventCreate(ctx, WebhookEventCreateParams{
		ID: ids.New(), PlatformID: platformID, Type: eventType, Data: raw, DispatchedAt: dispatchedAt, Traceparent: traceParent(ctx),
	})
	if err != nil {
		return WebhookEvent{}, fmt.Errorf("record %s event: %w", eventType, err)
	}
	return ev, nil
}

// traceParent is the W3C traceparent of ctx's span, "" outside a trace.
func traceParent(ctx context.Context) string {
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	return carrier.Get("traceparent")
}
