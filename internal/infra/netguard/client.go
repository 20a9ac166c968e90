package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"paycore/internal/catalog"
)

// NoAnswer is the only text an opaque client gives for a request that got no HTTP answer.
const NoAnswer = "the endpoint did not answer with an HTTP response"

// TransportError is a request that got no HTTP answer (DNS failure, refused or reset
// connection, time-out, TLS failure, refused address) or whose answer broke off. Its text is
// always NoAnswer, so it can be shown to whoever chose the URL without turning the service
// into a port scanner of the networks it can reach; Err keeps the cause for the operator's
// log (errors.Is and errors.As see through it).
type TransportError struct{ Err error }

func (e *TransportError) Error() string { return NoAnswer }
func (e *TransportError) Unwrap() error { return e.Err }

// Cause returns the underlying transport failure of err when it carries a TransportError,
// else err itself.
func Cause(err error) error {
	var te *TransportError
	if errors.As(err, &te) && te.Err != nil {
		return te.Err
	}
	return err
}

// ClientOptions configures NewClient.
type ClientOptions struct {
	// AllowPrivate lets the client reach loopback, private and other non-public addresses
	// (sandbox platforms on a development stack). Otherwise every connection is checked
	// with CheckAddr at connect time.
	AllowPrivate bool
	// Timeout bounds one request, answer body included.
	Timeout time.Duration
	// Opaque reports every transport failure as a *TransportError (text NoAnswer). It is
	// what production platforms get. The time-out is then kept by the transport rather than
	// by http.Client, whose time-out error names itself.
	Opaque bool
	// MaxRedirects is how many redirects are followed; 0 follows none (the 3xx answer is
	// returned as it is).
	MaxRedirects int
	// Resolve maps host:port to the address dialed instead (config.Resolve); the address
	// dialed is checked as any other.
	Resolve map[string]string
	// RootCAs are the certificate authorities HTTPS answers are checked against (nil: the
	// system's).
	RootCAs *x509.CertPool
}

// NewClient builds the HTTP client for requests to URLs that platforms choose: the guarded
// dialer, no proxy (a proxy would connect on the service's behalf and bypass the address
// check), bounded redirects, and, when Opaque, uniform transport errors.
func NewClient(o ClientOptions) *http.Client {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	t := &http.Transport{
		DialContext:         resolving(Dialer(o.AllowPrivate, o.Timeout), o.Resolve),
		Proxy:               nil,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: o.Timeout,
	}
	if o.RootCAs != nil {
		t.TLSClientConfig = &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12}
	}
	c := &http.Client{Transport: t, CheckRedirect: func(_ *http.Request, via []*http.Request) error {
		if len(via) > o.MaxRedirects {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	if o.Opaque {
		c.Transport = opaqueTransport{rt: t, timeout: o.Timeout}
	} else {
		c.Timeout = o.Timeout
	}
	return c
}

// resolving dials with d, the addresses of resolve replaced first.
func resolving(d *net.Dialer, resolve map[string]string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if len(resolve) == 0 {
		return d.DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if to, ok := resolve[strings.ToLower(addr)]; ok {
			addr = to
		}
		return d.DialContext(ctx, network, addr)
	}
}

// opaqueTransport bounds each request with its own deadline and turns every failure to get
// or read an answer into a *TransportError.
type opaqueTransport struct {
	rt      http.RoundTripper
	timeout time.Duration
}

func (t opaqueTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	resp, err := t.rt.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, &TransportError{Err: err}
	}
	resp.Body = &opaqueBody{rc: resp.Body, cancel: cancel}
	return resp, nil
}

// opaqueBody releases the request's deadline when the body is closed and hides why a read
// failed.
type opaqueBody struct {
	rc     io.ReadCloser
	cancel context.CancelFunc
}

func (b *opaqueBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		err = &TransportError{Err: err}
	}
	return n, err
}

func (b *opaqueBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

// PerEnvironment is the guarded client for the outbound requests a platform's environment
// makes to domains it names (other UMA providers, Lightning address services, platforms'
// domains): production never reaches a non-public address; sandbox platforms do when
// sandboxPrivate says so (a development stack). Both follow no redirect, give up after 10 s
// and dial resolve's addresses instead of the names it maps (config.Resolve); HTTPS answers
// are checked against roots (nil: the system's certificate authorities; see LoadRoots).
func PerEnvironment(sandboxPrivate bool, resolve map[string]string, roots *x509.CertPool) func(catalog.Environment) *http.Client {
	production := NewClient(ClientOptions{Timeout: 10 * time.Second, Resolve: resolve, RootCAs: roots})
	sandbox := NewClient(ClientOptions{Timeout: 10 * time.Second, AllowPrivate: sandboxPrivate, Resolve: resolve, RootCAs: roots})
	return func(env catalog.Environment) *http.Client {
		if env == catalog.Sandbox {
			return sandbox
		}
		return production
	}
}

// LoadRoots is the system's certificate authorities and those of the PEM file path (a
// private network's authority: config.OutboundRoots); nil, the system's alone, when path is
// "". A file without a certificate is an error.
func LoadRoots(path string) (*x509.CertPool, error) {
	if path == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the certificate authorities: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}
