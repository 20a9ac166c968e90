package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestScrapeMetricsSumsOverLabels checks the reading of a Prometheus text exposition the
// capacity benchmarks rely on: a metric's samples summed over their labels, the
// persistence metrics also by operation, other metrics and comments left out.
func TestScrapeMetricsSumsOverLabels(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`# HELP persistence_requests Persistence requests
# TYPE persistence_requests counter
persistence_requests{operation="UpdateWorkflowExecution",service_name="history"} 5
persistence_requests{operation="CreateWorkflowExecution",service_name="history"} 2
persistence_requests{operation="UpdateWorkflowExecution",service_name="matching"} 1
persistence_latency_sum{operation="UpdateWorkflowExecution"} 0.25
action{namespace="default"} 7
action_other 100
state_transition_count_sum 12.5
`))
	}))
	defer srv.Close()
	got := scrapeMetrics(t, srv.URL, temporalServerMetrics)
	want := map[string]float64{
		"persistence_requests": 8, "persistence_requests/UpdateWorkflowExecution": 6, "persistence_requests/CreateWorkflowExecution": 2,
		"persistence_latency_sum": 0.25, "persistence_latency_sum/UpdateWorkflowExecution": 0.25,
		"action": 7, "state_transition_count_sum": 12.5,
	}
	if len(got) != len(want) {
		t.Errorf("read %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

// TestTemporalServerServesMetrics checks, on the cluster profile, that the Temporal server
// serves the metrics BenchmarkPaymentCosts reads: it has persisted its namespace by now.
func TestTemporalServerServesMetrics(t *testing.T) {
	if temporalMetricsURL == "" {
		t.Skip("the dev server serves no metrics here: PAYCORE_TEST_TEMPORAL=cluster (make test-cluster) runs this")
	}
	got := scrapeMetrics(t, temporalMetricsURL, temporalServerMetrics)
	if got["persistence_requests"] <= 0 || got["persistence_requests/ListNamespaces"] <= 0 {
		t.Fatalf("no persistence requests counted: %v", got)
	}
}
