// Package metrics holds the Prometheus collectors of one process. Each process builds its
// own Metrics (no package-level registry) and serves it on /metrics.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the collectors the API and the worker update.
type Metrics struct {
	Registry       *prometheus.Registry
	Requests       *prometheus.CounterVec   // by method, route pattern and status
	Latency        *prometheus.HistogramVec // by method and route pattern
	WorkflowStarts *prometheus.CounterVec   // by workflow type and result
	// WebhookBacklog is the number of webhook events not delivered yet (PENDING), and
	// WebhookOldestPending the age in seconds of the oldest of them (0 when none); the
	// worker's janitor sets them.
	WebhookBacklog       prometheus.Gauge
	WebhookOldestPending prometheus.Gauge
	// StuckPayments counts, by status, the transactions still CREATED, PENDING or
	// PROCESSING whose last change is older than the stuck threshold; the worker's janitor
	// sets it.
	StuckPayments *prometheus.GaugeVec
	// PaymentTransitions counts payment status changes by direction (outgoing, incoming)
	// and new status: one per payment event of the webhook outbox, counted by the relay as
	// it dispatches the event (each is dispatched once).
	PaymentTransitions *prometheus.CounterVec
	// Lightning payments this process sends: how many wait on the node now (sent or
	// tracked), how each it sent ended (result completed or failed, and the failure code),
	// and the route fees paid; and what the node received into accounts.
	LightningInFlight     prometheus.Gauge
	LightningPayments     *prometheus.CounterVec
	LightningFeesMsat     prometheus.Counter
	LightningReceivedSats prometheus.Counter
}

// New registers the collectors on a fresh registry, with Go runtime and process metrics.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paycore_http_requests_total", Help: "HTTP requests by method, route and status.",
		}, []string{"method", "route", "status"}),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "paycore_http_request_duration_seconds", Help: "HTTP request latency by method and route.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
		WorkflowStarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paycore_workflow_starts_total", Help: "Temporal workflow starts by workflow type and result.",
		}, []string{"workflow", "result"}),
		WebhookBacklog: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "paycore_webhook_backlog", Help: "Webhook events not delivered yet (PENDING), as of the worker's last count.",
		}),
		WebhookOldestPending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "paycore_webhook_oldest_pending_seconds", Help: "Age of the oldest undelivered webhook event (0 when there is none).",
		}),
		StuckPayments: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "paycore_stuck_payments", Help: "Transactions still open (CREATED, PENDING, PROCESSING) whose last change is older than the stuck threshold, by status.",
		}, []string{"status"}),
		PaymentTransitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paycore_payment_transitions_total", Help: "Payment status changes by direction (outgoing, incoming) and new status, counted from the webhook outbox.",
		}, []string{"direction", "status"}),
		LightningInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "paycore_lightning_payments_in_flight", Help: "Lightning payments this process waits on at the node (sent or tracked).",
		}),
		LightningPayments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "paycore_lightning_payments_total", Help: "Lightning payments this process sent, by result (completed, failed) and failure code.",
		}, []string{"result", "code"}),
		LightningFeesMsat: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "paycore_lightning_fees_msat_total", Help: "Route fees of the Lightning payments this process sent, in millisatoshis.",
		}),
		LightningReceivedSats: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "paycore_lightning_received_sats_total", Help: "Satoshis received over Lightning and credited to accounts by this process.",
		}),
	}
	m.Registry.MustRegister(m.Requests, m.Latency, m.WorkflowStarts, m.WebhookBacklog, m.WebhookOldestPending, m.StuckPayments,
		m.PaymentTransitions, m.LightningInFlight, m.LightningPayments, m.LightningFeesMsat, m.LightningReceivedSats,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}
