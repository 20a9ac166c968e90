package config

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
)

// Secret is a configuration value that is never printed: fmt and slog show "[redacted]"
// (or nothing when it is empty). Reveal returns it.
type Secret string

func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// GoString keeps %#v from printing it.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// LogValue keeps slog from printing it.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// Reveal is the secret itself.
func (s Secret) Reveal() string { return string(s) }

// TemporalSecurity is how the service authenticates to Temporal and Temporal to it. Empty,
// the connection is plaintext without credentials (a Temporal on loopback or a private
// network only).
type TemporalSecurity struct {
	// TLS is on when PAYCORE_TEMPORAL_TLS is true or any setting below is given.
	TLS bool // PAYCORE_TEMPORAL_TLS
	// CAFile verifies the server's certificate (PEM); empty uses the system's roots.
	CAFile string // PAYCORE_TEMPORAL_TLS_CA_FILE
	// CertFile and KeyFile are the client certificate and key presented for mutual TLS.
	CertFile string // PAYCORE_TEMPORAL_TLS_CERT_FILE
	KeyFile  string // PAYCORE_TEMPORAL_TLS_KEY_FILE
	// ServerName is the name the server's certificate must carry, when it is not the host of
	// PAYCORE_TEMPORAL_ADDRESS.
	ServerName string // PAYCORE_TEMPORAL_TLS_SERVER_NAME
	// APIKey (or the content of APIKeyFile) is sent as "Authorization: Bearer <key>" on
	// every call (Temporal Cloud API keys, or a JWT the server's authorizer accepts).
	APIKey     Secret // PAYCORE_TEMPORAL_API_KEY
	APIKeyFile string // PAYCORE_TEMPORAL_API_KEY_FILE
}

// Configured reports whether any setting of a secured Temporal connection is given.
func (s TemporalSecurity) Configured() bool { return s != TemporalSecurity{} }

// loadTemporalSecurity reads the PAYCORE_TEMPORAL_TLS* and PAYCORE_TEMPORAL_API_KEY*
// variables and checks them against each other; the files are read by TemporalTLSConfig
// and TemporalAPIKeyValue.
func loadTemporalSecurity(getenv func(string) string) (TemporalSecurity, []string) {
	s := TemporalSecurity{
		CAFile:     getenv("PAYCORE_TEMPORAL_TLS_CA_FILE"),
		CertFile:   getenv("PAYCORE_TEMPORAL_TLS_CERT_FILE"),
		KeyFile:    getenv("PAYCORE_TEMPORAL_TLS_KEY_FILE"),
		ServerName: getenv("PAYCORE_TEMPORAL_TLS_SERVER_NAME"),
		APIKey:     Secret(getenv("PAYCORE_TEMPORAL_API_KEY")),
		APIKeyFile: getenv("PAYCORE_TEMPORAL_API_KEY_FILE"),
	}
	var errs []string
	implied := s.CAFile != "" || s.CertFile != "" || s.KeyFile != "" || s.ServerName != "" || s.APIKey != "" || s.APIKeyFile != ""
	s.TLS = implied
	if v := getenv("PAYCORE_TEMPORAL_TLS"); v != "" {
		on, err := strconv.ParseBool(v)
		switch {
		case err != nil:
			errs = append(errs, fmt.Sprintf("PAYCORE_TEMPORAL_TLS=%q is not a boolean", v))
		case !on && implied:
			errs = append(errs, "PAYCORE_TEMPORAL_TLS=false contradicts the PAYCORE_TEMPORAL_TLS_* or PAYCORE_TEMPORAL_API_KEY* settings given: certificates and API keys are used over TLS only")
		default:
			s.TLS = on
		}
	}
	if (s.CertFile == "") != (s.KeyFile == "") {
		errs = append(errs, "PAYCORE_TEMPORAL_TLS_CERT_FILE and PAYCORE_TEMPORAL_TLS_KEY_FILE go together: the client certificate and its key")
	}
	if s.APIKey != "" && s.APIKeyFile != "" {
		errs = append(errs, "PAYCORE_TEMPORAL_API_KEY and PAYCORE_TEMPORAL_API_KEY_FILE are exclusive: give the key or the file holding it")
	}
	return s, errs
}

// TemporalTLSConfig is the TLS configuration of the connection to Temporal, nil when TLS
// is off.
func (c Config) TemporalTLSConfig() (*tls.Config, error) {
	s := c.TemporalSecurity
	if !s.TLS {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: s.ServerName}
	if s.CAFile != "" {
		pem, err := os.ReadFile(s.CAFile)
		if err != nil {
			return nil, fmt.Errorf("PAYCORE_TEMPORAL_TLS_CA_FILE: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("PAYCORE_TEMPORAL_TLS_CA_FILE %s holds no PEM certificate", s.CAFile)
		}
	}
	if s.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(s.CertFile, s.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("PAYCORE_TEMPORAL_TLS_CERT_FILE and PAYCORE_TEMPORAL_TLS_KEY_FILE: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// TemporalAPIKeyValue is the API key sent to Temporal: PAYCORE_TEMPORAL_API_KEY, or the
// content of PAYCORE_TEMPORAL_API_KEY_FILE without surrounding whitespace; empty when
// neither is set.
func (c Config) TemporalAPIKeyValue() (string, error) {
	s := c.TemporalSecurity
	if s.APIKeyFile == "" {
		return s.APIKey.Reveal(), nil
	}
	b, err := os.ReadFile(s.APIKeyFile)
	if err != nil {
		return "", fmt.Errorf("PAYCORE_TEMPORAL_API_KEY_FILE: %w", err)
	}
	key := strings.TrimSpace(string(b))
	if key == "" {
		return "", errors.New("PAYCORE_TEMPORAL_API_KEY_FILE: the file is empty")
	}
	return key, nil
}
