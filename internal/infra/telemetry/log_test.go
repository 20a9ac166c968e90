package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"paycore/internal/infra/telemetry"
)

func record(t *testing.T, buf *bytes.Buffer) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("log line %q: %v", buf.String(), err)
	}
	buf.Reset()
	return m
}

func TestLogHandlerAddsTraceAndSpanIDs(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewJSONHandler(&buf, nil))).With("component", "test")
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
	ctx, span := tp.Tracer("test").Start(context.Background(), "work")
	defer span.End()

	log.InfoContext(ctx, "inside")
	m := record(t, &buf)
	sc := span.SpanContext()
	if m["trace_id"] != sc.TraceID().String() || m["span_id"] != sc.SpanID().String() {
		t.Fatalf("record %v: want trace_id %s span_id %s", m, sc.TraceID(), sc.SpanID())
	}
	if m["component"] != "test" {
		t.Fatalf("record %v lost the logger's attributes", m)
	}

	log.InfoContext(context.Background(), "outside")
	if m := record(t, &buf); m["trace_id"] != nil || m["span_id"] != nil {
		t.Fatalf("record without a span carries ids: %v", m)
	}
	log.Info("no context")
	if m := record(t, &buf); m["trace_id"] != nil {
		t.Fatalf("record without a context carries ids: %v", m)
	}

	// A remote (non-recording but valid) span context still identifies the trace.
	remote := trace.ContextWithSpanContext(context.Background(), sc)
	log.WithGroup("g").InfoContext(remote, "remote", "k", "v")
	m = record(t, &buf)
	g, _ := m["g"].(map[string]any)
	if g["trace_id"] != sc.TraceID().String() {
		t.Fatalf("record in a group %v: want trace_id %s", m, sc.TraceID())
	}
	// Wrapping twice adds the ids once.
	twice := slog.New(telemetry.LogHandler(telemetry.LogHandler(slog.NewTextHandler(&buf, nil))))
	twice.InfoContext(ctx, "once")
	if n := bytes.Count(buf.Bytes(), []byte("trace_id=")); n != 1 {
		t.Fatalf("trace_id %d times in %q", n, buf.String())
	}
}

func TestSetupWithoutEndpointRecordsNothing(t *testing.T) {
	tel, err := telemetry.Setup(context.Background(), telemetry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	if tel.Exporting {
		t.Fatal("exporting without an endpoint")
	}
	_, span := tel.Tracer.Tracer("test").Start(context.Background(), "x")
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Fatal("spans recorded without an endpoint")
	}
}

// With an endpoint, spans go to the OTLP/HTTP collector; Shutdown flushes the ones not
// exported yet.
func TestSetupExportsToOTLPEndpointOnShutdown(t *testing.T) {
	var posts atomic.Int64
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/traces" {
			posts.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	tel, err := telemetry.Setup(context.Background(), telemetry.Options{Endpoint: collector.URL, ServiceName: "paycore-test"})
	if err != nil {
		t.Fatal(err)
	}
	if !tel.Exporting {
		t.Fatal("not exporting with an endpoint")
	}
	_, span := tel.Tracer.Tracer("test").Start(context.Background(), "x")
	span.End()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if posts.Load() == 0 {
		t.Fatal("the span was not exported on shutdown")
	}
}
