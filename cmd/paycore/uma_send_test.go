package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/view"
	"paycore/internal/infra/config"
)

// forwarder is a listener that forwards to a target set once it is known (a deployment
// started after the one that must reach it), keeping the request's Host.
type forwarder struct {
	srv    *httptest.Server
	target atomic.Pointer[url.URL]
}

func newForwarder(t *testing.T) *forwarder {
	t.Helper()
	f := &forwarder{}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(f.target.Load())
		r.Out.Host = r.In.Host
	}}
	f.srv = httptest.NewServer(proxy)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *forwarder) addr() string { return strings.TrimPrefix(f.srv.URL, "http://") }

// hostOf is the host:port a stack's API listens on.
func hostOf(t *testing.T, s *stack) string {
	t.Helper()
	u, err := url.Parse(s.baseURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// A customer of one deployment (USD) looks up a customer of another over the UMA protocol: the
// sending deployment signs the LNURLP request with its key for its platform's domain, the
// receiving one verifies it with the keys the sender publishes there and answers for its
// proven domain with its customer's currency (EUR), and the sender checks that answer before showing the receiver's currencies.
// A receiver its provider does not know, and a provider that is not there, are 400
// INVALID_UMA_ADDRESS, failure LNURLP_FAILED.
func TestUmaLookupAcrossDeployments(t *testing.T) {
	t.Parallel()
	const alice, bob = "pay.alice.internal", "pay.bob.internal"
	toAlice := newForwarder(t)
	prover, _ := newDomainProver(t)
	receiving := newStack(t, func(c *config.Config) {
		c.Resolve = map[string]string{bob + ":80": strings.TrimPrefix(prover.srv.URL, "http://"), alice + ":80": toAlice.addr()}
	})
	sending := newStack(t, func(c *config.Config) {
		c.Resolve = map[string]string{bob + ":80": hostOf(t, receiving)}
	})
	toAlice.target.Store(&url.URL{Scheme: "http", Host: hostOf(t, sending)})

	rc, _ := receiving.platform(true)
	if r := rc.Do("PATCH", "/config", map[string]any{"umaDomain": bob, "supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("umaDomain: %d %s", r.Status, r.Body)
	}
	prover.prove(t, rc, bob)
	if r := rc.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "DE",
		"fullName": "Bob Receiver", "currencies": []string{"EUR"}, "umaAddress": "$bob@" + bob}); r.Status != 201 {
		t.Fatalf("receiver: %d %s", r.Status, r.Body)
	}
	sc, _ := sending.platform(true)
	if r := sc.Do("PATCH", "/config", map[string]any{"umaDomain": alice, "supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("umaDomain: %d %s", r.Status, r.Body)
	}
	r := sc.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US",
		"fullName": "Alice Sender", "currencies": []string{"USD"}, "umaAddress": "$alice@" + alice})
	if r.Status != 201 {
		t.Fatalf("sender: %d %s", r.Status, r.Body)
	}
	customer := r.JSON(t)["id"].(string)

	var lookup struct {
		LookupID            string
		ReceiverUmaAddress  string
		SupportedCurrencies []struct {
			Currency struct{ Code string }
			Min, Max int64
		}
		RequiredPayerDataFields []struct {
			Name      string
			Mandatory bool
		}
	}
	r = sc.Do("GET", "/receiver/uma/"+url.PathEscape("$bob@"+bob)+"?customerId="+customer, nil)
	r.Decode(t, &lookup)
	if r.Status != 200 || lookup.LookupID == "" || lookup.ReceiverUmaAddress != "$bob@"+bob || len(lookup.SupportedCurrencies) != 1 ||
		lookup.SupportedCurrencies[0].Currency.Code != "EUR" || lookup.SupportedCurrencies[0].Min < 1 {
		t.Fatalf("lookup across deployments: %d %s", r.Status, r.Body)
	}
	// Providers the operator blocked are refused both ways: the sender's own list refuses
	// the receiver's provider before any request; the receiver's list refuses the sender.
	lookupBob := func() *apitest.Response {
		return sc.Do("GET", "/receiver/uma/"+url.PathEscape("$bob@"+bob)+"?customerId="+customer, nil)
	}
	sendingStore, receivingStore := db.NewStore(sending.app.pool, view.Resources{}), db.NewStore(receiving.app.pool, view.Resources{})
	if err := sendingStore.UmaProviderSetAllowed(t.Context(), bob, false); err != nil {
		t.Fatal(err)
	}
	if r := lookupBob(); r.Status != http.StatusForbidden || r.Code(t) != "COUNTERPARTY_NOT_ALLOWED" {
		t.Fatalf("a blocked receiver's provider: %d %s", r.Status, r.Body)
	}
	if err := sendingStore.UmaProviderSetAllowed(t.Context(), bob, true); err != nil {
		t.Fatal(err)
	}
	if err := receivingStore.UmaProviderSetAllowed(t.Context(), alice, false); err != nil {
		t.Fatal(err)
	}
	if r := lookupBob(); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "answered 403") {
		t.Fatalf("a sender the receiving deployment blocked: %d %s", r.Status, r.Body)
	}
	if err := receivingStore.UmaProviderSetAllowed(t.Context(), alice, true); err != nil {
		t.Fatal(err)
	}
	if r := lookupBob(); r.Status != http.StatusOK {
		t.Fatalf("allowed again both ways: %d %s", r.Status, r.Body)
	}
	for name, address := range map[string]string{"an unknown receiver": "$nobody@" + bob, "no provider there": "$bob@nowhere.internal"} {
		r := sc.Do("GET", "/receiver/uma/"+url.PathEscape(address)+"?customerId="+customer, nil)
		if r.Status != http.StatusBadRequest || r.Code(t) != "INVALID_UMA_ADDRESS" || !strings.Contains(string(r.Body), `"failure":"LNURLP_FAILED"`) {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	// The receiving deployment took the sender's nonce: the same request cannot be replayed,
	// and the sender's keys came from its domain (cached there now).
	var cached int
	if err := receiving.app.pool.QueryRow(t.Context(), `SELECT count(*) FROM uma_provider_keys WHERE domain = $1`, alice).Scan(&cached); err != nil || cached != 1 {
		t.Fatalf("the receiving deployment cached %d key sets of %s (%v)", cached, alice, err)
	}
}
