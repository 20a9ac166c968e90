package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
	tlog "go.temporal.io/sdk/log"

	"paycore/activities"
	"paycore/api"
	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/fx"
	"paycore/internal/infra/config"
	"paycore/internal/infra/docstore"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/mailer"
	"paycore/internal/infra/metrics"
	"paycore/internal/infra/netguard"
	"paycore/internal/infra/sms"
	"paycore/internal/infra/telemetry"
	"paycore/internal/kit/filecrypt"
	"paycore/internal/kit/sealbox"
	"paycore/internal/rail"
	"paycore/internal/webhooksig"
	"paycore/worker"
	"paycore/workflows"
	"paycore/workflows/start"
)

// app is the wiring shared by the serve, worker and dev commands.
type app struct {
	cfg      config.Config
	log      *slog.Logger
	pool     *pgxpool.Pool
	temporal client.Client
	box      *sealbox.Box
	signer   *webhooksig.ECDSASigner
	metrics  *metrics.Metrics
	rates    *fx.Table
	rails    *rail.Registry // which rail serves which payments (PAYCORE_RAILS)
	// lightning is the deployment's Lightning node (PAYCORE_LND_*; nil: none), and
	// closeRails closes the connected rails' connections (the node's).
	lightning  *lnd.Client
	closeRails func()
	dev        bool // running under `paycore dev`
	// clock is what agent usage windows are counted by: time.Now when nil (tests move it
	// across days and months).
	clock func() time.Time
	// tel is the process's tracing (spans exported only when configured) and the meter
	// provider behind the Temporal SDK's metrics.
	tel *telemetry.Telemetry
	// outbound is the outbound-address guard's client for domains platforms and other UMA
	// providers name, by environment (outboundClients).
	outbound func(catalog.Environment) *http.Client
}

// appOptions are what tests change in newApp beyond the configuration.
type appOptions struct {
	// spanExporter, when set, receives every span (in place of the OTLP exporter).
	spanExporter sdktrace.SpanExporter
	// clock, when set, is the app's clock (time.Now otherwise): set before the API and the
	// worker start, which read it.
	clock func() time.Time
}

func newApp(ctx context.Context, cfg config.Config, log *slog.Logger) (*app, error) {
	return newAppWith(ctx, cfg, log, appOptions{})
}

func newAppWith(ctx context.Context, cfg config.Config, log *slog.Logger, o appOptions) (*app, error) {
	if cfg.MasterKey == "" {
		return nil, errors.New("PAYCORE_MASTER_KEY is not set (base64 of 32 random bytes; `paycore dev` generates one)")
	}
	key, err := sealbox.ParseKey(cfg.MasterKey)
	if err != nil {
		return nil, fmt.Errorf("PAYCORE_MASTER_KEY: %w", err)
	}
	box, err := sealbox.New(key)
	if err != nil {
		return nil, err
	}
	rates, err := loadRates(cfg.FXRatesFile, time.Now())
	if err != nil {
		return nil, err
	}
	outbound, err := outboundClients(cfg)
	if err != nil {
		return nil, err
	}
	// Every record logged with a context inside a trace carries its trace_id and span_id.
	log = slog.New(telemetry.LogHandler(log.Handler()))
	m := metrics.New()
	tel, err := telemetry.Setup(ctx, telemetry.Options{Endpoint: cfg.OTLPEndpoint, ServiceName: cfg.OTelServiceName,
		Exporter: o.spanExporter, Registerer: m.Registry})
	if err != nil {
		return nil, err
	}
	popts := db.PoolOptions{MaxConns: cfg.DatabaseMaxConns}
	if tel.Exporting {
		popts.Tracer = db.QueryTracer(tel.Tracer)
	}
	pool, err := db.ConnectWith(ctx, cfg.DatabaseURL, popts)
	if err != nil {
		_ = tel.Shutdown(ctx)
		return nil, err
	}
	rails, node, closeRails, err := railRegistry(cfg, db.NewStore(pool, view.Resources{}), m, outbound)
	if err != nil {
		pool.Close()
		_ = tel.Shutdown(ctx)
		return nil, err
	}
	a := &app{cfg: cfg, log: log, pool: pool, box: box, metrics: m, rates: rates, rails: rails, lightning: node, closeRails: closeRails, tel: tel, clock: o.clock,
		outbound: outbound}
	if a.signer, err = loadSigningKey(ctx, pool, box); err != nil {
		a.closeLocal()
		return nil, err
	}
	interceptors := []interceptor.ClientInterceptor{start.CountStarts(a.metrics.WorkflowStarts)}
	if tel.Exporting {
		// Workflow starts, workflows, activities, signals and updates become spans of the
		// caller's trace (the trace context travels in the Temporal headers); the worker
		// created from this client inherits the interceptor.
		tracing, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{
			Tracer: tel.Tracer.Tracer("paycore/temporal"), TextMapPropagator: tel.Propagator,
		})
		if err != nil {
			a.closeLocal()
			return nil, fmt.Errorf("temporal tracing interceptor: %w", err)
		}
		interceptors = append(interceptors, tracing)
	}
	a.temporal, err = dialTemporal(ctx, cfg, client.Options{
		Logger:       tlog.NewStructuredLogger(log.With("component", "temporal")),
		Interceptors: interceptors,
		// The SDK's own metrics (temporal_request, temporal_workflow_task_execution_latency …)
		// on the service's registry, beside paycore_*.
		MetricsHandler: temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{
			Meter: tel.Meter.Meter("temporal-sdk-go"), UseMonotonicCounters: true,
			OnError: func(err error) { log.Warn("temporal SDK metric", "error", err) },
		}),
	})
	if err != nil {
		a.closeLocal()
		return nil, fmt.Errorf("connect to temporal at %s: %w", cfg.TemporalAddress, err)
	}
	return a, nil
}

// dialTemporal connects to the configured Temporal (PAYCORE_TEMPORAL_ADDRESS and
// _NAMESPACE) with the configuration's TLS, client certificate and API key
// (PAYCORE_TEMPORAL_TLS*, PAYCORE_TEMPORAL_API_KEY*), whatever else o sets: the one way the
// service's processes (API, worker, operator commands) reach Temporal.
func dialTemporal(ctx context.Context, cfg config.Config, o client.Options) (client.Client, error) {
	tc, err := cfg.TemporalTLSConfig()
	if err != nil {
		return nil, err
	}
	key, err := cfg.TemporalAPIKeyValue()
	if err != nil {
		return nil, err
	}
	o.HostPort, o.Namespace = cfg.TemporalAddress, cfg.TemporalNamespace
	o.ConnectionOptions.TLS = tc
	if key != "" {
		// "Authorization: Bearer <key>" on every call.
		o.Credentials = client.NewAPIKeyStaticCredentials(key)
	}
	return client.DialContext(ctx, o)
}

// refuseTemporalSecurity is the check of the commands that start a plaintext Temporal of
// their own on loopback (dev, cluster): the settings of a secured one do not apply there.
func refuseTemporalSecurity(cfg config.Config, command string) error {
	if cfg.TemporalSecurity.Configured() {
		return fmt.Errorf("`paycore %s` starts a Temporal of its own on loopback, without TLS: unset PAYCORE_TEMPORAL_TLS* and PAYCORE_TEMPORAL_API_KEY*, which are for a Temporal you run elsewhere", command)
	}
	return nil
}

func (a *app) close() {
	a.temporal.Close()
	a.closeLocal()
}

// closeLocal closes the pool, then flushes the spans not yet exported.
func (a *app) closeLocal() {
	a.pool.Close()
	if a.closeRails != nil {
		a.closeRails()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.tel.Shutdown(ctx); err != nil {
		a.log.Warn("flush traces", "error", err)
	}
}

// loadRates is the exchange-rate table: the built-in one with the operator's file
// (PAYCORE_FX_RATES_FILE) over it, when one is configured.
func loadRates(file string, now time.Time) (*fx.Table, error) {
	if file == "" {
		return fx.BuiltIn(now), nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("PAYCORE_FX_RATES_FILE: %w", err)
	}
	overrides, err := fx.ParseOverrides(data)
	if err != nil {
		return nil, fmt.Errorf("PAYCORE_FX_RATES_FILE %s: %w", file, err)
	}
	t, err := fx.NewTable(overrides, now, false)
	if err != nil {
		return nil, fmt.Errorf("PAYCORE_FX_RATES_FILE %s: %w", file, err)
	}
	return t, nil
}

const signingKeyName = "webhook-ecdsa-p256"

// loadSigningKey returns the service's webhook signing key, creating it on first use. The
// insert is a no-op when another process created it first, so every process ends up with
// the same key.
func loadSigningKey(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box) (*webhooksig.ECDSASigner, error) {
	der, err := webhooksig.GenerateKey()
	if err != nil {
		return nil, err
	}
	s, err := webhooksig.NewECDSASigner(der)
	if err != nil {
		return nil, err
	}
	row, err := db.ServiceKeyEnsure(ctx, pool, db.ServiceKeyInsertParams{Name: signingKeyName, PrivateSealed: box.Seal(signingKeyName, der), PublicKeyPem: s.PublicKeyPEM()})
	if err != nil {
		return nil, fmt.Errorf("webhook signing key: %w", err)
	}
	der, err = box.Open(signingKeyName, row.PrivateSealed)
	if err != nil {
		return nil, fmt.Errorf("webhook signing key does not open under PAYCORE_MASTER_KEY: %w", err)
	}
	return webhooksig.NewECDSASigner(der)
}

const documentKeyName = "documents-x25519"

// loadDocumentKey returns the key document files are encrypted with, creating it on first
// use like the signing key (sealed under the master key in service_keys; the public column
// holds its age recipient), so every process and every restart uses the same key.
func loadDocumentKey(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box) (*filecrypt.Key, error) {
	k, err := filecrypt.Generate()
	if err != nil {
		return nil, err
	}
	row, err := db.ServiceKeyEnsure(ctx, pool, db.ServiceKeyInsertParams{Name: documentKeyName, PrivateSealed: k.Seal(box), PublicKeyPem: k.Recipient()})
	if err != nil {
		return nil, fmt.Errorf("document encryption key: %w", err)
	}
	return filecrypt.Unseal(box, row.PrivateSealed)
}

// openDocuments opens the document store (PAYCORE_DOCUMENTS_URL, by default the data
// directory's documents folder) with the service's document key.
func (a *app) openDocuments(ctx context.Context) (*docstore.Store, error) {
	key, err := loadDocumentKey(ctx, a.pool, a.box)
	if err != nil {
		return nil, err
	}
	return docstore.Open(ctx, a.cfg.DocumentsLocation(), key)
}

func (a *app) apiHandler(docs *docstore.Store) *api.Server {
	d := api.Deps{Pool: a.pool, Temporal: a.temporal, Config: a.cfg, Metrics: a.metrics, Box: a.box, Signer: a.signer, Logger: a.log, Rates: a.rates,
		Documents: docs, Tracer: a.tel.Tracer, Propagator: a.tel.Propagator, Now: a.clock, Rails: a.rails, Lightning: a.lightning, Outbound: a.outbound}
	d.Mailer, d.DevMailbox = a.mail()
	d.SMS, d.DevSMS = a.sms()
	return api.New(d)
}

// sms is the service's SMS transport and, under `paycore dev` without a gateway, the sink
// the development outbox (/dev/sms) reads, as mail is.
func (a *app) sms() (sms.Sender, *sms.Sink) {
	if a.cfg.SMSURL != "" {
		return sms.Gateway{URL: a.cfg.SMSURL, Token: a.cfg.SMSToken, Client: &http.Client{Timeout: 10 * time.Second}}, nil
	}
	sink := sms.NewSink(a.log.With("component", "sms"))
	if a.dev {
		return sink, sink
	}
	a.log.Warn("no SMS gateway (PAYCORE_SMS_URL): production platforms' SMS codes are refused, sandbox platforms' are not delivered")
	return sink, nil
}

// mail is the service's mail transport and, under `paycore dev` without SMTP, the sink the
// development mailbox (/dev/mailbox) reads. Without PAYCORE_SMTP_HOST the sink keeps sandbox
// platforms' mail (readable only under `paycore dev`) and refuses production platforms'
// (EMAIL_DELIVERY_FAILED to the caller); no message body ever goes to the log.
func (a *app) mail() (mailer.Mailer, *mailer.Sink) {
	if a.cfg.SMTPHost != "" {
		return mailer.NewSMTP(mailer.SMTPConfig{Host: a.cfg.SMTPHost, Port: a.cfg.SMTPPort, Username: a.cfg.SMTPUsername,
			Password: a.cfg.SMTPPassword, TLS: a.cfg.SMTPTLS}), nil
	}
	sink := mailer.NewSink(a.log.With("component", "mail"))
	if a.dev {
		return sink, sink
	}
	a.log.Warn("no mail transport (PAYCORE_SMTP_HOST): production platforms' one-time codes are refused, sandbox platforms' are not delivered")
	return sink, nil
}

// runAPI serves the API on ln until ctx ends, then drains in-flight requests.
func (a *app) runAPI(ctx context.Context, ln net.Listener) error {
	docs, err := a.openDocuments(ctx)
	if err != nil {
		ln.Close()
		return err
	}
	defer docs.Close()
	if a.cfg.TLSCertFile != "" {
		cert, err := tls.LoadX509KeyPair(a.cfg.TLSCertFile, a.cfg.TLSKeyFile)
		if err != nil {
			ln.Close()
			return fmt.Errorf("PAYCORE_TLS_CERT, PAYCORE_TLS_KEY: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}})
	}
	h := a.apiHandler(docs)
	srv := api.NewHTTPServer(a.cfg, h)
	srv.RegisterOnShutdown(h.CloseStreams) // event streams never end on their own
	return serveHTTP(ctx, "http", srv, api.EnvelopeListener(ln))
}

// outboundClients is the outbound-address guard's client for domains platforms and other
// UMA providers name, by environment: PAYCORE_RESOLVE's addresses, and the certificate
// authorities of PAYCORE_OUTBOUND_ROOTS trusted besides the system's.
func outboundClients(cfg config.Config) (func(catalog.Environment) *http.Client, error) {
	roots, err := netguard.LoadRoots(cfg.OutboundRoots)
	if err != nil {
		return nil, fmt.Errorf("PAYCORE_OUTBOUND_ROOTS: %w", err)
	}
	return netguard.PerEnvironment(cfg.SandboxPrivateOK, cfg.Resolve, roots), nil
}

// listen opens the API's listener and, unless metrics are off, the metrics listener
// (nil then).
func (a *app) listen() (apiLn, metricsLn net.Listener, err error) {
	apiLn, err = net.Listen("tcp", a.cfg.HTTPAddr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s: %w", a.cfg.HTTPAddr, err)
	}
	metricsLn, err = a.listenMetrics()
	if err != nil {
		apiLn.Close()
		return nil, nil, err
	}
	return apiLn, metricsLn, nil
}

// listenMetrics opens the metrics listener at PAYCORE_METRICS_ADDR; nil when it is off.
func (a *app) listenMetrics() (net.Listener, error) {
	if a.cfg.MetricsAddr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", a.cfg.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener on %s (PAYCORE_METRICS_ADDR; \"off\" disables it): %w", a.cfg.MetricsAddr, err)
	}
	return ln, nil
}

// runMetrics serves /metrics on ln, a listener of its own (never the API's), until ctx ends.
func (a *app) runMetrics(ctx context.Context, ln net.Listener) error {
	return serveHTTP(ctx, "metrics", api.NewMetricsServer(a.cfg, a.metrics.Handler()), ln)
}

// serveHTTP serves srv on ln until ctx ends, then drains in-flight requests.
func serveHTTP(ctx context.Context, name string, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("%s server: %w", name, err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("%s shutdown: %w", name, err)
	}
	return nil
}

// runWorker runs the Temporal worker, the webhook outbox relay, the janitor and the starter
// of stranded bulk imports until ctx ends, then stops the worker gracefully (in-flight activities get WorkerStopTimeout).
func (a *app) runWorker(ctx context.Context) error {
	acts := activities.New(activities.Options{
		Pool: a.pool, Box: a.box, Signer: a.signer, Logger: a.log.With("component", "activities"),
		WebhookTimeout: a.cfg.WebhookTimeout, SandboxAllowPrivate: a.cfg.SandboxPrivateOK,
		Rates: a.rates, Pricing: a.cfg.FXPricing, Limits: a.cfg.PaymentLimits,
		Payments: worker.Payments{Starter: start.Starter{Client: a.temporal, TaskQueue: a.cfg.TaskQueue}}, Now: a.clock,
		Tracer: a.tel.Tracer, Rails: a.rails, UMA: a.outbound, UmaAllowlistOnly: a.cfg.UmaAllowlistOnly,
	})
	w := worker.New(a.temporal, acts, worker.Options{Pollers: a.cfg.WorkerPollers, TaskQueue: a.cfg.TaskQueue,
		BuildID: a.cfg.WorkerBuildID, Deployment: a.cfg.WorkerDeployment})
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	if a.cfg.WorkerBuildID != "" && a.cfg.WorkerPromote {
		promote, cancel := context.WithTimeout(ctx, time.Minute)
		err := worker.Promote(promote, a.temporal, a.cfg.WorkerDeployment, a.cfg.WorkerBuildID, a.log)
		cancel()
		if err != nil {
			w.Stop()
			return err
		}
	}
	relay := &worker.Relay{Pool: a.pool, Starter: start.Starter{Client: a.temporal, TaskQueue: a.cfg.TaskQueue}, Logger: a.log.With("component", "relay"),
		Retry:  workflows.WebhookRetry{Initial: a.cfg.WebhookRetryStart, MaxInterval: a.cfg.WebhookRetryMax, MaxAge: a.cfg.WebhookRetryAge},
		Tracer: a.tel.Tracer, Metrics: a.metrics}
	janitor := &worker.Janitor{Pool: a.pool, Logger: a.log.With("component", "janitor"), Metrics: a.metrics, StuckAfter: a.cfg.StuckPaymentAfter}
	bulk := &worker.BulkImportStarter{Pool: a.pool, Starter: relay.Starter, Logger: a.log.With("component", "bulk-imports"),
		BatchSize: a.cfg.BulkImportBatchSize, BatchesPerRun: a.cfg.BulkImportBatchesPerRun}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); _ = relay.Run(ctx) }()
	go func() { defer wg.Done(); janitor.Run(ctx) }()
	go func() { defer wg.Done(); bulk.Run(ctx) }()
	if a.lightning != nil {
		watcher := &worker.LightningWatcher{Store: db.NewStore(a.pool, view.Resources{}), Node: a.lightning, Logger: a.log.With("component", "lightning"), Now: a.clock, Metrics: a.metrics,
			Collected: relay.Starter.Collected}
		wg.Add(1)
		go func() { defer wg.Done(); watcher.Run(ctx) }()
	}
	<-ctx.Done()
	wg.Wait()
	w.Stop()
	return nil
}
