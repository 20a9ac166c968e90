package worker

import (
	"context"
	"errors"
	"fmt"
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

// Relay hands committed webhook events (the outbox) to delivery workflows. It wakes on the
// NOTIFY that every insert sends at commit, and also polls, so an event committed while
// no relay was listening is still picked up. Workflow ids derive from event ids, so a
// relay that crashes between starting a workflow and marking the row never delivers twice.
type Relay struct {
	Pool     *pgxpool.Pool
	Starter  start.Starter
	Retry    workflows.WebhookRetry
	Logger   *slog.Logger
	Interval time.Duration // poll interval when no notification arrives; default 2s
	// Debounce, when set, waits this long after a notification before dispatching, so
	// events committed together go out in one batch.
	Debounce time.Duration
	// Tracer, when set, records a span for every event handed to a delivery workflow: the
	// root of the delivery's trace (workflow start, workflow, activity, webhook POST).
	Tracer trace.TracerProvider
	// Metrics, when set, counts the payment status changes among the dispatched events.
	Metrics *metrics.Metrics
}

// Run relays until ctx ends.
func (r *Relay) Run(ctx context.Context) error {
	if r.Interval <= 0 {
		r.Interval = 2 * time.Second
	}
	for ctx.Err() == nil {
		if err := r.listen(ctx); err != nil && ctx.Err() == nil {
			r.Logger.Warn("webhook relay: reconnecting", "error", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
	return nil
}

func (r *Relay) listen(ctx context.Context) error {
	conn, err := r.Pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire listen connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN webhook_events"); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "UNLISTEN webhook_events") }()
	for {
		for {
			n, err := r.DispatchBatch(ctx)
			if err != nil {
				return err
			}
			if n < batchSize {
				break
			}
		}
		wctx, cancel := context.WithTimeout(ctx, r.Interval)
		_, err := conn.Conn().WaitForNotification(wctx)
		cancel()
		if err != nil && ctx.Err() != nil {
			return nil
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("wait for notification: %w", err)
		}
		if err == nil && r.Debounce > 0 {
			// Let a burst of commits land so one dispatch takes them all.
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(r.Debounce):
			}
		}
	}
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
