package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/lnregtest/lntest"
	"paycore/internal/uma"
)

// misbehaving is another UMA provider that answers each of its domains (<case>.provider.internal)
// badly in the way the case names, and well in every other respect: its keys published, its
// LNURLP answer signed, its pay request answered with a signed payee compliance.
type misbehaving struct {
	srv               *httptest.Server
	key, stranger     uma.PrivateKey
	chain, expired    []byte
	lnurlpBad, payBad map[string]func(w http.ResponseWriter, r *http.Request) bool
	// replayed is the one answer the replay domain gives every LNURLP request.
	mu       sync.Mutex
	replayed *uma.LnurlpResponse
	// invoice makes the invoice the no-route domain answers with, for sats.
	invoice func(sats int64) string
}

const providerSuffix = ".provider.internal"

// noRouteMsatPerCent prices the no-route domain's peso so that 10.00 MXN is 800 000 sat,
// more than the test channel's sending side holds.
const noRouteMsatPerCent = 800_000

func newMisbehaving(t *testing.T) *misbehaving {
	t.Helper()
	m := &misbehaving{lnurlpBad: map[string]func(http.ResponseWriter, *http.Request) bool{}, payBad: map[string]func(http.ResponseWriter, *http.Request) bool{}}
	var err error
	if m.key, err = uma.NewPrivateKey(); err != nil {
		t.Fatal(err)
	}
	m.stranger, _ = uma.NewPrivateKey()
	if m.chain, err = uma.SelfSigned(m.key, "provider", 1, time.Now().Add(-48*time.Hour), time.Now().Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if m.expired, err = uma.SelfSigned(m.key, "provider", 2, time.Now().Add(-48*time.Hour), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

// signing is how the domain of case name signs its answer to step (lnurlp, payreq): the
// provider's key now, in version 1, unless the case is step's "-signature" (another key),
// "-timestamp" (two hours ago) or "-version" (2.0).
func (m *misbehaving) signing(name, step string) (key uma.PrivateKey, at time.Time, version string) {
	key, at, version = m.key, time.Now(), uma.Version
	switch strings.TrimPrefix(name, step) {
	case "-signature":
		key = m.stranger
	case "-timestamp":
		at = at.Add(-2 * time.Hour)
	case "-version":
		version = "2.0"
	}
	return key, at, version
}

func (m *misbehaving) serve(w http.ResponseWriter, r *http.Request) {
	host, _, _ := strings.Cut(r.Host, ":")
	name := strings.TrimSuffix(host, providerSuffix)
	switch {
	case r.URL.Path == "/.well-known/lnurlpubkey":
		chain := m.chain
		if name == "expired" {
			chain = m.expired
		}
		_ = json.NewEncoder(w).Encode(uma.PubKeyResponse{SigningCertChain: []string{hex.EncodeToString(chain)},
			EncryptionCertChain: []string{hex.EncodeToString(chain)}})
	case strings.HasPrefix(r.URL.Path, "/.well-known/lnurlp/"):
		if bad := m.lnurlpBad[name]; bad != nil && bad(w, r) {
			return
		}
		key, at, version := m.signing(name, "lnurlp")
		resp := uma.LnurlpResponse{Tag: "payRequest", Callback: "http://" + host + "/callback", MinSendable: 1000, MaxSendable: 1_000_000_000, Metadata: "[]",
			Currencies: []uma.Currency{{Code: "MXN", Name: "Peso", Symbol: "$", Multiplier: 1000, Decimals: 2, Convertible: uma.Convertible{Min: 1, Max: 1_000_000}}},
			UmaVersion: version, Compliance: uma.SignedCompliance(key, uma.LnurlpRequest{ReceiverAddress: "$bob@" + host}, uma.KycVerified, true, at)}
		if name == "lnurlp-replay" {
			m.mu.Lock()
			if m.replayed == nil {
				m.replayed = &resp
			}
			resp = *m.replayed
			m.mu.Unlock()
		}
		_ = json.NewEncoder(w).Encode(resp)
	case r.URL.Path == "/callback":
		var pr uma.PayRequest
		if err := json.NewDecoder(r.Body).Decode(&pr); err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		if bad := m.payBad[name]; bad != nil && bad(w, r) {
			return
		}
		key, at, version := m.signing(name, "payreq")
		resp := uma.PayReqResponse{PR: "lnbcrt10u1notaninvoice", Routes: []struct{}{}, UmaVersion: version,
			Converted: &uma.Converted{Amount: 1000, CurrencyCode: "MXN", Decimals: 2, Multiplier: 1000},
			PayeeData: uma.PayeeData{Identifier: "$bob@" + host, Compliance: uma.SignedPayeeCompliance(key, pr.PayerData.Identifier, "$bob@"+host, "", "", at)}}
		if name == "payreq-noroute" && m.invoice != nil { // a real invoice, of more than the channel holds
			resp.Converted.Multiplier = noRouteMsatPerCent
			resp.PR = m.invoice(resp.Converted.Amount * noRouteMsatPerCent / 1000)
		}
		_ = json.NewEncoder(w).Encode(resp)
	default:
		http.NotFound(w, r)
	}
}

// Every way a receiver's provider can fail the sending side, through the API: the receiver
// lookup and the quote answer each one with a clear refusal naming the protocol's failure
// (400 INVALID_UMA_ADDRESS with LNURLP_FAILED for the LNURLP request, 424
// PAYREQ_REQUEST_FAILED for the pay request), never a 5xx, within the exchange's deadline,
// and nothing is held or created: the provider down, answering garbage, too slowly, with a
// redirect to a private address (not followed), a signature of another key, an old
// timestamp, a nonce it used before, another major version, keys whose certificate expired, a refusal of its own,
// or an invoice this service cannot pay. An invoice that passes but that the network cannot
// deliver fails the executed payment before anything left, its hold released.
func TestLightningUmaSendRefusals(t *testing.T) {
	ctx := context.Background()
	const alice = "pay.alice.internal"
	n, _ := lntest.Start(t, 18770)
	m := newMisbehaving(t)
	prover, _ := newDomainProver(t)
	fake := strings.TrimPrefix(m.srv.URL, "http://")
	lnurlpCases := []string{"down", "lnurlp-garbage", "lnurlp-slow", "lnurlp-redirect", "lnurlp-signature", "lnurlp-timestamp", "lnurlp-version", "expired", "lnurlp-replay"}
	payCases := []string{"payreq-refused", "payreq-garbage", "payreq-slow", "payreq-redirect", "payreq-signature", "payreq-timestamp", "payreq-version", "payreq-invoice"}
	s := lightningStackOn(t, n.Node, func(c *config.Config) {
		c.Resolve = map[string]string{alice + ":80": strings.TrimPrefix(prover.srv.URL, "http://"), "down" + providerSuffix + ":80": "127.0.0.1:1"}
		for _, name := range append(append(lnurlpCases[1:], payCases...), "payreq-noroute") {
			c.Resolve[name+providerSuffix+":80"] = fake
		}
	})
	garbage := func(w http.ResponseWriter, _ *http.Request) bool { _, _ = w.Write([]byte("<html>")); return true }
	slow := func(_ http.ResponseWriter, r *http.Request) bool {
		select {
		case <-r.Context().Done():
		case <-time.After(40 * time.Second):
		}
		return false
	}
	redirect := func(w http.ResponseWriter, _ *http.Request) bool {
		w.Header().Set("Location", "http://169.254.169.254/latest/meta-data")
		w.WriteHeader(http.StatusFound)
		return true
	}
	m.lnurlpBad["lnurlp-garbage"], m.lnurlpBad["lnurlp-slow"], m.lnurlpBad["lnurlp-redirect"] = garbage, slow, redirect
	m.payBad["payreq-garbage"], m.payBad["payreq-slow"], m.payBad["payreq-redirect"] = garbage, slow, redirect
	m.payBad["payreq-refused"] = func(w http.ResponseWriter, _ *http.Request) bool {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"status":"ERROR","code":"SENDER_NOT_ACCEPTED","reason":"no"}`))
		return true
	}

	w := lightningWorld(t, s, 1)
	w.provenUmaDomain(prover, alice)
	w.customer, w.account = w.umaCustomer("Alice Sender", "US", "USD", "$alice@"+alice)
	w.fund(100_000)

	written := func() (held, quotes int64) {
		_ = s.app.pool.QueryRow(ctx, "SELECT (SELECT coalesce(sum(held), 0)::bigint FROM ledger_accounts), (SELECT count(*) FROM quotes)").Scan(&held, &quotes)
		return held, quotes
	}
	quote := func(address string) map[string]any {
		return map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": w.account},
			"destination":        map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": address, "currency": "MXN"},
			"lockedCurrencySide": "RECEIVING", "lockedCurrencyAmount": 1_000}
	}
	refused := func(t *testing.T, what string, r *apitest.Response, wantStatus int, wantCode, failure string, took time.Duration) {
		t.Helper()
		if r.Status != wantStatus || r.Code(t) != wantCode || !strings.Contains(string(r.Body), `"failure":"`+failure+`"`) {
			t.Errorf("%s: %d %s, want %d %s with failure %s", what, r.Status, r.Body, wantStatus, wantCode, failure)
		}
		if took > 30*time.Second {
			t.Errorf("%s: answered after %s", what, took)
		}
	}
	heldBefore, quotesBefore := written()
	t.Run("lnurlp", func(t *testing.T) {
		for _, name := range lnurlpCases {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				address := "$bob@" + name + providerSuffix
				if name == "lnurlp-replay" { // its first answer is good, and given again
					if r := w.c.Do("GET", "/receiver/uma/"+address, nil); r.Status != 200 {
						t.Fatalf("the first answer: %d %s", r.Status, r.Body)
					}
				}
				start := time.Now()
				r := w.c.Do("GET", "/receiver/uma/"+address, nil)
				refused(t, "lookup", r, 400, "INVALID_UMA_ADDRESS", "LNURLP_FAILED", time.Since(start))
				start = time.Now()
				r = w.c.Do("POST", "/quotes", quote(address))
				refused(t, "quote", r, 400, "INVALID_UMA_ADDRESS", "LNURLP_FAILED", time.Since(start))
			})
		}
	})
	t.Run("payreq", func(t *testing.T) {
		for _, name := range payCases {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				r := w.c.Do("POST", "/quotes", quote("$bob@"+name+providerSuffix))
				refused(t, "quote", r, 424, "PAYREQ_REQUEST_FAILED", "PAY_REQUEST_FAILED", time.Since(start))
			})
		}
	})
	if held, quotes := written(); held != heldBefore || quotes != quotesBefore {
		t.Fatalf("refused quotes wrote: held %d (was %d), quotes %d (was %d)", held, heldBefore, quotes, quotesBefore)
	}
	if got := w.balance(); got != 100_000 {
		t.Fatalf("the sender's balance %d", got)
	}

	// An invoice its provider answered that the network cannot deliver (more than the
	// channel holds) fails the payment when it is executed, before anything left: FAILED
	// with the network's cause, the hold released, the sender's balance whole again.
	peer := lntest.Dial(t, n.Peer)
	m.mu.Lock()
	m.invoice = func(sats int64) string {
		inv, err := peer.AddInvoice(ctx, lnd.NewInvoice{Sats: sats, Memo: "no route", Expiry: time.Hour})
		if err != nil {
			t.Error(err)
			return ""
		}
		return inv.PaymentRequest
	}
	m.mu.Unlock()
	w.fund(20_000_000)
	before := w.balance()
	body := quote("$bob@payreq-noroute" + providerSuffix)
	body["immediatelyExecute"] = true
	r := w.c.Do("POST", "/quotes", body)
	if r.Status != 201 {
		t.Fatalf("a quote whose invoice cannot be delivered: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(t, &q)
	failed := w.waitFinal(q.TransactionID, 90*time.Second)
	if failed.Status != "FAILED" || failed.FailureDetails == nil || w.balance() != before {
		t.Fatalf("undeliverable: %+v, balance %d (was %d)", failed, w.balance(), before)
	}
	if held, _ := written(); held != heldBefore {
		t.Fatalf("undeliverable: %d still held", held)
	}
	t.Logf("undeliverable: failureReason %v, failureDetails %+v", db.Deref(failed.FailureReason), *failed.FailureDetails)
}
