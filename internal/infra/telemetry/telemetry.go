// Package telemetry sets up the OpenTelemetry tracing of one process: its tracer provider
// (exporting over OTLP only when an endpoint is configured, otherwise a no-op one), the
// W3C trace-context propagator, the meter provider that exposes instrument readings on the
// service's Prometheus registry, and a slog handler that stamps log records with the
// current trace and span ids. Nothing here is global: the caller passes what it builds to
// every component.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// DefaultServiceName names the service in exported spans when Options.ServiceName is empty.
const DefaultServiceName = "paycore"

// Options configures Setup.
type Options struct {
	// Endpoint is the OTLP/HTTP collector's base URL (for example
	// http://otel-collector:4318), read like the standard OTEL_EXPORTER_OTLP_ENDPOINT:
	// spans are posted to its /v1/traces. Empty means no exporter: spans are not recorded
	// at all.
	Endpoint string
	// ServiceName is the service.name resource attribute; DefaultServiceName when empty.
	ServiceName string
	// Exporter, when set, receives every span synchronously instead of an OTLP exporter
	// (tests install an in-memory one).
	Exporter sdktrace.SpanExporter
	// Registerer is where instrument readings (the Temporal SDK's metrics) are exposed in
	// the Prometheus format; none are kept when nil.
	Registerer prometheus.Registerer
}

// Telemetry is what Setup built.
type Telemetry struct {
	// Tracer is the tracer provider every component creates spans with.
	Tracer trace.TracerProvider
	// Propagator carries trace context across process boundaries (W3C traceparent).
	Propagator propagation.TextMapPropagator
	// Meter is the meter provider whose instruments appear on Options.Registerer.
	Meter metric.MeterProvider
	// Exporting reports whether spans are recorded and exported.
	Exporting bool

	shutdown []func(context.Context) error
}

// secondsBuckets are the histogram boundaries of the instruments, in seconds: from a
// millisecond (a workflow task) to half an hour (a payment waiting on the outside world).
var secondsBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 600, 1800}

// Setup builds the tracer and meter providers.
func Setup(ctx context.Context, o Options) (*Telemetry, error) {
	t := &Telemetry{
		Tracer:     noop.NewTracerProvider(),
		Propagator: propagation.TraceContext{},
	}
	if o.ServiceName == "" {
		o.ServiceName = DefaultServiceName
	}
	res := resource.NewSchemaless(attribute.String("service.name", o.ServiceName))
	var spanOpt sdktrace.TracerProviderOption
	switch {
	case o.Exporter != nil:
		spanOpt = sdktrace.WithSyncer(o.Exporter)
	case o.Endpoint != "":
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(tracesURL(o.Endpoint)))
		if err != nil {
			return nil, fmt.Errorf("OTLP trace exporter for %s: %w", o.Endpoint, err)
		}
		spanOpt = sdktrace.WithBatcher(exp)
	}
	if spanOpt != nil {
		tp := sdktrace.NewTracerProvider(spanOpt, sdktrace.WithResource(res),
			sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())))
		t.Tracer, t.Exporting = tp, true
		t.shutdown = append(t.shutdown, tp.Shutdown)
	}
	if o.Registerer == nil {
		t.Meter = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res))
		return t, nil
	}
	// Instruments keep their own names (no unit or _total suffix, no scope labels, no
	// target_info), so the Temporal SDK's metrics read as its documentation names them:
	// temporal_request, temporal_workflow_task_execution_latency_bucket …
	reader, err := otelprom.New(otelprom.WithRegisterer(o.Registerer),
		otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithoutSuffixes),
		otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
	if err != nil {
		return nil, fmt.Errorf("prometheus metric reader: %w", err)
	}
	// Every histogram here measures seconds (the SDK's timers); the default boundaries are
	// made for milliseconds and would put every reading in the first buckets.
	seconds := sdkmetric.NewView(sdkmetric.Instrument{Kind: sdkmetric.InstrumentKindHistogram},
		sdkmetric.Stream{Aggregation: sdkmetric.AggregationExplicitBucketHistogram{Boundaries: secondsBuckets}})
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res), sdkmetric.WithView(seconds))
	t.Meter = mp
	t.shutdown = append(t.shutdown, mp.Shutdown)
	return t, nil
}

// tracesURL is where spans are posted: the endpoint's /v1/traces (kept when the endpoint
// already names it).
func tracesURL(endpoint string) string {
	if strings.HasSuffix(endpoint, "/v1/traces") {
		return endpoint
	}
	return strings.TrimSuffix(endpoint, "/") + "/v1/traces"
}

// Shutdown flushes the spans not yet exported and stops the providers.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range t.shutdown {
		if err := f(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	t.shutdown = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("telemetry shutdown: %w", err)
	}
	return nil
}
