package main

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"paycore/internal/infra/config"
	"paycore/internal/infra/nodescript"
	"paycore/internal/uma"
)

// umaSDK starts the official UMA JavaScript SDK's interop script (internal/uma).
func umaSDK(t *testing.T) *nodescript.Script {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return nodescript.Start(t, filepath.Join(filepath.Dir(file), "..", "..", "internal", "uma", "testdata", "interop"), "interop.mjs", "umainterop")
}

// senderProvider is another UMA provider on loopback: its keys, published by an HTTP server
// at its domain (host:port, reached over http as a local domain) as answer says.
type senderProvider struct {
	signing uma.PrivateKey
	domain  string
	pubKeys string
}

func newSenderProvider(t *testing.T, notAfter time.Time, answer func(w http.ResponseWriter, keys string)) senderProvider {
	t.Helper()
	k, err := uma.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	der, err := uma.SelfSigned(k, "sender", 1, time.Now().Add(-2*time.Hour), notAfter)
	if err != nil {
		t.Fatal(err)
	}
	chain := []string{hex.EncodeToString(der)}
	b, _ := json.Marshal(uma.PubKeyResponse{SigningCertChain: chain, EncryptionCertChain: chain, ExpirationTimestamp: time.Now().Add(time.Hour).Unix()})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/lnurlpubkey" {
			http.NotFound(w, r)
			return
		}
		if answer == nil {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
			return
		}
		answer(w, string(b))
	}))
	t.Cleanup(srv.Close)
	return senderProvider{signing: k, domain: strings.TrimPrefix(srv.URL, "http://"), pubKeys: string(b)}
}

// A UMA LNURLP request from another provider for a customer's address on its platform's
// domain is answered as the protocol says: the customer's currencies and the payer data
// required, with the deployment's compliance data signed so that the official SDK verifies
// it with the keys the deployment publishes; the sender's signature is checked with the keys
// it publishes (fetched through the guard), its nonce taken once and its timestamp in the
// window. Every refusal is the protocol's code and status, nothing held, no 5xx.
func TestUmaLnurlpReceived(t *testing.T) {
	t.Parallel()
	const domain = "pay.acme.internal"
	prover, resolve := newDomainProver(t, domain)
	s := newStack(t, resolve)
	c, _ := s.platform(true)
	if r := c.Do("PATCH", "/config", map[string]any{"umaDomain": domain}); r.Status != 200 {
		t.Fatalf("umaDomain: %d %s", r.Status, r.Body)
	}
	if r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US",
		"fullName": "Bob Receiver", "currencies": []string{"USD"}, "umaAddress": "$bob@" + domain}); r.Status != 201 {
		t.Fatalf("customer: %d %s", r.Status, r.Body)
	}
	get := func(path string, q url.Values) (int, []byte) { return s.hostGet(domain, path+"?"+q.Encode()) }
	query := func(r uma.LnurlpRequest) url.Values {
		u, err := r.URL()
		if err != nil {
			t.Fatal(err)
		}
		parsed, _ := url.Parse(u)
		return parsed.Query()
	}
	sender := newSenderProvider(t, time.Now().Add(24*time.Hour), nil)
	// Until the platform proves its domain, the deployment does not serve it.
	unproven := uma.NewLnurlpRequest(sender.signing, "$bob@"+domain, sender.domain, true, time.Now())
	if status, body := get("/.well-known/lnurlp/$bob", query(unproven)); status != 404 || !strings.Contains(string(body), "USER_NOT_FOUND") {
		t.Fatalf("an unproven domain served: %d %s", status, body)
	}
	prover.publish(domain, "another token")
	if r := c.Do("POST", "/config/uma-domain/verify", nil); r.Status != 400 || !strings.Contains(string(r.Body), "UMA_DOMAIN_NOT_PROVEN") {
		t.Fatalf("a domain publishing another token: %d %s", r.Status, r.Body)
	}
	prover.prove(t, c, domain)
	req := uma.NewLnurlpRequest(sender.signing, "$bob@"+domain, sender.domain, true, time.Now())
	status, body := get("/.well-known/lnurlp/$bob", query(req))
	if status != 200 {
		t.Fatalf("LNURLP: %d %s", status, body)
	}
	var resp uma.LnurlpResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Tag != "payRequest" || resp.UmaVersion != "1.0" || resp.Compliance == nil || resp.Compliance.ReceiverIdentifier != "$bob@"+domain ||
		resp.Compliance.KycStatus != uma.KycVerified || len(resp.Currencies) != 1 || resp.Currencies[0].Code != "USD" || resp.Currencies[0].Multiplier <= 0 ||
		!resp.PayerData["compliance"].Mandatory || resp.Callback != "http://"+domain+"/.well-known/lnurlp/$bob/callback" || resp.MinSendable != 1000 {
		t.Fatalf("LNURLP response: %s", body)
	}
	// The official SDK verifies the response with the keys the deployment publishes.
	_, published := get("/.well-known/lnurlpubkey", nil)
	var ok struct{ Valid bool }
	umaSDK(t).Call(map[string]string{"op": "verifyLnurlpResponse", "json": string(body), "pubKeys": string(published)}, &ok)
	if !ok.Valid {
		t.Fatalf("the SDK refused the deployment's LNURLP response: %s", body)
	}

	refused := func(name string, q url.Values, user string, wantStatus int, wantCode string) {
		t.Helper()
		status, body := get("/.well-known/lnurlp/"+user, q)
		var e struct{ Status, Code, Reason string }
		if err := json.Unmarshal(body, &e); err != nil || status != wantStatus || e.Status != "ERROR" || e.Code != wantCode || e.Reason == "" {
			t.Errorf("%s: %d %s, want %d %s", name, status, body, wantStatus, wantCode)
		}
	}
	refused("the same request again", query(req), "$bob", 400, "INVALID_NONCE")
	old := uma.NewLnurlpRequest(sender.signing, "$bob@"+domain, sender.domain, true, time.Now().Add(-2*time.Hour))
	refused("signed two hours ago", query(old), "$bob", 400, "INVALID_TIMESTAMP")
	stranger, _ := uma.NewPrivateKey()
	forged := uma.NewLnurlpRequest(stranger, "$bob@"+domain, sender.domain, true, time.Now())
	refused("signed by another key", query(forged), "$bob", 401, "INVALID_SIGNATURE")
	// The forged request's nonce was not taken: signed properly, it passes.
	forged.Signature = sender.signing.Sign(forged.SignablePayload())
	if status, body := get("/.well-known/lnurlp/$bob", query(forged)); status != 200 {
		t.Errorf("a nonce a forged request carried was burnt: %d %s", status, body)
	}
	v2 := query(uma.NewLnurlpRequest(sender.signing, "$bob@"+domain, sender.domain, true, time.Now()))
	v2.Set("umaVersion", "2.0")
	refused("version 2.0", v2, "$bob", 412, "UNSUPPORTED_UMA_VERSION")
	if _, body := get("/.well-known/lnurlp/$bob", v2); !strings.Contains(string(body), `"supportedMajorVersions":[1]`) {
		t.Errorf("412 without the supported versions: %s", body)
	}
	refused("an unknown user", query(uma.NewLnurlpRequest(sender.signing, "$nobody@"+domain, sender.domain, true, time.Now())), "$nobody", 404, "USER_NOT_FOUND")
	refused("a sender domain that is not one", query(uma.NewLnurlpRequest(sender.signing, "$bob@"+domain, "vasp1.example/../x", true, time.Now())), "$bob", 400, "MISSING_REQUIRED_UMA_PARAMETERS")
	partial := url.Values{"nonce": {"1"}, "umaVersion": {"1.0"}}
	refused("some UMA parameters", partial, "$bob", 400, "MISSING_REQUIRED_UMA_PARAMETERS")

	for name, tc := range map[string]struct {
		provider senderProvider
		code     string
		status   int
	}{
		"keys answering garbage": {newSenderProvider(t, time.Now().Add(time.Hour), func(w http.ResponseWriter, _ string) { _, _ = io.WriteString(w, "<html>") }), "INVALID_PUBKEY_FORMAT", 400},
		"keys redirected": {newSenderProvider(t, time.Now().Add(time.Hour), func(w http.ResponseWriter, _ string) {
			w.Header().Set("Location", "http://169.254.169.254/")
			w.WriteHeader(http.StatusFound)
		}), "COUNTERPARTY_PUBKEY_FETCH_ERROR", 424},
		"keys answering slowly": {newSenderProvider(t, time.Now().Add(time.Hour), func(w http.ResponseWriter, keys string) {
			time.Sleep(11 * time.Second)
			_, _ = io.WriteString(w, keys)
		}), "COUNTERPARTY_PUBKEY_FETCH_ERROR", 424},
		"an expired certificate": {newSenderProvider(t, time.Now().Add(-time.Hour), nil), "CERT_CHAIN_EXPIRED", 400},
		"no provider there":      {senderProvider{signing: sender.signing, domain: "127.0.0.1:1"}, "COUNTERPARTY_PUBKEY_FETCH_ERROR", 424},
	} {
		refused(name, query(uma.NewLnurlpRequest(tc.provider.signing, "$bob@"+domain, tc.provider.domain, true, time.Now())), "$bob", tc.status, tc.code)
	}
}

// A platform whose umaDomain proxies UMA requests to its subdomain of the deployment's proxy
// domain is served there as at its domain: an LNURLP request for its customer's address,
// reaching the proxy subdomain, is answered for that address (the official SDK verifies
// it), once the platform proved its domain. A subdomain belongs to one platform, and one no
// platform holds serves nobody.
func TestUmaProxySubdomain(t *testing.T) {
	t.Parallel()
	const domain, proxy = "pay.proxied.internal", "uma.paycore.internal"
	prover, resolve := newDomainProver(t, domain)
	s := newStack(t, resolve, func(c *config.Config) { c.UmaProxyDomain = proxy })
	c, _ := s.platform(true)
	if r := c.Do("PATCH", "/config", map[string]any{"umaDomain": domain, "proxyUmaSubdomain": "acme"}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	if r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US",
		"fullName": "Bob Receiver", "currencies": []string{"USD"}, "umaAddress": "$bob@" + domain}); r.Status != 201 {
		t.Fatalf("customer: %d %s", r.Status, r.Body)
	}
	other, _ := s.platform(true)
	if r := other.Do("PATCH", "/config", map[string]any{"proxyUmaSubdomain": "acme"}); r.Status != 409 || r.Code(t) != "UMA_DOMAIN_TAKEN" {
		t.Fatalf("another platform taking the subdomain: %d %s", r.Status, r.Body)
	}
	sender := newSenderProvider(t, time.Now().Add(24*time.Hour), nil)
	lnurlp := func(host string) (int, []byte) {
		u, err := uma.NewLnurlpRequest(sender.signing, "$bob@"+domain, sender.domain, true, time.Now()).URL()
		if err != nil {
			t.Fatal(err)
		}
		parsed, _ := url.Parse(u)
		return s.hostGet(host, parsed.RequestURI())
	}
	if status, body := lnurlp("acme." + proxy); status != 404 || !strings.Contains(string(body), "USER_NOT_FOUND") {
		t.Fatalf("the proxy subdomain of an unproven domain: %d %s", status, body)
	}
	prover.prove(t, c, domain)
	status, body := lnurlp("acme." + proxy)
	var resp uma.LnurlpResponse
	if err := json.Unmarshal(body, &resp); status != 200 || err != nil || resp.Compliance == nil || resp.Compliance.ReceiverIdentifier != "$bob@"+domain {
		t.Fatalf("LNURLP through the proxy subdomain: %d %s", status, body)
	}
	_, published := s.hostGet(domain, "/.well-known/lnurlpubkey")
	var ok struct{ Valid bool }
	umaSDK(t).Call(map[string]string{"op": "verifyLnurlpResponse", "json": string(body), "pubKeys": string(published)}, &ok)
	if !ok.Valid {
		t.Fatalf("the SDK refused the answer through the proxy subdomain: %s", body)
	}
	for _, host := range []string{"nobody." + proxy, "a.acme." + proxy} {
		if status, body := lnurlp(host); status != 404 || !strings.Contains(string(body), "USER_NOT_FOUND") {
			t.Errorf("%s: %d %s", host, status, body)
		}
	}
}
