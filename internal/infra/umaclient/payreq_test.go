package umaclient

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/infra/netguard"
	"paycore/internal/uma"
)

// nonces is an in-memory Nonces: each (domain, nonce) once.
type nonces struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (n *nonces) UmaNonceTake(_ context.Context, domain, nonce string, _, _ time.Time) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seen[domain+"|"+nonce] {
		return uma.ErrNonceUsed
	}
	n.seen[domain+"|"+nonce] = true
	return nil
}

// receiver is another provider answering pay requests as a test case makes it: answer
// rewrites its otherwise valid answer, or writes its own (done true).
type receiver struct {
	key    uma.PrivateKey
	chain  []byte
	srv    *httptest.Server
	mu     sync.Mutex
	answer func(w http.ResponseWriter, resp *uma.PayReqResponse) (done bool)
	// last is the last answer, which every later request gets again.
	last *uma.PayReqResponse
	// lnurlp answers the LNURLP requests (none when nil).
	lnurlp http.HandlerFunc
}

func newReceiver(t *testing.T, certNotAfter time.Time) *receiver {
	t.Helper()
	k, err := uma.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	der, err := uma.SelfSigned(k, "receiver", 1, time.Now().Add(-48*time.Hour), certNotAfter)
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{key: k, chain: der}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/.well-known/lnurlpubkey" {
			_ = json.NewEncoder(w).Encode(uma.PubKeyResponse{SigningCertChain: []string{hex.EncodeToString(r.chain)},
				EncryptionCertChain: []string{hex.EncodeToString(r.chain)}})
			return
		}
		r.mu.Lock()
		lnurlp := r.lnurlp
		r.mu.Unlock()
		if lnurlp != nil && strings.HasPrefix(req.URL.Path, "/.well-known/lnurlp/") {
			lnurlp(w, req)
			return
		}
		var pr uma.PayRequest
		if err := json.NewDecoder(req.Body).Decode(&pr); err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		resp := uma.PayReqResponse{PR: "lnbcrt10u1example", Routes: []struct{}{}, UmaVersion: uma.Version,
			Converted: &uma.Converted{Amount: 1000, CurrencyCode: "MXN", Decimals: 2, Multiplier: 1000, Fee: 0},
			PayeeData: uma.PayeeData{Identifier: "$bob@" + r.domain(), Compliance: uma.SignedPayeeCompliance(r.key, pr.PayerData.Identifier, "$bob@"+r.domain(), "", "", time.Now())}}
		r.mu.Lock()
		answer := r.answer
		if r.last != nil {
			resp = *r.last
		}
		r.last = &resp
		r.mu.Unlock()
		if answer != nil && answer(w, &resp) {
			return
		}
		_ = json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) domain() string { return strings.TrimPrefix(r.srv.URL, "http://") }

// Every way another provider can answer a pay request badly is refused with the protocol's
// reason, promptly: it refuses (its code kept), answers garbage, no invoice or no
// compliance data, too slowly, with a redirect (not followed, whatever its target), a
// signature of another key, a nonce it used before, an old timestamp, another major
// version, or keys whose certificate expired. A good answer passes, once: the same answer
// again is a replay.
func TestPayRequestRefusals(t *testing.T) {
	sender, err := uma.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	ask := func(t *testing.T, r *receiver, timeout time.Duration) error {
		t.Helper()
		c := testClient(timeout)
		req, err := uma.NewPayRequest(sender, sender.Public(), "1000.MXN", "MXN", uma.Payer{Identifier: "$alice@pay.alice.example", KycStatus: uma.KycVerified}, nil, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.PayRequest(context.Background(), catalog.Sandbox, r.srv.URL+"/callback", "$bob@"+r.domain(), req)
		if err == nil {
			// The same client again: a replayed answer's nonce is refused.
			_, err = c.PayRequest(context.Background(), catalog.Sandbox, r.srv.URL+"/callback", "$bob@"+r.domain(), req)
			if err == nil {
				return nil
			}
			return errors.Join(errReplayed, err)
		}
		return err
	}
	good := newReceiver(t, time.Now().Add(24*time.Hour))
	if err := ask(t, good, 5*time.Second); !errors.Is(err, errReplayed) || !errors.Is(err, uma.ErrNonceUsed) {
		t.Fatalf("a good answer twice: the first passes, the second is a replay: %v", err)
	}

	stranger, _ := uma.NewPrivateKey()
	cases := map[string]struct {
		answer  func(w http.ResponseWriter, resp *uma.PayReqResponse) bool
		expired bool
		timeout time.Duration
		want    error
		code    string
	}{
		"refused": {answer: func(w http.ResponseWriter, _ *uma.PayReqResponse) bool {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"status":"ERROR","code":"SENDER_NOT_ACCEPTED","reason":"no"}`))
			return true
		}, want: ErrPayRequestFailed, code: "SENDER_NOT_ACCEPTED"},
		"garbage":    {answer: func(w http.ResponseWriter, _ *uma.PayReqResponse) bool { _, _ = w.Write([]byte("<html>")); return true }, want: ErrPayRequestFailed},
		"no invoice": {answer: func(_ http.ResponseWriter, r *uma.PayReqResponse) bool { r.PR = ""; return false }, want: ErrPayRequestFailed},
		"not UMA":    {answer: func(_ http.ResponseWriter, r *uma.PayReqResponse) bool { r.PayeeData.Compliance = nil; return false }, want: ErrPayRequestFailed},
		"slow": {answer: func(_ http.ResponseWriter, _ *uma.PayReqResponse) bool { time.Sleep(2 * time.Second); return false },
			timeout: 300 * time.Millisecond, want: ErrPayRequestFailed},
		"redirected": {answer: func(w http.ResponseWriter, _ *uma.PayReqResponse) bool {
			w.Header().Set("Location", "http://169.254.169.254/latest/meta-data")
			w.WriteHeader(http.StatusFound)
			return true
		}, want: ErrPayRequestFailed},
		"another key's signature": {answer: func(_ http.ResponseWriter, r *uma.PayReqResponse) bool {
			c := *r.PayeeData.Compliance
			c.Signature = stranger.Sign(c.SignablePayload("$alice@pay.alice.example", r.PayeeData.Identifier))
			r.PayeeData.Compliance = &c
			return false
		}, want: uma.ErrBadSignature, code: "INVALID_SIGNATURE"},
		"an old timestamp": {answer: func(_ http.ResponseWriter, r *uma.PayReqResponse) bool {
			r.PayeeData.Compliance = uma.SignedPayeeCompliance(stranger, "x", "y", "", "", time.Now().Add(-2*time.Hour))
			return false
		}, want: uma.ErrInvalidTimestamp, code: "INVALID_TIMESTAMP"},
		"another major version": {answer: func(_ http.ResponseWriter, r *uma.PayReqResponse) bool { r.UmaVersion = "2.0"; return false },
			code: "UNSUPPORTED_UMA_VERSION"},
		"an expired certificate": {expired: true, want: uma.ErrCertChainExpired, code: "CERT_CHAIN_EXPIRED"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			notAfter := time.Now().Add(24 * time.Hour)
			if tc.expired {
				notAfter = time.Now().Add(-time.Hour)
			}
			r := newReceiver(t, notAfter)
			r.answer = tc.answer
			timeout := cmp.Or(tc.timeout, 5*time.Second)
			start := time.Now()
			expectRefused(t, ask(t, r, timeout), start, timeout, tc.want, tc.code)
		})
	}
}

var errReplayed = errors.New("the second answer was refused")

// testClient is a client with a cache and nonces of its own, whose requests (to loopback
// too) give up after timeout.
func testClient(timeout time.Duration) *Client {
	return &Client{Cache: cache{}, Nonces: &nonces{seen: map[string]bool{}}, Now: time.Now, HTTP: func(catalog.Environment) *http.Client {
		return netguard.NewClient(netguard.ClientOptions{AllowPrivate: true, Timeout: timeout})
	}}
}

// expectRefused fails unless err, the outcome of a request started at start with timeout,
// is a refusal wrapping want and of the protocol's code (each unless empty), in time.
func expectRefused(t *testing.T, err error, start time.Time, timeout time.Duration, want error, code string) {
	t.Helper()
	switch {
	case err == nil || errors.Is(err, errReplayed):
		t.Fatalf("accepted (%v)", err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("%v, want %v", err, want)
	case code != "" && uma.Refusal(err).Code != code:
		t.Fatalf("code %s (%v), want %s", uma.Refusal(err).Code, err, code)
	case time.Since(start) > timeout+2*time.Second:
		t.Fatalf("took %s", time.Since(start))
	}
}

// lnurlpReceiver is another provider answering LNURLP requests for $bob as answer makes it
// (a valid, signed answer unless it rewrites it, or writes its own: done true). The same
// answer is given again to every later request.
func lnurlpReceiver(t *testing.T, certNotAfter time.Time, answer func(w http.ResponseWriter, resp *uma.LnurlpResponse) bool) *receiver {
	t.Helper()
	r := newReceiver(t, certNotAfter)
	var last *uma.LnurlpResponse
	var mu sync.Mutex
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lnurlp = func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if last == nil {
			address := "$bob@" + r.domain()
			resp := uma.LnurlpResponse{Tag: "payRequest", Callback: r.srv.URL + "/callback", MinSendable: 1000, MaxSendable: 1_000_000_000, Metadata: "[]",
				Currencies: []uma.Currency{{Code: "MXN", Name: "Peso", Symbol: "$", Multiplier: 1000, Decimals: 2, Convertible: uma.Convertible{Min: 1, Max: 1_000_000}}},
				UmaVersion: uma.Version, Compliance: uma.SignedCompliance(r.key, uma.LnurlpRequest{ReceiverAddress: address}, uma.KycVerified, true, time.Now())}
			last = &resp
			if answer != nil && answer(w, last) {
				last = nil
				return
			}
		}
		_ = json.NewEncoder(w).Encode(last)
	}
	return r
}

// Every way another provider can answer an LNURLP request badly is refused with the
// protocol's reason, promptly, as its pay request answers are (TestPayRequestRefusals); a
// good answer passes once, the same answer again is a replay.
func TestLnurlpRefusals(t *testing.T) {
	sender, err := uma.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	ask := func(t *testing.T, r *receiver, timeout time.Duration) error {
		t.Helper()
		c := testClient(timeout)
		for i := range 2 {
			if _, err := c.Lnurlp(context.Background(), catalog.Sandbox, sender, "pay.alice.example", "$bob@"+r.domain(), true); err != nil {
				if i == 1 {
					return errors.Join(errReplayed, err)
				}
				return err
			}
		}
		return nil
	}
	good := lnurlpReceiver(t, time.Now().Add(24*time.Hour), nil)
	if err := ask(t, good, 5*time.Second); !errors.Is(err, errReplayed) || !errors.Is(err, uma.ErrNonceUsed) {
		t.Fatalf("a good answer twice: the first passes, the second is a replay: %v", err)
	}
	stranger, _ := uma.NewPrivateKey()
	cases := map[string]struct {
		answer  func(w http.ResponseWriter, r *uma.LnurlpResponse) bool
		expired bool
		timeout time.Duration
		want    error
		code    string
	}{
		"garbage": {answer: func(w http.ResponseWriter, _ *uma.LnurlpResponse) bool { _, _ = w.Write([]byte("<html>")); return true }, want: ErrLnurlpFailed},
		"not UMA": {answer: func(_ http.ResponseWriter, r *uma.LnurlpResponse) bool { r.Compliance = nil; return false }, want: ErrLnurlpFailed},
		"another receiver": {answer: func(_ http.ResponseWriter, r *uma.LnurlpResponse) bool {
			r.Compliance.ReceiverIdentifier = "$eve@x.example"
			return false
		}, want: ErrLnurlpFailed},
		"no currency": {answer: func(_ http.ResponseWriter, r *uma.LnurlpResponse) bool { r.Currencies = nil; return false }, want: ErrLnurlpFailed},
		"slow":        {answer: func(_ http.ResponseWriter, _ *uma.LnurlpResponse) bool { time.Sleep(2 * time.Second); return false }, timeout: 300 * time.Millisecond, want: ErrLnurlpFailed},
		"redirected": {answer: func(w http.ResponseWriter, _ *uma.LnurlpResponse) bool {
			w.Header().Set("Location", "http://10.0.0.1/")
			w.WriteHeader(http.StatusFound)
			return true
		}, want: ErrLnurlpFailed},
		"another major version": {answer: func(_ http.ResponseWriter, r *uma.LnurlpResponse) bool { r.UmaVersion = "2.0"; return false }, code: "UNSUPPORTED_UMA_VERSION"},
		"an old timestamp": {answer: func(_ http.ResponseWriter, r *uma.LnurlpResponse) bool {
			r.Compliance = uma.SignedCompliance(stranger, uma.LnurlpRequest{ReceiverAddress: r.Compliance.ReceiverIdentifier}, uma.KycVerified, true, time.Now().Add(-2*time.Hour))
			return false
		}, want: uma.ErrInvalidTimestamp, code: "INVALID_TIMESTAMP"},
		"another key's signature": {answer: func(_ http.ResponseWriter, r *uma.LnurlpResponse) bool {
			r.Compliance = uma.SignedCompliance(stranger, uma.LnurlpRequest{ReceiverAddress: r.Compliance.ReceiverIdentifier}, uma.KycVerified, true, time.Now())
			return false
		}, want: uma.ErrBadSignature, code: "INVALID_SIGNATURE"},
		"an expired certificate": {expired: true, want: uma.ErrCertChainExpired, code: "CERT_CHAIN_EXPIRED"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			notAfter := time.Now().Add(24 * time.Hour)
			if tc.expired {
				notAfter = time.Now().Add(-time.Hour)
			}
			timeout := cmp.Or(tc.timeout, 5*time.Second)
			start := time.Now()
			expectRefused(t, ask(t, lnurlpReceiver(t, notAfter, tc.answer), timeout), start, timeout, tc.want, tc.code)
		})
	}
}

// The caller's deadline bounds a provider's answer even when the client would wait longer:
// a provider slower than the deadline is a failed request, refused, when the deadline ends.
func TestDeadlineBoundsTheExchange(t *testing.T) {
	r := lnurlpReceiver(t, time.Now().Add(24*time.Hour), func(_ http.ResponseWriter, _ *uma.LnurlpResponse) bool {
		time.Sleep(3 * time.Second)
		return false
	})
	sender, _ := uma.NewPrivateKey()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := testClient(10*time.Second).Lnurlp(ctx, catalog.Sandbox, sender, "pay.alice.example", "$bob@"+r.domain(), true)
	expectRefused(t, err, start, 300*time.Millisecond, ErrLnurlpFailed, "")
}
