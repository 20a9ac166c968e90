package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"paycore/internal/infra/config"
)

const (
	otelpgxScope  = "github.com/exaring/otelpgx"
	otelhttpScope = "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
)

// spansOf returns the ended spans of one trace.
func spansOf(all tracetest.SpanStubs, id trace.TraceID) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, s := range all {
		if s.SpanContext.TraceID() == id {
			out = append(out, s)
		}
	}
	return out
}

// find returns the first span matching ok.
func find(spans tracetest.SpanStubs, ok func(tracetest.SpanStub) bool) (tracetest.SpanStub, bool) {
	for _, s := range spans {
		if ok(s) {
			return s, true
		}
	}
	return tracetest.SpanStub{}, false
}

func named(prefix string) func(tracetest.SpanStub) bool {
	return func(s tracetest.SpanStub) bool { return strings.HasPrefix(s.Name, prefix) }
}

func scoped(scope string, kind trace.SpanKind) func(tracetest.SpanStub) bool {
	return func(s tracetest.SpanStub) bool { return s.InstrumentationScope.Name == scope && s.SpanKind == kind }
}

func childOf(parent tracetest.SpanStub, ok func(tracetest.SpanStub) bool) func(tracetest.SpanStub) bool {
	return func(s tracetest.SpanStub) bool { return s.Parent.SpanID() == parent.SpanContext.SpanID() && ok(s) }
}

// A transfer-out is one trace from the HTTP request through the workflow start, the
// workflow and its activities down to their SQL queries; the webhook it causes is delivered
// in a trace of its own, rooted at the relay's dispatch, down to the POST to the platform.
func TestTelemetryTraceFromRequestToWebhook(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	s := newStackWith(t, appOptions{spanExporter: exp}, fast)
	w := newWorld(t, s)
	rc := newReceiver(t, nil)
	setEndpoint(t, w.c, rc.srv.URL)
	w.fund(10_000)
	ext := w.external("001")
	r := w.transferOut(ext, 1000)
	if r.Status != 201 {
		t.Fatalf("transfer-out: %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["id"].(string)
	if tx := w.waitFinal(id, 30*time.Second); tx.Status != "COMPLETED" {
		t.Fatalf("transfer %s: %s", id, tx.Status)
	}
	eventually(t, 30*time.Second, "a webhook about the transfer", func() bool {
		for i := range rc.count() {
			if strings.Contains(string(rc.get(i).body), id) {
				return true
			}
		}
		return false
	})

	var req tracetest.SpanStub
	eventually(t, 10*time.Second, "the transfer-out request's server span", func() bool {
		var ok bool
		req, ok = find(exp.GetSpans(), func(s tracetest.SpanStub) bool {
			return s.SpanKind == trace.SpanKindServer && strings.HasPrefix(s.Name, "POST ") && strings.HasSuffix(s.Name, "/transfer-out")
		})
		return ok
	})
	if want := "POST " + s.cfg.BasePath() + "/transfer-out"; req.Name != want {
		t.Fatalf("server span named %q, want the route pattern %q", req.Name, want)
	}
	if req.Parent.IsValid() {
		t.Fatalf("the server span has a parent %v: a public request starts its own trace", req.Parent)
	}
	// The workflow's spans end when the workflow does; wait until its run span is there.
	var spans tracetest.SpanStubs
	eventually(t, 30*time.Second, "the Transfer workflow's span in the request's trace", func() bool {
		spans = spansOf(exp.GetSpans(), req.SpanContext.TraceID())
		_, ok := find(spans, named("RunWorkflow:Transfer"))
		return ok
	})
	start, ok := find(spans, func(s tracetest.SpanStub) bool {
		return s.SpanKind == trace.SpanKindClient && (strings.HasPrefix(s.Name, "UpdateWithStartWorkflow:") || strings.HasPrefix(s.Name, "StartWorkflow:"))
	})
	if !ok {
		t.Fatalf("no workflow start span in the request's trace: %v", names(spans))
	}
	if start.Parent.SpanID() != req.SpanContext.SpanID() {
		t.Fatalf("workflow start span %q has parent %v, want the server span %v", start.Name, start.Parent.SpanID(), req.SpanContext.SpanID())
	}
	if _, ok := find(spans, named("RunActivity:")); !ok {
		t.Fatalf("no activity span in the request's trace: %v", names(spans))
	}
	if _, ok := find(spans, scoped(otelpgxScope, trace.SpanKindClient)); !ok {
		t.Fatalf("no SQL query span in the request's trace: %v", names(spans))
	}
	eventually(t, 10*time.Second, "a SQL query span inside an activity", func() bool {
		spans = spansOf(exp.GetSpans(), req.SpanContext.TraceID())
		for _, a := range spans {
			if strings.HasPrefix(a.Name, "RunActivity:") {
				if _, ok := find(spans, childOf(a, scoped(otelpgxScope, trace.SpanKindClient))); ok {
					return true
				}
			}
		}
		return false
	})

	// The webhook: its own trace, rooted at the relay, with the delivery workflow, its
	// activity and the POST to the platform's endpoint, linked to the event's recording.
	eventually(t, 30*time.Second, "the webhook POST's client span", func() bool {
		_, ok := find(exp.GetSpans(), func(s tracetest.SpanStub) bool {
			return scoped(otelhttpScope, trace.SpanKindClient)(s) && s.Name == "webhook POST"
		})
		return ok
	})
	post, _ := find(exp.GetSpans(), func(s tracetest.SpanStub) bool {
		return scoped(otelhttpScope, trace.SpanKindClient)(s) && s.Name == "webhook POST"
	})
	// A span is exported when it ends: the workflow's ends when the workflow does, which on
	// a loaded machine may be after the POST's.
	var delivery tracetest.SpanStubs
	eventually(t, 30*time.Second, "every span of the webhook delivery's trace", func() bool {
		delivery = spansOf(exp.GetSpans(), post.SpanContext.TraceID())
		for _, want := range []string{"webhook relay dispatch", "StartWorkflow:WebhookDelivery", "RunWorkflow:WebhookDelivery", "RunActivity:DeliverWebhook"} {
			if _, ok := find(delivery, named(want)); !ok {
				return false
			}
		}
		return true
	}, func() string { return fmt.Sprint(names(delivery)) })
	deliverAct, _ := find(delivery, named("RunActivity:DeliverWebhook"))
	if post.Parent.SpanID() != deliverAct.SpanContext.SpanID() {
		t.Fatalf("the webhook POST's parent is %v, want the DeliverWebhook activity %v", post.Parent.SpanID(), deliverAct.SpanContext.SpanID())
	}
	// Each delivery's trace is linked to the span that recorded its event: some relay
	// dispatch (the transfer's PENDING event, recorded by the create step) links back into
	// the request's trace.
	eventually(t, 10*time.Second, "a relay dispatch span linked to the request's trace", func() bool {
		_, ok := find(exp.GetSpans(), func(s tracetest.SpanStub) bool {
			if s.Name != "webhook relay dispatch" {
				return false
			}
			for _, l := range s.Links {
				if l.SpanContext.TraceID() == req.SpanContext.TraceID() {
					return true
				}
			}
			return false
		})
		return ok
	})
	// The platform's endpoint is outside the service: it gets no trace context.
	for i := range rc.count() {
		if h := rc.get(i).header.Get("Traceparent"); h != "" {
			t.Fatalf("a webhook carried traceparent %q to the platform", h)
		}
	}
}

func names(spans tracetest.SpanStubs) []string {
	out := make([]string, 0, len(spans))
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// scrape returns the sample names /metrics exposes.
func scrape(t *testing.T, url string) map[string]bool {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	got := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, _, _ := strings.Cut(line, "{")
		name, _, _ = strings.Cut(name, " ")
		got[name] = true
	}
	return got
}

// After a workflow ran, /metrics holds the Temporal SDK's metrics beside the service's,
// and every metric the payments dashboard queries is among them.
func TestMetricsTemporalSDKAndDashboard(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := newWorld(t, s)
	w.fund(10_000)
	r := w.transferOut(w.external("001"), 1000)
	if r.Status != 201 {
		t.Fatalf("transfer-out: %d %s", r.Status, r.Body)
	}
	w.waitFinal(r.JSON(t)["id"].(string), 30*time.Second)
	want := []string{"paycore_http_requests_total", "paycore_http_request_duration_seconds_bucket", "temporal_request",
		"temporal_workflow_task_execution_latency_bucket", "temporal_activity_execution_latency_bucket", "temporal_workflow_completed"}
	var got map[string]bool
	eventually(t, 30*time.Second, "the Temporal SDK's metrics on /metrics", func() bool {
		got = scrape(t, s.metricsURL)
		for _, n := range want {
			if !got[n] {
				return false
			}
		}
		return true
	}, func() string { return fmt.Sprint(sortedTemporal(got)) })

	// The SDK's timers are in seconds, and so are the buckets.
	secondsBucket := false
	for series := range values(t, s.metricsURL) {
		if strings.HasPrefix(series, "temporal_workflow_task_execution_latency_bucket{") && strings.Contains(series, `le="0.005"`) {
			secondsBucket = true
		}
	}
	if !secondsBucket {
		t.Fatal("temporal_workflow_task_execution_latency has no le=\"0.005\" bucket: the buckets are not in seconds")
	}

	queried := dashboardMetrics(t, "../../deploy/grafana/payments-dashboard.json")
	if len(queried) < 8 {
		t.Fatalf("the dashboard queries only %v", queried)
	}
	eventually(t, 30*time.Second, "every metric the dashboard queries on /metrics", func() bool {
		got = scrape(t, s.metricsURL)
		for _, n := range queried {
			if !got[n] {
				return false
			}
		}
		return true
	}, func() string {
		var missing []string
		for _, n := range queried {
			if !got[n] {
				missing = append(missing, n)
			}
		}
		return fmt.Sprintf("missing %v", missing)
	})
}

var metricName = regexp.MustCompile(`\b(?:paycore|temporal)_[a-z0-9_]+\b`)

// dashboardMetrics returns the metric names the dashboard's queries use; each panel must
// have at least one query and use the datasource variable.
func dashboardMetrics(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Templating struct {
			List []struct{ Name, Type string }
		}
		Panels []struct {
			Title, Type string
			Datasource  struct{ UID string }
			Targets     []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(dash.Templating.List) == 0 || dash.Templating.List[0].Type != "datasource" {
		t.Fatalf("%s: no datasource variable", path)
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 || p.Datasource.UID != "${"+dash.Templating.List[0].Name+"}" {
			t.Fatalf("panel %q: no query or not on the datasource variable", p.Title)
		}
		for _, tg := range p.Targets {
			names := metricName.FindAllString(tg.Expr, -1)
			if len(names) == 0 {
				t.Fatalf("panel %q: query %q names no paycore_ or temporal_ metric", p.Title, tg.Expr)
			}
			for _, n := range names {
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
	}
	return out
}

func sortedTemporal(got map[string]bool) []string {
	var out []string
	for n := range got {
		if strings.HasPrefix(n, "temporal_") || strings.HasPrefix(n, "paycore_") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// The janitor counts the payments open for longer than the stuck threshold and the webhook
// events not delivered yet.
func TestMetricsStuckPaymentsAndWebhookBacklog(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) {
		c.SandboxSlowDelay = 10 * time.Minute // the slow scenario stays open for the whole test
		c.StuckPaymentAfter = time.Millisecond
	})
	w := newWorld(t, s)
	rc := newReceiver(t, func(int) int { return http.StatusServiceUnavailable })
	setEndpoint(t, w.c, rc.srv.URL)
	w.fund(10_000)
	r := w.transferOut(w.external("005"), 1000)
	if r.Status != 201 {
		t.Fatalf("transfer-out: %d %s", r.Status, r.Body)
	}
	eventually(t, 30*time.Second, "a failed webhook attempt", func() bool { return rc.count() > 0 })
	// The janitor counts when it starts, then every minute: a restarted worker counts now.
	s.stopWorkerAndWait()
	s.startWorker()
	eventually(t, 30*time.Second, "a stuck payment and a webhook backlog on /metrics", func() bool {
		v := values(t, s.metricsURL)
		return v[`paycore_stuck_payments{status="PENDING"}`]+v[`paycore_stuck_payments{status="PROCESSING"}`] >= 1 &&
			v["paycore_webhook_backlog"] >= 1 && v["paycore_webhook_oldest_pending_seconds"] > 0
	})
}

// values returns the samples of /metrics by series (name and labels as written).
func values(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if f, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = f
		}
	}
	return out
}
