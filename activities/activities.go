// Package activities holds the side-effecting steps of workflows. One Activities value
// carries every dependency; each method is a small idempotent step that persists through
// the sqlc queries or talks to the outside world.
package activities

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/fx"
	"paycore/internal/infra/netguard"
	"paycore/internal/infra/umaclient"
	"paycore/internal/kit/sealbox"
	"paycore/internal/paylimits"
	"paycore/internal/rail"
	"paycore/internal/rail/adapters"
	"paycore/internal/uma"
	"paycore/internal/webhooksig"
)

// Activities is registered with the worker; its methods are the activities.
type Activities struct {
	pool *pgxpool.Pool
	// store runs the db operations that record webhook events, rendered by view.Resources.
	store   db.Store
	box     *sealbox.Box
	signer  *webhooksig.ECDSASigner
	public  *http.Client // webhook client that refuses non-public addresses
	sandbox *http.Client // client for sandbox platforms; may reach private addresses
	log     *slog.Logger
	// rates and sandboxRates price quotes of production and sandbox platforms; pricing
	// is what the service charges.
	rates, sandboxRates *fx.Table
	pricing             fx.Pricing
	// payments executes agent actions through the payments' workflows; now is the clock
	// agent usage windows are counted by.
	payments Payments
	now      func() time.Time
	tracer   trace.TracerProvider
	// rails routes payments to their rails (see internal/rail).
	rails *rail.Registry
	// uma is the outbound-address guard's client for other UMA providers, by environment.
	uma func(catalog.Environment) *http.Client
	// umaAllowlistOnly transacts over UMA with listed providers only.
	umaAllowlistOnly bool
	// umaClient talks to other UMA providers through uma; umaOpened keeps the deployment's
	// UMA keys last opened.
	umaClient *umaclient.Client
	umaOpened uma.OpenedKeys
}

// Options configures New.
type Options struct {
	Pool   *pgxpool.Pool
	Box    *sealbox.Box
	Signer *webhooksig.ECDSASigner
	Logger *slog.Logger
	// WebhookTimeout bounds one delivery attempt.
	WebhookTimeout time.Duration
	// SandboxAllowPrivate lets sandbox platforms deliver to loopback and private addresses
	// (local development). Production platforms never can.
	SandboxAllowPrivate bool
	// Rates is the exchange-rate table (the built-in one when nil); sandbox platforms see
	// it moving. Pricing is what conversions are charged (fx.DefaultPricing when zero).
	Rates   *fx.Table
	Pricing fx.Pricing
	// Limits are the deployment's payment limits (none when nil).
	Limits paylimits.Limits
	// Payments executes agent actions (the worker's workflow starter).
	Payments Payments
	// Now is the clock agent actions are counted by (time.Now when nil; tests move it
	// across days and months).
	Now func() time.Time
	// Tracer records a client span for every webhook POST (none when nil).
	Tracer trace.TracerProvider
	// Rails routes payments to their rails (adapters.Default when nil).
	Rails *rail.Registry
	// UMA is the client other UMA providers are called with, for an environment: the
	// outbound-address guard's (netguard.PerEnvironment; the default refuses every
	// non-public address).
	UMA func(catalog.Environment) *http.Client
	// UmaAllowlistOnly makes payments to other UMA providers go only to the providers the
	// operator listed (PAYCORE_UMA_ALLOWLIST_ONLY).
	UmaAllowlistOnly bool
}

// New builds the activities.
func New(o Options) *Activities {
	if o.WebhookTimeout <= 0 {
		o.WebhookTimeout = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rates == nil {
		o.Rates = fx.BuiltIn(o.Now())
	}
	if o.Tracer == nil {
		o.Tracer = noop.NewTracerProvider()
	}
	if o.Rails == nil {
		o.Rails = adapters.Default()
	}
	if o.Pricing == (fx.Pricing{}) {
		o.Pricing = fx.DefaultPricing()
	}
	if o.UMA == nil {
		o.UMA = netguard.PerEnvironment(false, nil, nil)
	}
	a := &Activities{
		pool:    o.Pool,
		store:   db.NewStore(o.Pool, view.Resources{}).WithLimits(o.Limits),
		box:     o.Box,
		signer:  o.Signer,
		public:  webhookClient(false, true, o.WebhookTimeout, o.Tracer),
		sandbox: webhookClient(o.SandboxAllowPrivate, false, o.WebhookTimeout, o.Tracer),
		log:     o.Logger,
		rates:   o.Rates, sandboxRates: o.Rates.Sandbox(), pricing: o.Pricing,
		payments: o.Payments, now: o.Now, tracer: o.Tracer, rails: o.Rails, uma: o.UMA, umaAllowlistOnly: o.UmaAllowlistOnly,
	}
	a.umaClient = &umaclient.Client{Cache: a.store, Nonces: a.store, HTTP: a.uma, Now: a.now}
	return a
}

// webhookClient builds a delivery client. Redirects are not followed: a receiver must
// answer at the configured URL. The production client is opaque: every transport failure
// reads the same (netguard.NoAnswer). Each request is a client span of tp, recorded around
// the guarded transport (the address guard is untouched); the trace context is not sent to
// the receiver: a platform's endpoint is outside the service and gets no traceparent.
func webhookClient(allowPrivate, opaque bool, timeout time.Duration, tp trace.TracerProvider) *http.Client {
	c := netguard.NewClient(netguard.ClientOptions{AllowPrivate: allowPrivate, Opaque: opaque, Timeout: timeout})
	c.Transport = otelhttp.NewTransport(c.Transport, otelhttp.WithTracerProvider(tp),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()), otelhttp.WithPropagators(propagation.NewCompositeTextMapPropagator()),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return "webhook " + r.Method }))
	return c
}
