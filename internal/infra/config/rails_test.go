package config

import (
	"strings"
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/rail"
)

// PAYCORE_RAILS: unset, the sandbox rail serves sandbox platforms and nothing serves
// production (but LIGHTNING payouts when a node is configured); set, its routes; set but
// empty, no rail at all; malformed, an error. PAYCORE_LND_*: all three or none.
func TestRails(t *testing.T) {
	sandboxOnly := []rail.Route{{Environment: catalog.Sandbox, Currency: rail.Any, Kind: rail.Any, Rail: "sandbox"}}
	node := map[string]string{"PAYCORE_LND_ADDRESS": "127.0.0.1:10009", "PAYCORE_LND_TLS_CERT": "/lnd/tls.cert", "PAYCORE_LND_MACAROON": "/lnd/admin.macaroon"}
	with := func(env map[string]string, more ...string) map[string]string {
		out := map[string]string{}
		for k, v := range env {
			out[k] = v
		}
		for i := 0; i+1 < len(more); i += 2 {
			out[more[i]] = more[i+1]
		}
		return out
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []rail.Route
		err  string
	}{
		{name: "unset", want: sandboxOnly},
		{name: "routes", env: map[string]string{"PAYCORE_RAILS": "SANDBOX:*:*=sandbox, PRODUCTION:USD:EXTERNAL_ACCOUNT=bank"},
			want: append(sandboxOnly, rail.Route{Environment: catalog.Production, Currency: "USD", Kind: rail.ExternalAccount, Rail: "bank"})},
		{name: "empty", env: map[string]string{"PAYCORE_RAILS": ""}},
		{name: "malformed", env: map[string]string{"PAYCORE_RAILS": "PRODUCTION=bank"}, err: "PAYCORE_RAILS: route"},
		{name: "node, default routes", env: node, want: append(sandboxOnly, lightningRoutes...)},
		{name: "node, routes set", env: with(node, "PAYCORE_RAILS", "SANDBOX:BTC:EXTERNAL_ACCOUNT:LIGHTNING=lightning"),
			want: []rail.Route{{Environment: catalog.Sandbox, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "LIGHTNING", Rail: "lightning"}}},
		{name: "node without macaroon", env: with(node, "PAYCORE_LND_MACAROON", ""), err: "set together"},
		{name: "certificate without node", env: map[string]string{"PAYCORE_LND_TLS_CERT": "/lnd/tls.cert"}, err: "set together"},
		{name: "payment timeout too long", env: with(node, "PAYCORE_LND_PAYMENT_TIMEOUT", "2m"), err: "PAYCORE_LND_PAYMENT_TIMEOUT"},
	} {
		c, err := LoadLookup(func(name string) (string, bool) {
			v, ok := tc.env[name]
			return v, ok
		})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || len(c.Rails) != len(tc.want) {
			t.Errorf("%s: %+v %v", tc.name, c.Rails, err)
			continue
		}
		for i := range c.Rails {
			if c.Rails[i] != tc.want[i] {
				t.Errorf("%s: %+v, want %+v", tc.name, c.Rails[i], tc.want[i])
			}
		}
		if _, set := tc.env["PAYCORE_LND_ADDRESS"]; set != c.LND.Configured() || c.LND.PaymentTimeout != 30*time.Second {
			t.Errorf("%s: node %+v", tc.name, c.LND)
		}
	}
}
