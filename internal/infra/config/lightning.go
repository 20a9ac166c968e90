package config

import (
	"time"

	"paycore/internal/rail"
)

// LND is the connection to the deployment's LND node, which the Lightning rail pays and
// is paid through (PAYCORE_LND_*). An empty Address connects no node.
type LND struct {
	// Address is the node's gRPC listener, host:port (PAYCORE_LND_ADDRESS).
	Address string
	// TLSCertPath is the node's TLS certificate (PAYCORE_LND_TLS_CERT).
	TLSCertPath string
	// MacaroonPath is the macaroon the service presents (PAYCORE_LND_MACAROON).
	MacaroonPath string
	// PaymentTimeout is how long the node looks for a route for one payment
	// (PAYCORE_LND_PAYMENT_TIMEOUT, default 30s: within one attempt of the rail call).
	PaymentTimeout time.Duration
}

// Configured reports whether a node is configured.
func (l LND) Configured() bool { return l.Address != "" }

// lightningRoutes are the routes added to the default routing when a node is configured:
// production BTC payouts to LIGHTNING accounts, and to UMA addresses of other providers
// (their receivers' invoices), go to the Lightning rail. A sandbox platform reaches the
// real network only where PAYCORE_RAILS routes it there.
var lightningRoutes = []rail.Route{
	{Environment: "PRODUCTION", Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "LIGHTNING", Rail: "lightning"},
	{Environment: "PRODUCTION", Currency: "BTC", Kind: rail.UMA, Rail: "lightning"},
}

// loadLND reads PAYCORE_LND_*; every error is one message.
func loadLND(getenv func(string) string, c *LND) []string {
	c.Address, c.TLSCertPath, c.MacaroonPath = getenv("PAYCORE_LND_ADDRESS"), getenv("PAYCORE_LND_TLS_CERT"), getenv("PAYCORE_LND_MACAROON")
	var errs []string
	if c.Address != "" && (c.TLSCertPath == "" || c.MacaroonPath == "") || c.Address == "" && (c.TLSCertPath != "" || c.MacaroonPath != "") {
		errs = append(errs, "PAYCORE_LND_ADDRESS, PAYCORE_LND_TLS_CERT and PAYCORE_LND_MACAROON are set together or not at all")
	}
	if v := getenv("PAYCORE_LND_PAYMENT_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d > 40*time.Second {
			errs = append(errs, "PAYCORE_LND_PAYMENT_TIMEOUT must be a duration from 1s to 40s (one attempt of the rail call is 45s)")
		} else {
			c.PaymentTimeout = d
		}
	}
	return errs
}
