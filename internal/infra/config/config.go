// Package config reads the service configuration from environment variables. Every
// variable has a default suited to local development; docs/operations/configuration.md lists them all.
package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"paycore/internal/fx"
	"paycore/internal/kit/clientip"
	"paycore/internal/paylimits"
	"paycore/internal/rail"
)

// Config is the whole service configuration.
type Config struct {
	DatabaseURL      string // PAYCORE_DATABASE_URL
	DatabaseMaxConns int32  // PAYCORE_DATABASE_MAX_CONNS
	HTTPAddr         string // PAYCORE_HTTP_ADDR
	// TLSCertFile and TLSKeyFile are the certificate chain and its key (PEM files) the API
	// serves HTTPS with (PAYCORE_TLS_CERT, PAYCORE_TLS_KEY; both or neither: without them
	// it serves plain HTTP, for a proxy in front that terminates TLS).
	TLSCertFile, TLSKeyFile string
	// OutboundRoots is a PEM file of certificate authorities that the requests the service
	// makes to domains platforms and other UMA providers name trust besides the system's
	// (PAYCORE_OUTBOUND_ROOTS): a private network's authority.
	OutboundRoots     string
	APIPrefix         string        // PAYCORE_API_PREFIX: path before the version segment
	PublicBaseURL     string        // PAYCORE_PUBLIC_BASE_URL: how clients reach the API (printed, used in docs)
	TemporalAddress   string        // PAYCORE_TEMPORAL_ADDRESS
	TemporalNamespace string        // PAYCORE_TEMPORAL_NAMESPACE
	TaskQueue         string        // PAYCORE_TASK_QUEUE
	MasterKey         string        // PAYCORE_MASTER_KEY: base64 32 bytes sealing secrets at rest
	MaxBodyBytes      int64         // PAYCORE_MAX_BODY_BYTES
	IdempotencyTTL    time.Duration // PAYCORE_IDEMPOTENCY_TTL
	IdempotencyWait   time.Duration // PAYCORE_IDEMPOTENCY_WAIT: how long a duplicate waits for the first
	WebhookTimeout    time.Duration // PAYCORE_WEBHOOK_TIMEOUT
	WebhookRetryStart time.Duration // PAYCORE_WEBHOOK_RETRY_INITIAL
	WebhookRetryMax   time.Duration // PAYCORE_WEBHOOK_RETRY_MAX_INTERVAL
	WebhookRetryAge   time.Duration // PAYCORE_WEBHOOK_RETRY_MAX_AGE
	SandboxPrivateOK  bool          // PAYCORE_SANDBOX_WEBHOOKS_ALLOW_PRIVATE
	// Resolve maps host:port to the address the service dials instead when it reaches
	// other UMA providers, platforms' domains and Lightning address services (PAYCORE_RESOLVE, "host:port=ip:port,…",
	// as curl --resolve): for tests and staging networks without DNS. The outbound-address
	// guard still checks the address dialed.
	Resolve map[string]string
	// UmaProxyDomain is the domain under which each platform's proxyUmaSubdomain is served
	// (PAYCORE_UMA_PROXY_DOMAIN, e.g. uma.example.net: a platform with subdomain acme is
	// served at acme.uma.example.net, where its own umaDomain proxies UMA requests); unset,
	// proxy subdomains are not served.
	UmaProxyDomain string
	// UmaAllowlistOnly makes the deployment transact over UMA only with the providers the
	// operator listed as allowed (PAYCORE_UMA_ALLOWLIST_ONLY); otherwise with any but those
	// it blocked.
	UmaAllowlistOnly bool
	SandboxSlowDelay time.Duration // PAYCORE_SANDBOX_SLOW_DELAY: how long the sandbox's "pending, then fails" scenario waits
	// QuoteLifetime is how long a quote can be executed (PAYCORE_QUOTE_LIFETIME).
	QuoteLifetime time.Duration
	// QuoteSlowDelay is how long the sandbox's slow quote (suffix 003) stays pending
	// (PAYCORE_SANDBOX_QUOTE_SLOW_DELAY); QuoteReturnDelay how long a payment the receiving
	// bank returns (005) stays completed first (PAYCORE_SANDBOX_QUOTE_RETURN_DELAY).
	QuoteSlowDelay   time.Duration
	QuoteReturnDelay time.Duration
	// QuoteLateDeposits is how long after a REALTIME_FUNDING quote expired a deposit for
	// it is still taken in and sent back (PAYCORE_QUOTE_LATE_DEPOSIT_WINDOW).
	QuoteLateDeposits time.Duration
	// ApprovalDeadline is how long a platform that answered 202 to an incoming payment's
	// approval webhook has to approve or reject it (PAYCORE_APPROVAL_DEADLINE).
	ApprovalDeadline time.Duration
	// UmaInvoiceExpiry is how long the invoice answering another UMA provider's pay request
	// stays payable: how long the conversion it locks holds (PAYCORE_UMA_INVOICE_EXPIRY).
	UmaInvoiceExpiry time.Duration
	// KycReviewDelay is how long the sandbox verification provider takes to review a
	// customer or a beneficial owner (PAYCORE_SANDBOX_KYC_REVIEW_DELAY).
	KycReviewDelay time.Duration
	// KycLinkLifetime is how long a hosted KYC link can be used (PAYCORE_KYC_LINK_LIFETIME).
	KycLinkLifetime time.Duration
	WorkerPollers   int // PAYCORE_WORKER_POLLERS
	// WorkerBuildID turns on Worker Deployment Versioning (PAYCORE_WORKER_BUILD_ID): the
	// worker polls as this build of the WorkerDeployment deployment
	// (PAYCORE_WORKER_DEPLOYMENT), and WorkerPromote (PAYCORE_WORKER_PROMOTE) makes it the
	// deployment's current version once it polls. Empty: an unversioned worker.
	WorkerBuildID    string
	WorkerDeployment string
	WorkerPromote    bool
	MailFrom         string // PAYCORE_MAIL_FROM: sender of one-time codes
	SMTPHost         string // PAYCORE_SMTP_HOST: empty sends mail to the development sink
	SMTPPort         int    // PAYCORE_SMTP_PORT
	SMTPUsername     string // PAYCORE_SMTP_USERNAME
	SMTPPassword     string // PAYCORE_SMTP_PASSWORD
	SMTPTLS          string // PAYCORE_SMTP_TLS: starttls, tls or none
	SMSURL           string // PAYCORE_SMS_URL: the SMS gateway (empty sends text messages to the development sink)
	SMSToken         string // PAYCORE_SMS_TOKEN: the gateway's bearer token
	LogLevel         string // PAYCORE_LOG_LEVEL
	DataDir          string // PAYCORE_DATA_DIR: `dev` keeps Temporal's SQLite file and generated secrets here
	TemporalCLI      string // PAYCORE_TEMPORAL_CLI: the pinned Temporal CLI used by `dev`
	TemporalUIPort   int    // PAYCORE_TEMPORAL_UI_PORT
	// DocumentsURL is where uploaded document files are kept, encrypted: a directory, a
	// file:// URL or an s3:// URL (PAYCORE_DOCUMENTS_URL); empty is DataDir/documents.
	DocumentsURL string

	// The API listener's connection limits: a request's headers must arrive within
	// HTTPReadHeaderTimeout and the whole request (body included) within HTTPReadTimeout;
	// the answer must be written within HTTPWriteTimeout of the headers' arrival; an idle
	// keep-alive connection is closed after HTTPIdleTimeout; headers larger than
	// HTTPMaxHeaderBytes are refused with 431.
	HTTPReadHeaderTimeout time.Duration // PAYCORE_HTTP_READ_HEADER_TIMEOUT
	HTTPReadTimeout       time.Duration // PAYCORE_HTTP_READ_TIMEOUT
	HTTPWriteTimeout      time.Duration // PAYCORE_HTTP_WRITE_TIMEOUT
	HTTPIdleTimeout       time.Duration // PAYCORE_HTTP_IDLE_TIMEOUT
	HTTPMaxHeaderBytes    int           // PAYCORE_HTTP_MAX_HEADER_BYTES
	// MetricsAddr is where /metrics is served, on a listener of its own; empty when
	// disabled (PAYCORE_METRICS_ADDR set to "off" or to the empty string).
	MetricsAddr string // PAYCORE_METRICS_ADDR
	// OTLPEndpoint is the OTLP/HTTP collector traces are exported to (for example
	// http://otel-collector:4318); empty, the default, exports nothing and records no spans.
	OTLPEndpoint string // PAYCORE_OTEL_EXPORTER_OTLP_ENDPOINT
	// OTelServiceName is the service.name of exported spans.
	OTelServiceName string // PAYCORE_OTEL_SERVICE_NAME
	// StuckPaymentAfter is how long an open transaction may go unchanged before the
	// paycore_stuck_payments gauge counts it.
	StuckPaymentAfter time.Duration // PAYCORE_STUCK_PAYMENT_AFTER

	// FXRatesFile is the operator's rate table (JSON: currency code → units per US
	// dollar) over the built-in one; empty keeps the built-in rates.
	FXRatesFile string // PAYCORE_FX_RATES_FILE
	// FXPricing is what the service charges on conversions: PAYCORE_FX_SPREAD (fraction of
	// the mid-market rate), PAYCORE_FX_FIXED_FEE_USD (per payment, in US dollars, charged in
	// the sending currency) and PAYCORE_FX_VARIABLE_FEE (fraction of the converted amount).
	FXPricing fx.Pricing
	// PaymentLimits are the deployment's limits per sending currency (PAYCORE_PAYMENT_LIMITS,
	// JSON: currency code → {maxTransaction, dailyVolume} in minor units; none by default).
	PaymentLimits paylimits.Limits

	// EndUserTermsVersion is the version of the End User Terms the deployment publishes, the
	// one customers accept (PAYCORE_END_USER_TERMS_VERSION); EndUserTermsURL is where its text
	// is (PAYCORE_END_USER_TERMS_URL; see EndUserTerms for the default).
	EndUserTermsVersion string
	EndUserTermsURL     string

	// InvitationBaseURL is where invitees open invitations: an invitation's url is its code
	// under it (PAYCORE_INVITATION_BASE_URL; see InvitationBase for the default).
	InvitationBaseURL string
	// Bulk customer imports (POST /customers/bulk/csv): the upload's body limit
	// (PAYCORE_BULK_IMPORT_MAX_BYTES, instead of MaxBodyBytes on that route only) and how
	// long the upload may take to arrive and be answered (PAYCORE_BULK_IMPORT_UPLOAD_TIMEOUT,
	// instead of the read and write timeouts); the rows one batch imports
	// (PAYCORE_BULK_IMPORT_BATCH_SIZE) and the batches a workflow run takes before it
	// continues as new (PAYCORE_BULK_IMPORT_BATCHES_PER_RUN).
	BulkImportMaxBytes      int64
	BulkImportUploadTimeout time.Duration
	BulkImportBatchSize     int
	BulkImportBatchesPerRun int

	// Agents: how long a device code can be redeemed (PAYCORE_AGENT_DEVICE_CODE_LIFETIME)
	// and the limits on redeem attempts, counted in Postgres across instances: per source
	// address (PAYCORE_AGENT_REDEEM_LIMIT_PER_ADDRESS) and per code
	// (PAYCORE_AGENT_REDEEM_LIMIT_PER_CODE) in each window (PAYCORE_AGENT_REDEEM_WINDOW).
	AgentDeviceCodeLifetime time.Duration
	AgentRedeemPerAddress   int
	AgentRedeemPerCode      int
	AgentRedeemWindow       time.Duration
	// Documents: how many a customer and its beneficial owners hold at most
	// (PAYCORE_DOCUMENTS_PER_CUSTOMER, through the API and the hosted KYC page alike), how
	// many files one KYC link stores over all its submissions
	// (PAYCORE_KYC_LINK_DOCUMENTS), and how many submissions one KYC link takes in each
	// window (PAYCORE_KYC_LINK_SUBMISSIONS per PAYCORE_KYC_LINK_SUBMISSION_WINDOW).
	DocumentsPerCustomer    int
	KycLinkDocuments        int
	KycLinkSubmissions      int
	KycLinkSubmissionWindow time.Duration
	// AgentApprovalLifetime is how long an agent's action that needs the platform's
	// approval waits for it before it fails (PAYCORE_AGENT_APPROVAL_LIFETIME).
	AgentApprovalLifetime time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is believed when a
	// request's source address is decided (PAYCORE_TRUSTED_PROXIES: CIDR prefixes or
	// addresses, comma-separated); none by default, so the source is the peer address.
	TrustedProxies []netip.Prefix

	// TemporalSecurity is TLS, mutual TLS and the API key of the connection to Temporal
	// (PAYCORE_TEMPORAL_TLS*, PAYCORE_TEMPORAL_API_KEY*).
	TemporalSecurity TemporalSecurity

	// Rails is which payment rail serves which payments, per environment, currency and
	// kind of destination (PAYCORE_RAILS; see docs/rails.md).
	Rails []rail.Route
	// LND is the deployment's Lightning node (PAYCORE_LND_*); when one is configured and
	// PAYCORE_RAILS is not set, production BTC payouts to LIGHTNING accounts go to it.
	LND LND
}

// Defaults returns the configuration used when no variable is set.
func Defaults() Config {
	return Config{
		DatabaseURL:         "postgres://postgres@127.0.0.1:5432/paycore?sslmode=disable",
		DatabaseMaxConns:    32,
		EndUserTermsVersion: "2026-11-01",
		HTTPAddr:            "127.0.0.1:8080",
		APIPrefix:           "/api",
		TemporalAddress:     "127.0.0.1:7233",
		TemporalNamespace:   "default",
		TaskQueue:           "paycore",
		MaxBodyBytes:        1 << 20,
		IdempotencyTTL:      24 * time.Hour,
		IdempotencyWait:     5 * time.Second,
		WebhookTimeout:      10 * time.Second,
		WebhookRetryStart:   5 * time.Second,
		WebhookRetryMax:     30 * time.Minute,
		WebhookRetryAge:     7 * 24 * time.Hour,
		SandboxSlowDelay:    30 * time.Second,
		QuoteLifetime:       5 * time.Minute,
		QuoteSlowDelay:      6 * time.Minute,
		QuoteReturnDelay:    30 * time.Second,
		QuoteLateDeposits:   24 * time.Hour,
		ApprovalDeadline:    5 * time.Second,
		UmaInvoiceExpiry:    10 * time.Minute,
		KycReviewDelay:      3 * time.Second,
		KycLinkLifetime:     24 * time.Hour,
		WorkerPollers:       16,
		WorkerDeployment:    "paycore",
		MailFrom:            "no-reply@paycore.localhost",
		SMTPPort:            587,
		SMTPTLS:             "starttls",
		LogLevel:            "info",
		DataDir:             ".data",
		TemporalCLI:         "bin/temporal",
		TemporalUIPort:      8233,

		HTTPReadHeaderTimeout: 10 * time.Second,
		HTTPReadTimeout:       30 * time.Second,
		HTTPWriteTimeout:      60 * time.Second,
		HTTPIdleTimeout:       120 * time.Second,
		HTTPMaxHeaderBytes:    64 << 10,
		MetricsAddr:           "127.0.0.1:9090",
		OTelServiceName:       "paycore",
		StuckPaymentAfter:     30 * time.Minute,
		FXPricing:             fx.DefaultPricing(),

		BulkImportMaxBytes:      100 << 20,
		BulkImportUploadTimeout: 10 * time.Minute,
		BulkImportBatchSize:     2000,
		BulkImportBatchesPerRun: 20,

		AgentDeviceCodeLifetime: 15 * time.Minute,
		AgentRedeemPerAddress:   10,
		AgentRedeemPerCode:      5,
		AgentRedeemWindow:       15 * time.Minute,
		AgentApprovalLifetime:   24 * time.Hour,

		DocumentsPerCustomer:    30,
		KycLinkDocuments:        12,
		KycLinkSubmissions:      5,
		KycLinkSubmissionWindow: time.Hour,

		Rails: defaultRails(),
		LND:   LND{PaymentTimeout: 30 * time.Second},
	}
}

// defaultRails is rail.DefaultRoutes: the sandbox rail for sandbox platforms, none for
// production.
func defaultRails() []rail.Route {
	routes, err := rail.ParseRoutes(rail.DefaultRoutes)
	if err != nil {
		panic(err) // a constant
	}
	return routes
}

// Load reads the environment over the defaults.
func Load() (Config, error) { return LoadLookup(os.LookupEnv) }

// LoadFrom reads configuration through getenv (tests pass a map lookup). An empty value
// counts as unset.
func LoadFrom(getenv func(string) string) (Config, error) {
	return LoadLookup(func(name string) (string, bool) {
		v := getenv(name)
		return v, v != ""
	})
}

// LoadLookup reads configuration through lookup (os.LookupEnv). Empty values count as
// unset, except for PAYCORE_METRICS_ADDR, where set-but-empty turns the listener off, and
// PAYCORE_RAILS, where set-but-empty configures no rail.
func LoadLookup(lookup func(string) (string, bool)) (Config, error) {
	getenv := func(name string) string {
		v, _ := lookup(name)
		return v
	}
	c := Defaults()
	var errs []string
	str := func(name string, dst *string) {
		if v := getenv(name); v != "" {
			*dst = v
		}
	}
	dur := func(name string, dst *time.Duration) {
		if v := getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				errs = append(errs, fmt.Sprintf("%s=%q is not a positive duration", name, v))
				return
			}
			*dst = d
		}
	}
	integer := func(name string, dst *int64) {
		if v := getenv(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				errs = append(errs, fmt.Sprintf("%s=%q is not a positive integer", name, v))
				return
			}
			*dst = n
		}
	}
	boolean := func(name string, dst *bool) {
		if v := getenv(name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s=%q is not a boolean", name, v))
				return
			}
			*dst = b
		}
	}
	str("PAYCORE_DATABASE_URL", &c.DatabaseURL)
	maxConns := int64(c.DatabaseMaxConns)
	integer("PAYCORE_DATABASE_MAX_CONNS", &maxConns)
	c.DatabaseMaxConns = int32(min(maxConns, 1000))
	str("PAYCORE_HTTP_ADDR", &c.HTTPAddr)
	str("PAYCORE_TLS_CERT", &c.TLSCertFile)
	str("PAYCORE_TLS_KEY", &c.TLSKeyFile)
	str("PAYCORE_OUTBOUND_ROOTS", &c.OutboundRoots)
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		errs = append(errs, "PAYCORE_TLS_CERT and PAYCORE_TLS_KEY are set together or not at all")
	}
	dur("PAYCORE_HTTP_READ_HEADER_TIMEOUT", &c.HTTPReadHeaderTimeout)
	dur("PAYCORE_HTTP_READ_TIMEOUT", &c.HTTPReadTimeout)
	dur("PAYCORE_HTTP_WRITE_TIMEOUT", &c.HTTPWriteTimeout)
	dur("PAYCORE_HTTP_IDLE_TIMEOUT", &c.HTTPIdleTimeout)
	headerBytes := int64(c.HTTPMaxHeaderBytes)
	integer("PAYCORE_HTTP_MAX_HEADER_BYTES", &headerBytes)
	c.HTTPMaxHeaderBytes = int(min(headerBytes, 1<<30))
	if v, ok := lookup("PAYCORE_METRICS_ADDR"); ok {
		c.MetricsAddr = strings.TrimSpace(v)
		if strings.EqualFold(c.MetricsAddr, "off") {
			c.MetricsAddr = ""
		}
	}
	str("PAYCORE_OTEL_EXPORTER_OTLP_ENDPOINT", &c.OTLPEndpoint)
	if c.OTLPEndpoint != "" {
		if u, err := url.Parse(c.OTLPEndpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Sprintf("PAYCORE_OTEL_EXPORTER_OTLP_ENDPOINT=%q is not an http(s) URL such as http://otel-collector:4318", c.OTLPEndpoint))
		}
	}
	str("PAYCORE_OTEL_SERVICE_NAME", &c.OTelServiceName)
	dur("PAYCORE_STUCK_PAYMENT_AFTER", &c.StuckPaymentAfter)
	str("PAYCORE_API_PREFIX", &c.APIPrefix)
	str("PAYCORE_PUBLIC_BASE_URL", &c.PublicBaseURL)
	str("PAYCORE_TEMPORAL_ADDRESS", &c.TemporalAddress)
	str("PAYCORE_TEMPORAL_NAMESPACE", &c.TemporalNamespace)
	var tlsErrs []string
	c.TemporalSecurity, tlsErrs = loadTemporalSecurity(getenv)
	errs = append(errs, tlsErrs...)
	str("PAYCORE_TASK_QUEUE", &c.TaskQueue)
	str("PAYCORE_MASTER_KEY", &c.MasterKey)
	integer("PAYCORE_MAX_BODY_BYTES", &c.MaxBodyBytes)
	dur("PAYCORE_IDEMPOTENCY_TTL", &c.IdempotencyTTL)
	dur("PAYCORE_IDEMPOTENCY_WAIT", &c.IdempotencyWait)
	dur("PAYCORE_WEBHOOK_TIMEOUT", &c.WebhookTimeout)
	dur("PAYCORE_WEBHOOK_RETRY_INITIAL", &c.WebhookRetryStart)
	dur("PAYCORE_WEBHOOK_RETRY_MAX_INTERVAL", &c.WebhookRetryMax)
	dur("PAYCORE_WEBHOOK_RETRY_MAX_AGE", &c.WebhookRetryAge)
	boolean("PAYCORE_SANDBOX_WEBHOOKS_ALLOW_PRIVATE", &c.SandboxPrivateOK)
	boolean("PAYCORE_UMA_ALLOWLIST_ONLY", &c.UmaAllowlistOnly)
	str("PAYCORE_UMA_PROXY_DOMAIN", &c.UmaProxyDomain)
	c.UmaProxyDomain = strings.ToLower(strings.TrimSuffix(c.UmaProxyDomain, "."))
	if v := getenv("PAYCORE_RESOLVE"); v != "" {
		var bad []string
		if c.Resolve, bad = parseResolve(v); len(bad) > 0 {
			errs = append(errs, fmt.Sprintf("PAYCORE_RESOLVE: %q are not host:port=ip:port", bad))
		}
	}
	dur("PAYCORE_SANDBOX_SLOW_DELAY", &c.SandboxSlowDelay)
	dur("PAYCORE_QUOTE_LIFETIME", &c.QuoteLifetime)
	dur("PAYCORE_SANDBOX_QUOTE_SLOW_DELAY", &c.QuoteSlowDelay)
	dur("PAYCORE_SANDBOX_QUOTE_RETURN_DELAY", &c.QuoteReturnDelay)
	dur("PAYCORE_QUOTE_LATE_DEPOSIT_WINDOW", &c.QuoteLateDeposits)
	dur("PAYCORE_APPROVAL_DEADLINE", &c.ApprovalDeadline)
	dur("PAYCORE_UMA_INVOICE_EXPIRY", &c.UmaInvoiceExpiry)
	str("PAYCORE_INVITATION_BASE_URL", &c.InvitationBaseURL)
	str("PAYCORE_END_USER_TERMS_VERSION", &c.EndUserTermsVersion)
	str("PAYCORE_END_USER_TERMS_URL", &c.EndUserTermsURL)
	dur("PAYCORE_SANDBOX_KYC_REVIEW_DELAY", &c.KycReviewDelay)
	dur("PAYCORE_KYC_LINK_LIFETIME", &c.KycLinkLifetime)
	pollers := int64(c.WorkerPollers)
	integer("PAYCORE_WORKER_POLLERS", &pollers)
	c.WorkerPollers = int(min(pollers, 256))
	str("PAYCORE_WORKER_BUILD_ID", &c.WorkerBuildID)
	str("PAYCORE_WORKER_DEPLOYMENT", &c.WorkerDeployment)
	boolean("PAYCORE_WORKER_PROMOTE", &c.WorkerPromote)
	str("PAYCORE_MAIL_FROM", &c.MailFrom)
	str("PAYCORE_SMTP_HOST", &c.SMTPHost)
	smtpPort := int64(c.SMTPPort)
	integer("PAYCORE_SMTP_PORT", &smtpPort)
	c.SMTPPort = int(smtpPort)
	str("PAYCORE_SMTP_USERNAME", &c.SMTPUsername)
	str("PAYCORE_SMTP_PASSWORD", &c.SMTPPassword)
	str("PAYCORE_SMTP_TLS", &c.SMTPTLS)
	str("PAYCORE_SMS_URL", &c.SMSURL)
	str("PAYCORE_SMS_TOKEN", &c.SMSToken)
	if c.SMSURL != "" && !strings.HasPrefix(c.SMSURL, "https://") && !strings.HasPrefix(c.SMSURL, "http://") {
		errs = append(errs, "PAYCORE_SMS_URL must be an http(s) URL")
	}
	if c.SMTPTLS != "starttls" && c.SMTPTLS != "tls" && c.SMTPTLS != "none" {
		errs = append(errs, "PAYCORE_SMTP_TLS must be starttls, tls or none")
	}
	str("PAYCORE_LOG_LEVEL", &c.LogLevel)
	str("PAYCORE_DATA_DIR", &c.DataDir)
	str("PAYCORE_DOCUMENTS_URL", &c.DocumentsURL)
	str("PAYCORE_TEMPORAL_CLI", &c.TemporalCLI)
	uiPort := int64(c.TemporalUIPort)
	integer("PAYCORE_TEMPORAL_UI_PORT", &uiPort)
	c.TemporalUIPort = int(uiPort)

	integer("PAYCORE_BULK_IMPORT_MAX_BYTES", &c.BulkImportMaxBytes)
	dur("PAYCORE_BULK_IMPORT_UPLOAD_TIMEOUT", &c.BulkImportUploadTimeout)
	batch, perRun := int64(c.BulkImportBatchSize), int64(c.BulkImportBatchesPerRun)
	integer("PAYCORE_BULK_IMPORT_BATCH_SIZE", &batch)
	integer("PAYCORE_BULK_IMPORT_BATCHES_PER_RUN", &perRun)
	c.BulkImportBatchSize, c.BulkImportBatchesPerRun = int(min(batch, 5000)), int(min(perRun, 1000))

	dur("PAYCORE_AGENT_DEVICE_CODE_LIFETIME", &c.AgentDeviceCodeLifetime)
	dur("PAYCORE_AGENT_REDEEM_WINDOW", &c.AgentRedeemWindow)
	dur("PAYCORE_AGENT_APPROVAL_LIFETIME", &c.AgentApprovalLifetime)
	perAddress, perCode := int64(c.AgentRedeemPerAddress), int64(c.AgentRedeemPerCode)
	integer("PAYCORE_AGENT_REDEEM_LIMIT_PER_ADDRESS", &perAddress)
	integer("PAYCORE_AGENT_REDEEM_LIMIT_PER_CODE", &perCode)
	c.AgentRedeemPerAddress, c.AgentRedeemPerCode = int(min(perAddress, 1_000_000)), int(min(perCode, 1_000_000))
	perCustomer, perLink, submissions := int64(c.DocumentsPerCustomer), int64(c.KycLinkDocuments), int64(c.KycLinkSubmissions)
	integer("PAYCORE_DOCUMENTS_PER_CUSTOMER", &perCustomer)
	integer("PAYCORE_KYC_LINK_DOCUMENTS", &perLink)
	integer("PAYCORE_KYC_LINK_SUBMISSIONS", &submissions)
	c.DocumentsPerCustomer, c.KycLinkDocuments, c.KycLinkSubmissions = int(min(perCustomer, 1_000_000)), int(min(perLink, 1_000_000)), int(min(submissions, 1_000_000))
	dur("PAYCORE_KYC_LINK_SUBMISSION_WINDOW", &c.KycLinkSubmissionWindow)
	if v := getenv("PAYCORE_TRUSTED_PROXIES"); v != "" {
		prefixes, bad, ok := clientip.ParsePrefixes(v)
		if !ok {
			errs = append(errs, fmt.Sprintf("PAYCORE_TRUSTED_PROXIES: %q is neither an IP address nor a CIDR prefix", bad))
		}
		c.TrustedProxies = prefixes
	}

	errs = append(errs, loadLND(getenv, &c.LND)...)
	if v, ok := lookup("PAYCORE_RAILS"); ok { // set but empty: no rail at all
		routes, err := rail.ParseRoutes(v)
		if err != nil {
			errs = append(errs, "PAYCORE_RAILS: "+err.Error())
		}
		c.Rails = routes
	} else if c.LND.Configured() {
		c.Rails = append(c.Rails, lightningRoutes...)
	}

	str("PAYCORE_FX_RATES_FILE", &c.FXRatesFile)
	for name, dst := range map[string]*decimal.Decimal{"PAYCORE_FX_SPREAD": &c.FXPricing.Spread,
		"PAYCORE_FX_FIXED_FEE_USD": &c.FXPricing.FixedFeeUSD, "PAYCORE_FX_VARIABLE_FEE": &c.FXPricing.VariableRate} {
		if v := getenv(name); v != "" {
			d, err := decimal.NewFromString(v)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s=%q is not a decimal number", name, v))
				continue
			}
			*dst = d
		}
	}
	if err := c.FXPricing.Check(); err != nil {
		errs = append(errs, "FX pricing (PAYCORE_FX_*): "+err.Error())
	}
	if v := getenv("PAYCORE_PAYMENT_LIMITS"); v != "" {
		l, err := paylimits.Parse([]byte(v))
		if err != nil {
			errs = append(errs, "PAYCORE_PAYMENT_LIMITS: "+err.Error())
		}
		c.PaymentLimits = l
	}

	c.APIPrefix = "/" + strings.Trim(c.APIPrefix, "/")
	if c.APIPrefix == "/" {
		c.APIPrefix = ""
	}
	if c.IdempotencyTTL < 24*time.Hour {
		errs = append(errs, "PAYCORE_IDEMPOTENCY_TTL must be at least 24h")
	}
	errs = append(errs, c.checkHTTP()...)
	if c.PublicBaseURL == "" {
		c.PublicBaseURL = "http://" + c.HTTPAddr
		if c.TLSCertFile != "" {
			c.PublicBaseURL = "https://" + c.HTTPAddr
		}
	}
	c.PublicBaseURL = strings.TrimRight(c.PublicBaseURL, "/")
	if strings.TrimSpace(c.EndUserTermsVersion) == "" || len(c.EndUserTermsVersion) > 64 {
		errs = append(errs, fmt.Sprintf("PAYCORE_END_USER_TERMS_VERSION=%q must be 1 to 64 characters", c.EndUserTermsVersion))
	}
	if c.EndUserTermsURL != "" {
		if u, err := url.Parse(c.EndUserTermsURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Sprintf("PAYCORE_END_USER_TERMS_URL=%q is not an absolute http or https URL", c.EndUserTermsURL))
		}
	}
	if c.InvitationBaseURL != "" {
		if u, err := url.Parse(c.InvitationBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Sprintf("PAYCORE_INVITATION_BASE_URL=%q is not an absolute http or https URL", c.InvitationBaseURL))
		}
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

// checkHTTP validates the listeners' settings against each other.
func (c Config) checkHTTP() []string {
	var errs []string
	if c.HTTPReadHeaderTimeout > c.HTTPReadTimeout {
		errs = append(errs, fmt.Sprintf("PAYCORE_HTTP_READ_HEADER_TIMEOUT (%s) must not exceed PAYCORE_HTTP_READ_TIMEOUT (%s), which covers the headers too",
			c.HTTPReadHeaderTimeout, c.HTTPReadTimeout))
	}
	// The write deadline runs from the end of the headers to the end of the answer, so it
	// must leave room for the longest waits a handler does on purpose: a repeated
	// Idempotency-Key waits up to IdempotencyWait for the first request, and a test webhook
	// waits up to WebhookTimeout for the endpoint (Temporal round trips come on top).
	if longest := c.IdempotencyWait + c.WebhookTimeout; c.HTTPWriteTimeout <= longest {
		errs = append(errs, fmt.Sprintf("PAYCORE_HTTP_WRITE_TIMEOUT (%s) must exceed PAYCORE_IDEMPOTENCY_WAIT + PAYCORE_WEBHOOK_TIMEOUT (%s), the longest legitimate handler waits",
			c.HTTPWriteTimeout, longest))
	}
	if c.HTTPMaxHeaderBytes < 4<<10 || c.HTTPMaxHeaderBytes > 1<<20 {
		errs = append(errs, fmt.Sprintf("PAYCORE_HTTP_MAX_HEADER_BYTES (%d) must be between 4096 and 1048576", c.HTTPMaxHeaderBytes))
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			errs = append(errs, fmt.Sprintf("PAYCORE_METRICS_ADDR=%q is not host:port (or \"off\"): %v", c.MetricsAddr, err))
		} else if c.MetricsAddr == c.HTTPAddr {
			errs = append(errs, "PAYCORE_METRICS_ADDR must differ from PAYCORE_HTTP_ADDR: metrics are not served on the API port")
		}
	}
	return errs
}

// DocumentsLocation is where document files are kept: DocumentsURL, or the documents
// directory of the data directory.
func (c Config) DocumentsLocation() string {
	if c.DocumentsURL != "" {
		return c.DocumentsURL
	}
	return filepath.Join(c.DataDir, "documents")
}

// APIVersion is the date-based version segment of every platform path.
const APIVersion = "2025-10-13"

// BasePath is the path under which the versioned API is served.
func (c Config) BasePath() string { return c.APIPrefix + "/" + APIVersion }

// EndUserTerms is the End User Terms the deployment publishes: its version and where its
// text is, EndUserTermsURL or PublicBaseURL (the API's listen address when unset) +
// "/end-user-terms/" + the version, for the operator to publish there.
func (c Config) EndUserTerms() (version, link string) {
	if c.EndUserTermsURL != "" {
		return c.EndUserTermsVersion, c.EndUserTermsURL
	}
	base := c.PublicBaseURL
	if base == "" {
		base = "http://" + c.HTTPAddr
	}
	return c.EndUserTermsVersion, strings.TrimRight(base, "/") + "/end-user-terms/" + url.PathEscape(c.EndUserTermsVersion)
}

// InvitationBase is where invitees open invitations: InvitationBaseURL, or PublicBaseURL
// (the API's listen address when unset) + "/invite".
func (c Config) InvitationBase() string {
	if c.InvitationBaseURL != "" {
		return strings.TrimRight(c.InvitationBaseURL, "/")
	}
	base := c.PublicBaseURL
	if base == "" {
		base = "http://" + c.HTTPAddr
	}
	return strings.TrimRight(base, "/") + "/invite"
}

// BaseURL is the full base URL of the versioned API.
func (c Config) BaseURL() string { return c.PublicBaseURL + c.BasePath() }

// parseResolve reads PAYCORE_RESOLVE: host:port=ip:port items separated by commas, and the
// items that are not.
func parseResolve(v string) (map[string]string, []string) {
	out, bad := map[string]string{}, []string(nil)
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		from, to, ok := strings.Cut(item, "=")
		_, fromPort, ferr := net.SplitHostPort(from)
		ap, terr := netip.ParseAddrPort(to)
		if !ok || ferr != nil || fromPort == "" || terr != nil || !ap.IsValid() {
			bad = append(bad, item)
			continue
		}
		out[strings.ToLower(from)] = ap.String()
	}
	return out, bad
}
