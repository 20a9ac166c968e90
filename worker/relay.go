package worker

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"paycore/db"
	"paycore/internal/ids"
	"paycore/internal/infra/metrics"
	"paycore/workflows"
	"paycore/workflows/start"
)

// Relay hands committed webhook events (the outbox) to delivery workflows. It polls for
// them: at once again after a full batch, after Busy when it found some, and backing off
// to Interval while it finds none. It does not LISTEN: a NOTIFY from the inserting
// transaction would serialise the commits of every payment on the server (PostgreSQL
// commits notifying transactions one at a time), see ADR 0018. Workflow ids derive from
// event ids, so a relay that crashes between starting a workflow and marking the row
// never delivers twice, and several relays claim disjoint rows (SKIP LOCKED).
type Relay struct {
	Pool    *pgxpool.Pool
	Starter start.Starter
	Retry   workflows.WebhookRetry
	Logger  *slog.Logger
	// Interval is the longest wait between polls, reached while no event comes; default
	// 250 ms.
	Interval time.Duration
	// Busy is the wait after a poll that found events, so that events committed together
	// go out in one batch; default 10 ms. The wait doubles from it after every empty poll
	// up to Interval.
	Busy time.Duration
	// Tracer, when set, records a span for every event handed to a delivery workflow: the
	// root of the delivery's trace (workflow start, workflow, activity, webhook POST).
	Tracer trace.TracerProvider
	// Metrics, when set, counts the payment status changes among the dispatched events.
	Metrics *metrics.Metrics
}

// Run relays until ctx ends.
func (r *Relay) Run(ctx context.Context) error {
	if r.Interval <= 0 {
		r.Interval = 250 * time.Millisecond
	}
	if r.Busy <= 0 {
		r.Busy = 10 * time.Millisecond
	}
	wait := r.Busy
	for ctx.Err() == nil {
		n, err := r.DispatchBatch(ctx)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				r.Logger.Warn("webhook relay: dispatch", "error", err)
			}
			wait = time.Second
		case n == batchSize:
			continue
		case n > 0:
			wait = r.Busy
		default:
			wait = min(2*wait, r.Interval)
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	return nil
}

const batchSize = 100

// DispatchBatch starts delivery workflows for up to one batch of undispatched events and
// returns how many it handled.
func (r *Relay) DispatchBatch(ctx context.Context) (int, error) {
	rows, err := db.WebhookEventsDispatch(ctx, r.Pool, batchSize, func(ev db.WebhookEventClaimUndispatchedRow) error {
		err := r.dispatch(ctx, ev.ID, ev.PlatformID, ev.Type, ev.Traceparent)
		if err != nil {
			r.Logger.Warn("webhook relay: start delivery", "event", ev.ID, "error", err)
		}
		return err
	})
	if err != nil {
		return len(rows), err
	}
	types := make([]string, 0, len(rows))
	for _, ev := range rows {
		types = append(types, ev.Type)
	}
	r.countTransitions(types)
	return len(rows), nil
}

// countTransitions counts the payment events of a committed batch by direction and status
// (OUTGOING_PAYMENT_COMPLETED: outgoing, COMPLETED).
func (r *Relay) countTransitions(types []string) {
	if r.Metrics == nil {
		return
	}
	for _, t := range types {
		for prefix, direction := range paymentEventPrefixes {
			if status, ok := strings.CutPrefix(t, prefix); ok {
				r.Metrics.PaymentTransitions.WithLabelValues(direction, status).Inc()
			}
		}
	}
}

var paymentEventPrefixes = map[string]string{"OUTGOING_PAYMENT_": "outgoing", "INCOMING_PAYMENT_": "incoming"}

// dispatch starts the delivery workflow of one event inside a span of its own: the root
// of the delivery's trace, linked to the span that recorded the event (traceparent).
func (r *Relay) dispatch(ctx context.Context, id, platformID uuid.UUID, typ, traceparent string) error {
	tp := r.Tracer
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	eventID := ids.Format(ids.Webhook, id)
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(attribute.String("paycore.webhook_event", eventID), attribute.String("paycore.webhook_type", typ))}
	if traceparent != "" {
		recorded := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": traceparent})
		if sc := trace.SpanContextFromContext(recorded); sc.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
		}
	}
	ctx, span := tp.Tracer("paycore/worker").Start(ctx, "webhook relay dispatch", opts...)
	defer span.End()
	err := r.Starter.WebhookDelivery(ctx, eventID, platformID, typ, r.Retry)
	if err != nil {
		span.RecordError(err)
	}
	return err
}
