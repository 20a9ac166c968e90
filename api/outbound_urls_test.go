package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"testing"

	"paycore/api"
	"paycore/internal/infra/config"
)

// hostsResolver answers the save-time lookups of the API from a table.
type hostsResolver map[string][]netip.Addr

func (h hostsResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := h[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

var outboundResolver = hostsResolver{
	"hooks.example":    {netip.MustParseAddr("93.184.216.34")},
	"issuer.example":   {netip.MustParseAddr("2606:4700::1111")},
	"rebind.example":   {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("::1")},
	"metadata.example": {netip.MustParseAddr("169.254.169.254")},
	"zoned.example":    {netip.MustParseAddr("fe80::1%eth0")},
}

// Every address form of the SSRF report, and the other non-public forms.
var nonPublicHosts = []string{
	"[::1%25lo]:8443", "[fe80::1%25eth0]", "[fd00::1%25lo]", "[ff02::1%25lo]", "[::127.0.0.1]", "[2002:7f00:1::]",
	"[::ffff:127.0.0.1]", "[64:ff9b::7f00:1]", "[64:ff9b::a9fe:a9fe]", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",
	"[2606:4700::1111%25eth0]", "[::1]", "127.0.0.1", "169.254.169.254", "10.0.0.1", "192.88.99.1", "255.255.255.255",
	"2130706433", "0x7f.1", "017700000001", "127.1", "0xA9FEA9FE", "127.0.0.1.", "localhost", "printer.local",
	"rebind.example", "metadata.example", "zoned.example", "unknown.example",
}

// A production platform cannot save a webhook endpoint or an OIDC issuer whose host is not
// public, in any spelling: 400 INVALID_INPUT naming the field, and nothing is saved.
func TestProductionRefusesNonPublicOutboundURLs(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, func(d *api.Deps) { d.Resolver = outboundResolver }, func(c *config.Config) { c.SandboxPrivateOK = true })
	prod, _ := e.platform(false)
	multiCurrency(t, prod, true)
	good := map[string]any{"issuer": "https://issuer.example", "audience": "paycore-wallet"}
	if r := prod.Do("PATCH", "/config", map[string]any{"webhookEndpoint": "https://hooks.example/h",
		"embeddedWalletConfig": map[string]any{"oidcProviders": []any{good}}}); r.Status != 200 {
		t.Fatalf("public endpoint and issuer refused: %d %s", r.Status, r.Body)
	}
	before := string(prod.Do("GET", "/config", nil).Body)

	refused := func(body map[string]any, field string) {
		t.Helper()
		r := prod.Do("PATCH", "/config", body)
		m := expectError(t, r, 400, "INVALID_INPUT")
		if d, _ := m["details"].(map[string]any); d["field"] != field {
			t.Errorf("%v: details.field = %v, want %s", body, d["field"], field)
		}
	}
	for _, h := range nonPublicHosts {
		refused(map[string]any{"webhookEndpoint": "https://" + h + "/h"}, "webhookEndpoint")
		// The issuer check runs whatever else the request carries.
		refused(map[string]any{"embeddedWalletConfig": map[string]any{"oidcProviders": []any{good,
			map[string]any{"issuer": "https://" + h, "audience": "paycore-wallet"}}}}, "embeddedWalletConfig.oidcProviders[1].issuer")
	}
	for _, iss := range []string{"https://127.0.0.1", "https://169.254.169.254", "https://[::1%25lo]", "https://issuer.example?tenant=1",
		"http://issuer.example"} {
		refused(map[string]any{"embeddedWalletConfig": map[string]any{"oidcProviders": []any{map[string]any{"issuer": iss, "audience": "a"}}}},
			"embeddedWalletConfig.oidcProviders[0].issuer")
	}
	if after := string(prod.Do("GET", "/config", nil).Body); after != before {
		t.Fatalf("a refused PATCH changed the config:\n%s\n%s", before, after)
	}
	var cfg api.PlatformConfig
	if err := json.Unmarshal([]byte(before), &cfg); err != nil || cfg.WebhookEndpoint != "https://hooks.example/h" {
		t.Fatalf("config %s", before)
	}
}

// Sandbox platforms may save a loopback issuer only when the operator allows private
// addresses, exactly as for webhook endpoints.
func TestSandboxIssuerRules(t *testing.T) {
	t.Parallel()
	issuer := func(u string) map[string]any {
		return map[string]any{"embeddedWalletConfig": map[string]any{"oidcProviders": []any{map[string]any{"issuer": u, "audience": "a"}}}}
	}
	open := newEnvWith(t, func(d *api.Deps) { d.Resolver = outboundResolver }, func(c *config.Config) { c.SandboxPrivateOK = true })
	sb, _ := open.platform(true)
	multiCurrency(t, sb, true)
	if r := sb.Do("PATCH", "/config", issuer("http://127.0.0.1:9000")); r.Status != 200 {
		t.Fatalf("sandbox loopback issuer refused: %d %s", r.Status, r.Body)
	}
	strict := newEnvWith(t, func(d *api.Deps) { d.Resolver = outboundResolver })
	sb2, _ := strict.platform(true)
	multiCurrency(t, sb2, true)
	for _, u := range []string{"http://127.0.0.1:9000", "https://169.254.169.254", "https://[::1%25lo]"} {
		expectError(t, sb2.Do("PATCH", "/config", issuer(u)), 400, "INVALID_INPUT")
	}
	if r := sb2.Do("PATCH", "/config", issuer("http://issuer.example")); r.Status != 200 {
		t.Fatalf("sandbox public http issuer refused: %d %s", r.Status, r.Body)
	}
}

// An issuer saved before these rules (or re-pointed by DNS) is refused at connect time: a
// production platform's token from a loopback issuer does not verify, though the issuer is
// up and the token is properly signed.
func TestProductionIssuerRefusedAtConnectTime(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	e := newEnv(t, func(c *config.Config) { c.SandboxPrivateOK = true })
	c, p := e.platform(false)
	multiCurrency(t, c, true)
	setIssuerDirect(t, e, p.ID.String(), is.srv.URL)
	acct := walletAccount(t, c, "hal@example.com")
	res := expectError(t, c.Do("POST", "/auth/credentials", map[string]any{"type": "OAUTH", "accountId": acct, "oidcToken": is.token(t, tokenOpts{})}), 401, "UNAUTHORIZED")
	if res["reason"] != "Invalid OIDC token" {
		t.Fatalf("reason %v", res["reason"])
	}
}

// setIssuerDirect writes an OIDC provider into a platform's configuration, bypassing the
// API's checks (as a row saved before them would be).
func setIssuerDirect(t *testing.T, e *env, platformID, issuer string) {
	t.Helper()
	providers, _ := json.Marshal([]map[string]string{{"issuer": issuer, "audience": "paycore-wallet"}})
	if _, err := e.pool.Exec(context.Background(), `UPDATE platforms SET embedded_wallet_config =
		jsonb_set(coalesce(embedded_wallet_config, '{}'::jsonb), '{oidcProviders}', $1::jsonb) WHERE id = $2`, string(providers), platformID); err != nil {
		t.Fatal(err)
	}
}
