package db

import (
	"context"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
)

// QueryTracer is a pgx tracer that records a client span for every query and batch run
// inside a trace (a request, a workflow activity). Queries with no span in their context
// (the webhook relay's polls, the janitor) record nothing, so background loops never
// start traces of their own.
func QueryTracer(tp trace.TracerProvider) pgx.QueryTracer {
	return inTrace{otelpgx.NewTracer(otelpgx.WithTracerProvider(tp), otelpgx.WithMeterProvider(noop.NewMeterProvider()),
		otelpgx.WithDisableAcquireTracer())}
}

type inTrace struct{ t *otelpgx.Tracer }

var (
	_ pgx.QueryTracer = inTrace{}
	_ pgx.BatchTracer = inTrace{}
)

func traced(ctx context.Context) bool { return trace.SpanContextFromContext(ctx).IsValid() }

// recording reports whether the span in ctx is one this tracer started (its end must be
// recorded): the context Trace…Start returned holds it.
func recording(ctx context.Context) bool { return trace.SpanFromContext(ctx).IsRecording() }

func (t inTrace) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if !traced(ctx) {
		return ctx
	}
	return t.t.TraceQueryStart(ctx, conn, data)
}

func (t inTrace) TraceQueryEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryEndData) {
	if recording(ctx) {
		t.t.TraceQueryEnd(ctx, conn, data)
	}
}

func (t inTrace) TraceBatchStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	if !traced(ctx) {
		return ctx
	}
	return t.t.TraceBatchStart(ctx, conn, data)
}

func (t inTrace) TraceBatchQuery(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchQueryData) {
	if recording(ctx) {
		t.t.TraceBatchQuery(ctx, conn, data)
	}
}

func (t inTrace) TraceBatchEnd(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchEndData) {
	if recording(ctx) {
		t.t.TraceBatchEnd(ctx, conn, data)
	}
}
