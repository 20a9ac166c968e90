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

// outbox is the webhook events of one change, rendered as the change goes and recorded
// together, in the order they were added, by flush: one statement (and one run of the
// list-count trigger) for all of them instead of one each. The change flushes it in its
// database transaction, after its last event and before it commits; an event is as
// eventRecord's with dispatchedAt nil (the relay delivers it).
type outbox struct {
	ids, platforms []uuid.UUID
	types, data    []string
}

// add renders the event of eventType with data for platformID into o. Nothing is written
// before flush.
func (o *outbox) add(platformID uuid.UUID, eventType string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", eventType, err)
	}
	o.ids, o.platforms = append(o.ids, ids.New()), append(o.platforms, platformID)
	o.types, o.data = append(o.types, eventType), append(o.data, string(raw))
	return nil
}

// flush records o's events in q's database transaction (WebhookEventsCreate) and empties o.
func (o *outbox) flush(ctx context.Context, q *queries) error {
	if len(o.ids) == 0 {
		return nil
	}
	err := q.WebhookEventsCreate(ctx, WebhookEventsCreateParams{Ids: o.ids, PlatformIds: o.platforms, Types: o.types, Data: o.data, Traceparent: traceParent(ctx)})
	if err != nil {
		return fmt.Errorf("record %v events: %w", o.types, err)
	}
	*o = outbox{}
	return nil
}
