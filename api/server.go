// Package api is the REST interface: the chi router, middleware (request id, recovery,
// body limit, access log, metrics, authentication, idempotency), one file per resource,
// and the OpenAPI document it serves.
package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"go.temporal.io/sdk/client"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/fx"
	"paycore/internal/infra/config"
	"paycore/internal/infra/docstore"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/mailer"
	"paycore/internal/infra/metrics"
	"paycore/internal/infra/netguard"
	"paycore/internal/infra/sms"
	"paycore/internal/infra/umaclient"
	"paycore/internal/kit/sealbox"
	"paycore/internal/rail"
	"paycore/internal/rail/adapters"
	"paycore/internal/uma"
	"paycore/internal/webhooksig"
	"paycore/workflows"
	"paycore/workflows/start"

	"paycore/internal/catalog"
	"paycore/internal/document"
)

// Deps are the API's collaborators.
type Deps struct {
	Pool     *pgxpool.Pool
	Temporal client.Client
	Config   config.Config
	Metrics  *metrics.Metrics
	Box      *sealbox.Box
	Signer   *webhooksig.ECDSASigner
	Logger   *slog.Logger
	// Resolver resolves webhook hosts when they are saved; net.DefaultResolver when nil.
	Resolver netguard.Resolver
	// Outbound is the outbound-address guard's client for the domains platforms and other
	// UMA providers name, by environment (netguard.PerEnvironment of the configuration when
	// nil, trusting the system's certificate authorities).
	Outbound func(catalog.Environment) *http.Client
	// Mailer sends one-time codes; a development sink when nil.
	Mailer mailer.Mailer
	// DevMailbox, when set, is served at /dev/mailbox (local development only).
	DevMailbox *mailer.Sink
	// SMS sends SMS_OTP credentials' codes; a development sink when nil. DevSMS, when set,
	// is served at /dev/sms (local development only).
	SMS    sms.Sender
	DevSMS *sms.Sink
	// Rates is the exchange-rate table; the built-in one when nil. Sandbox platforms see
	// it moving (Table.Sandbox).
	Rates *fx.Table
	// Documents keeps uploaded document files, encrypted; the document uploads answer 503
	// without it.
	Documents *docstore.Store
	// Tracer records a server span for every request, named by its route pattern (none
	// when nil); Propagator reads a caller's trace context (W3C traceparent when nil).
	Tracer     trace.TracerProvider
	Propagator propagation.TextMapPropagator
	// Now is the service's clock (time.Now when nil).
	Now func() time.Time
	// Rails are the payment rails configured, which /readyz lists (the app builds them
	// from Config.Rails and refuses to start on a bad value; adapters.Default when nil, as
	// for the activities).
	Rails *rail.Registry
	// Lightning is the deployment's Lightning node, which creates the invoices shown in
	// the funding instructions of BTC accounts whose payments go through it (none when nil).
	Lightning *lnd.Client
	// UMA talks to other UMA providers (their published keys); when nil, one through the
	// outbound-address guard (production: public addresses only; sandbox platforms as
	// Config.SandboxPrivateOK says), caching keys in the database.
	UMA *umaclient.Client
	// StreamPoll is how often an idle event stream (GET /webhooks/events/stream) looks for
	// new events (500 ms when zero).
	StreamPoll time.Duration
}

// Server serves the API.
type Server struct {
	Deps
	// store runs the db operations that record webhook events on Pool, rendered by
	// view.Resources.
	store db.Store
	start start.Starter
	// umaOpened keeps the deployment's UMA keys last opened (uma.OpenedKeys).
	umaOpened uma.OpenedKeys
	// nodeKey is the Lightning node's public key once the node told it (it never changes).
	nodeKey atomic.Pointer[string]
	oidc    *oidcProviders
	router  chi.Router
	// handler is router inside the tracing middleware.
	handler http.Handler

	// sandboxRates is Rates as sandbox platforms see it (moving), built once.
	sandboxRates *fx.Table
	// docsSite is the API reference (GET /docs), built on first use.
	docsSite docsSiteOnce
	// streams are the open event streams (GET /webhooks/events/stream).
	streams *streams
}

// New builds the HTTP handler of the whole service.
func New(d Deps) *Server {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Resolver == nil {
		d.Resolver = net.DefaultResolver
	}
	if d.Metrics == nil {
		d.Metrics = metrics.New()
	}
	if d.SMS == nil {
		d.SMS = sms.NewSink(d.Logger)
	}
	if d.Mailer == nil {
		d.Mailer = mailer.NewSink(d.Logger)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Rails == nil {
		d.Rails = adapters.Default()
	}
	if d.Rates == nil {
		d.Rates = fx.BuiltIn(d.Now())
	}
	if d.Tracer == nil {
		d.Tracer = noop.NewTracerProvider()
	}
	if d.Propagator == nil {
		d.Propagator = propagation.TraceContext{}
	}
	s := &Server{Deps: d, store: db.NewStore(d.Pool, view.Resources{}), sandboxRates: d.Rates.Sandbox(), start: start.Starter{Client: d.Temporal, TaskQueue: d.Config.TaskQueue},
		oidc: newOIDCProviders(d.Config.SandboxPrivateOK), streams: newStreams()}
	if s.UMA == nil {
		if s.Outbound == nil {
			s.Outbound = netguard.PerEnvironment(d.Config.SandboxPrivateOK, d.Config.Resolve, nil)
		}
		s.UMA = &umaclient.Client{Cache: s.store, Nonces: s.store, Now: s.now, HTTP: s.Outbound}
	}
	s.router = s.routes()
	// The API is public: a caller's traceparent is kept as a link, never as the parent, so
	// no client chooses the service's trace ids or sampling. The span is renamed to the
	// route pattern once the router has matched it (observe).
	s.handler = s.router
	if _, off := d.Tracer.(noop.TracerProvider); !off {
		s.handler = otelhttp.NewHandler(s.router, "http request", otelhttp.WithTracerProvider(d.Tracer),
			otelhttp.WithPropagators(d.Propagator), otelhttp.WithPublicEndpointFn(func(*http.Request) bool { return true }),
			otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()))
	}
	return s
}

// now is the time by the service's clock: what the service decides and records.
func (s *Server) now() time.Time { return s.Now() }

// wall is the wall clock, for what the network and the metrics measure: socket deadlines
// (absolute wall-clock times) and elapsed time. The service's clock (now) is for what the
// service decides and records; a test that moves it must not move these.
func wall() time.Time { return time.Now() } // elapsed time and socket deadlines only

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// MetricsHandler serves the Prometheus metrics; it is not on the API's router but on a
// listener of its own (NewMetricsServer).
func (s *Server) MetricsHandler() http.Handler { return s.Metrics.Handler() }

// Router exposes the route tree (the OpenAPI completeness test walks it).
func (s *Server) Router() chi.Routes { return s.router }

func (s *Server) routes() chi.Router {
	r := chi.NewRouter()
	// bodyLimit comes before every handler and before authentication, which never reads
	// the body: a request answered without its body is answered at once (see bodyLimit).
	r.Use(middleware.RequestID, requestIDHeader, s.observe, recoverer, bodyLimit(s.bodyLimitOf),
		s.checkRequest, s.options, middleware.GetHead)
	r.NotFound(handler(func(http.ResponseWriter, *http.Request) error {
		return refusal(catalog.NotFound, "no such route", nil)
	}))
	r.MethodNotAllowed(handler(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Allow", strings.Join(s.allowedMethods(r.URL.Path), ", "))
		return refusal(catalog.MethodNotAllowed, "method not allowed on this route", nil)
	}))
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, map[string]string{"status": "ok"}) })
	r.Get("/readyz", handler(s.ready))
	r.Get(s.Config.BasePath()+"/openapi.yaml", serveOpenAPI)
	r.Get("/openapi.yaml", serveOpenAPI)
	r.Get(docsPath, handler(s.serveDocsPage))
	r.Get(docsDocumentPath, handler(s.serveDocsDocument))
	r.Get(docsPath+"/{asset}", handler(s.serveDocsFile))
	r.Get(kycPagePath+"{token}", pageHandler(s.serveKycPage))
	r.Post(kycPagePath+"{token}", pageHandler(s.submitKycPage))
	r.Get(invitePagePath+"{invitationCode}", pageHandler(s.serveInvitePage))
	r.Get(livenessPagePath, pageHandler(s.serveLivenessPage))
	r.Get(lightningAddressPath+"{user}", s.payRequest)
	r.Get(lightningAddressPath+"{user}/callback", s.payRequestCallback)
	r.Post(lightningAddressPath+"{user}/callback", s.umaPayRequest)
	r.Post(uma.UtxoCallbackPath+"{transactionId}", s.umaUtxoCallback)
	r.Get(umaPubKeyPath, s.umaPubKeys)
	if s.DevMailbox != nil {
		// Only sandbox platforms' mail: a production platform's one-time codes are never
		// shown here, even on a development stack.
		r.Get("/dev/mailbox", func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"data": s.DevMailbox.SandboxMessages()})
		})
	}
	if s.DevSMS != nil {
		// Only sandbox platforms' text messages, as for the mailbox.
		r.Get("/dev/sms", func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"data": s.DevSMS.SandboxMessages()})
		})
	}

	// Agents' own routes, outside the platform routes' HTTP Basic: the device-code redeem
	// (no authentication) and /agents/me (Bearer).
	s.agentSelfRoutes(r)

	r.Route(s.Config.BasePath(), func(r chi.Router) {
		r.Use(s.authenticate)
		r.NotFound(handler(func(http.ResponseWriter, *http.Request) error {
			return refusal(catalog.NotFound, "no such route", nil)
		}))
		manage := require(PermManage)

		r.Get("/config", handler(s.getConfig))
		r.With(manage).Patch("/config", handler(s.patchConfig))
		r.With(manage).Post("/config/uma-domain/verify", handler(s.verifyUmaDomain))

		r.With(manage, s.idempotent).Post("/tokens", handler(s.createToken))
		r.Get("/tokens", handler(s.listTokens))
		r.Get("/tokens/{tokenId}", handler(s.getToken))
		r.With(manage).Delete("/tokens/{tokenId}", handler(s.deleteToken))

		r.Get("/uma-providers", handler(s.listUmaProviders))
		r.Get("/vasps", handler(s.listVasps))
		r.Get("/exchange-rates", handler(s.listExchangeRates))
		r.Get("/discoveries", handler(s.listDiscoveries))
		r.Post("/crypto/estimate-withdrawal-fee", handler(s.estimateWithdrawalFee))

		transact := require(PermTransact)
		r.With(manage, s.idempotent).Post("/customers", handler(s.createCustomer))
		r.Get("/customers", handler(s.listCustomers))
		r.Get("/customers/internal-accounts", handler(s.listCustomerInternalAccounts))
		r.Get("/customers/end-user-terms", handler(s.getEndUserTerms))
		r.Get("/customers/{customerId}", handler(s.getCustomer))
		r.With(manage, keepBody).Patch("/customers/{customerId}", handler(s.patchCustomer))
		r.With(manage).Delete("/customers/{customerId}", handler(s.deleteCustomer))
		r.With(manage, s.idempotent).Post("/customers/{customerId}/kyc-link", handler(s.createKycLink))
		r.With(manage).Post("/beneficial-owners", handler(s.createBeneficialOwner))
		r.Get("/beneficial-owners", handler(s.listBeneficialOwners))
		r.Get("/beneficial-owners/{beneficialOwnerId}", handler(s.getBeneficialOwner))
		r.With(manage).Patch("/beneficial-owners/{beneficialOwnerId}", handler(s.patchBeneficialOwner))
		r.With(manage).Post("/verifications", handler(s.createVerification))
		r.Get("/verifications", handler(s.listVerifications))
		r.Get("/verifications/{verificationId}", handler(s.getVerification))
		r.Get("/platform/internal-accounts", handler(s.listPlatformInternalAccounts))
		r.With(manage, keepBody).Patch("/internal-accounts/{id}", handler(s.patchInternalAccount))
		r.With(transact, sandboxOnly, s.idempotent).Post("/sandbox/internal-accounts/{accountId}/fund", handler(s.fundSandboxAccount))
		r.With(manage, transact).Post("/customers/external-accounts", handler(s.createCustomerExternalAccount))
		r.Get("/customers/external-accounts", handler(s.listCustomerExternalAccounts))
		r.Get("/customers/external-accounts/{externalAccountId}", s.getExternalAccount(false))
		r.With(manage).Delete("/customers/external-accounts/{externalAccountId}", s.deleteExternalAccount(false))
		r.With(manage, transact).Post("/platform/external-accounts", handler(s.createPlatformExternalAccount))
		r.Get("/platform/external-accounts", handler(s.listPlatformExternalAccounts))
		r.Get("/platform/external-accounts/{externalAccountId}", s.getExternalAccount(true))
		r.With(manage, transact).Post("/customers/external-accounts/{externalAccountId}/challenge", s.challengeOwnership(false))
		r.With(manage, transact).Post("/customers/external-accounts/{externalAccountId}/verify", s.verifyOwnership(false))
		r.With(manage, transact).Post("/platform/external-accounts/{externalAccountId}/challenge", s.challengeOwnership(true))
		r.With(manage, transact).Post("/platform/external-accounts/{externalAccountId}/verify", s.verifyOwnership(true))
		r.With(manage).Delete("/platform/external-accounts/{externalAccountId}", s.deleteExternalAccount(true))
		r.With(transact, s.idempotent, keepBody).Post("/transfer-out", handler(s.transferOut))
		r.With(transact, s.idempotent).Post("/transfer-in", handler(s.transferIn))
		r.With(manage, keepBody).Post("/auth/credentials", handler(s.createCredential))
		r.Get("/auth/credentials", handler(s.listCredentials))
		r.With(manage, keepBody).Delete("/auth/credentials/{id}", handler(s.deleteCredential))
		r.With(manage).Post("/auth/credentials/{id}/challenge", handler(s.challengeCredential))
		r.With(manage, keepBody).Post("/auth/credentials/{id}/verify", handler(s.verifyCredential))
		r.Get("/auth/sessions", handler(s.listSessions))
		r.With(manage, keepBody).Delete("/auth/sessions/{id}", handler(s.deleteSession))
		r.With(manage, keepBody).Post("/auth/sessions/{id}/refresh", handler(s.refreshSession))
		r.With(manage, transact, keepBody).Post("/internal-accounts/{id}/export", handler(s.exportWallet))
		r.With(transact, s.idempotent).Post("/quotes", handler(s.createQuote))
		r.Get("/quotes/{quoteId}", handler(s.getQuote))
		r.Get("/receiver/uma/{receiverUmaAddress}", handler(s.lookupUmaReceiver))
		r.Get("/receiver/external-account/{accountId}", handler(s.lookupExternalReceiver))
		r.With(transact, s.idempotent, noBody).Post("/quotes/{quoteId}/execute", handler(s.handleQuoteExecute))
		r.With(transact, sandboxOnly, s.idempotent).Post("/sandbox/send", handler(s.sandboxSend))
		r.Get("/transactions", handler(s.listTransactions))
		r.Get("/transactions/{transactionId}", handler(s.getTransaction))
		r.With(transact).Post("/transactions/{transactionId}/approve", handler(s.approveTransaction))
		r.With(transact).Post("/transactions/{transactionId}/reject", handler(s.rejectTransaction))
		r.With(transact).Post("/transactions/{transactionId}/cancel", handler(s.cancelTransaction))
		r.With(transact).Post("/transactions/{transactionId}/refund", handler(s.refundTransaction))
		r.With(transact, sandboxOnly, s.idempotent).Post("/sandbox/uma/receive", handler(s.sandboxUmaReceive))
		r.With(transact, s.idempotent).Post("/invitations", handler(s.createInvitation))
		r.Get("/invitations/{invitationCode}", handler(s.getInvitation))
		r.With(transact, s.idempotent).Post("/invitations/{invitationCode}/claim", handler(s.claimInvitation))
		r.With(transact, s.idempotent, noBody).Post("/invitations/{invitationCode}/cancel", handler(s.cancelInvitation))

		r.With(manage).Post("/documents", handler(s.uploadDocument))
		r.Get("/documents", handler(s.listDocuments))
		r.Get("/documents/{documentId}", handler(s.getDocument))
		r.With(manage).Put("/documents/{documentId}", handler(s.replaceDocument))
		r.With(manage).Delete("/documents/{documentId}", handler(s.deleteDocument))

		r.With(manage).Post(bulkUploadRoute, handler(s.uploadCustomersCSV))
		r.Get("/customers/bulk/jobs/{jobId}", handler(s.getBulkImportJob))

		r.With(manage, s.idempotent).Post("/webhooks/test", handler(s.testWebhook))
		r.With(manage, sandboxOnly, s.idempotent).Post("/sandbox/webhooks/test", handler(s.testWebhook))
		r.Get("/webhooks/events", handler(s.listWebhookEvents))
		r.Get("/webhooks/events/stream", handler(s.streamWebhookEvents))
		r.Get("/webhooks/events/{eventId}", handler(s.getWebhookEvent))
		r.With(manage, s.idempotent).Post("/webhooks/events/{eventId}/redeliver", handler(s.redeliverWebhook))
		r.Get("/webhooks/signing-key", handler(s.getSigningKey))
		r.With(manage).Get("/webhooks/secret", handler(s.getWebhookSecret))
		r.With(manage, s.idempotent).Post("/webhooks/secret/rotate", handler(s.rotateWebhookSecret))

		s.agentPlatformRoutes(r)
	})
	return r
}

// bodyLimitOf is the body limit of a request: PAYCORE_MAX_BODY_BYTES, but on the two
// routes whose body carries a document file (POST /documents, PUT /documents/{id}) a
// little more than the largest file, on the hosted KYC page's form a few of them, and
// PAYCORE_BULK_IMPORT_MAX_BYTES for the CSV upload of a bulk customer import.
func (s *Server) bodyLimitOf(r *http.Request) int64 {
	switch {
	case s.isDocumentUpload(r):
		return max(s.Config.MaxBodyBytes, document.MaxFileBytes+documentBodyOverhead)
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, kycPagePath):
		return max(s.Config.MaxBodyBytes, kycPageMaxFiles*(document.MaxFileBytes+documentBodyOverhead))
	case r.Method == http.MethodPost && r.URL.Path == s.Config.BasePath()+bulkUploadRoute:
		return s.Config.BulkImportMaxBytes
	}
	return s.Config.MaxBodyBytes
}

func (s *Server) webhookRetry() workflows.WebhookRetry {
	return workflows.WebhookRetry{Initial: s.Config.WebhookRetryStart, MaxInterval: s.Config.WebhookRetryMax, MaxAge: s.Config.WebhookRetryAge}
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	checks := map[string]string{"postgres": "ok", "temporal": "ok"}
	status := http.StatusOK
	if err := s.Pool.Ping(ctx); err != nil {
		checks["postgres"] = err.Error()
		status = http.StatusServiceUnavailable
	}
	if _, err := s.Temporal.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		checks["temporal"] = err.Error()
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, map[string]any{"status": map[bool]string{true: "ready", false: "unavailable"}[status == 200], "checks": checks,
		"rails": s.Rails.Configured()})
	return nil
}

func requestIDHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", middleware.GetReqID(r.Context()))
		next.ServeHTTP(w, r)
	})
}

// recoverer turns a panic into a logged 500 in the error envelope.
func recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				writeError(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// unreadBodyGrace is how long the server still reads a request body that the answer left
// unread before the connection is closed: long enough for a body already on its way (so the
// client gets the answer rather than a reset), short enough that a client dribbling a body
// is not served any longer.
const unreadBodyGrace = time.Second

// bodyLimit caps request bodies at limit(r) bytes: a declared Content-Length over it is
// answered 413 at once, and a body that turns out longer while it is read fails with an
// *http.MaxBytesError that bodyReadError turns into the same 413.
//
// It also makes sure that no body is read for a request that was answered without it (a
// 401 from authenticate, a 403, a 404, a 413): such an answer is sent at once with
// "Connection: close", and the connection is given unreadBodyGrace to deliver what is still
// in flight. Without this the server drains up to 256 KiB of an unread body before it sends
// the answer, for as long as the client cares to take.
func bodyLimit(limit func(*http.Request) int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength == 0 { // no body (http.NoBody)
				next.ServeHTTP(w, r)
				return
			}
			n := limit(r)
			if r.ContentLength > n {
				closeUnread(w, wall())
				writeError(w, r, bodyTooLarge(n))
				return
			}
			body := &trackedBody{ReadCloser: http.MaxBytesReader(w, r.Body, n)}
			r.Body = body
			g := &unreadGuard{ResponseWriter: w, body: body}
			next.ServeHTTP(g, r)
			if !g.wrote {
				g.WriteHeader(http.StatusOK) // what the server would answer; with the same check
			}
		})
	}
}

// bodyTooLarge is the answer to a request body over limit bytes: 413 PAYLOAD_TOO_LARGE.
func bodyTooLarge(limit int64) *Error {
	return refusal(catalog.PayloadTooLarge, fmt.Sprintf("request body is larger than %d bytes", limit), nil)
}

// bodyReadError is the answer to a failed read of the request body: 413 when it went past
// the limit (*http.MaxBytesError), otherwise 400 (cut short, malformed chunking, or not
// arriving within PAYCORE_HTTP_READ_TIMEOUT).
func bodyReadError(err error) *Error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return bodyTooLarge(mbe.Limit)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return invalid("the request body did not arrive in time")
	}
	return invalid("could not read the request body: it is incomplete or malformed")
}

// closeUnread prepares an answer that leaves the request body unread: the connection is
// closed after it, and what remains of the body is read for at most unreadBodyGrace.
func closeUnread(w http.ResponseWriter, now time.Time) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(now.Add(unreadBodyGrace))
}

// trackedBody records whether the request body was read to its end.
type trackedBody struct {
	io.ReadCloser
	eof atomic.Bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof.Store(true)
	}
	return n, err
}

// unreadGuard applies closeUnread when the answer starts before the body was read.
type unreadGuard struct {
	http.ResponseWriter
	body  *trackedBody
	wrote bool
}

func (g *unreadGuard) WriteHeader(code int) {
	if !g.wrote && code >= 200 {
		g.wrote = true
		if !g.body.eof.Load() {
			closeUnread(g.ResponseWriter, wall())
		}
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *unreadGuard) Write(p []byte) (int, error) {
	if !g.wrote {
		g.WriteHeader(http.StatusOK)
	}
	return g.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (g *unreadGuard) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// observe records metrics and an access log line per request.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := wall()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		route := chi.RouteContext(r.Context()).RoutePattern()
		if route == "" {
			route = "unmatched"
		}
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		elapsed := wall().Sub(start)
		if span := trace.SpanFromContext(r.Context()); span.IsRecording() {
			span.SetName(r.Method + " " + route)
			span.SetAttributes(attribute.String("http.route", route))
		}
		s.Metrics.Requests.WithLabelValues(r.Method, route, fmt.Sprint(status)).Inc()
		s.Metrics.Latency.WithLabelValues(r.Method, route).Observe(elapsed.Seconds())
		s.Logger.LogAttrs(r.Context(), slog.LevelDebug, "request", slog.String("method", r.Method), slog.String("route", route),
			slog.Int("status", status), slog.Duration("elapsed", elapsed), slog.String("request_id", middleware.GetReqID(r.Context())))
	})
}

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
