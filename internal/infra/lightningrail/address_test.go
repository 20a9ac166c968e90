package lightningrail_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/infra/lightningrail"
	"paycore/internal/infra/lnregtest"
	"paycore/internal/infra/lnregtest/lntest"
	"paycore/internal/lightning"
)

// addressService is a Lightning address service (LNURL-pay) on loopback TLS whose
// invoices the counterparty node creates: alice answers by the protocol; the other users
// answer as broken or hostile services do.
type addressService struct {
	srv       *httptest.Server
	callbacks atomic.Int64
}

func newAddressService(t *testing.T, n *lnregtest.Network) *addressService {
	t.Helper()
	a := &addressService{}
	meta := `[["text/plain","alice's wallet"],["text/identifier","alice@pay.example"]]`
	payRequest := func(w http.ResponseWriter, user string, maxMsat int64) {
		_ = json.NewEncoder(w).Encode(map[string]any{"tag": "payRequest", "callback": a.srv.URL + "/cb/" + user,
			"minSendable": 1000, "maxSendable": maxMsat, "metadata": meta})
	}
	invoice := func(w http.ResponseWriter, r *http.Request, sats int64, descriptionHash string) {
		var inv struct {
			PaymentRequest string `json:"payment_request"`
		}
		args := []string{"addinvoice", "--amt", strconv.FormatInt(sats, 10)}
		if descriptionHash != "" {
			args = append(args, "--description_hash", descriptionHash)
		}
		if err := n.Peer.CLIJSON(r.Context(), &inv, args...); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"pr": inv.PaymentRequest, "routes": []any{}})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/lnurlp/{user}", func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("user") {
		case "alice", "wrongamount", "wronghash":
			payRequest(w, r.PathValue("user"), 1_000_000_000)
		case "small":
			payRequest(w, "small", 1_000_000) // 1,000 sat at most
		case "refuses":
			_, _ = w.Write([]byte(`{"status":"ERROR","reason":"no such user"}`))
		case "garbage":
			_, _ = w.Write([]byte(`<html><body>It works!</body></html>`))
		case "slow":
			time.Sleep(3 * time.Second)
			payRequest(w, "alice", 1_000_000_000)
		case "redirect":
			http.Redirect(w, r, "https://10.0.0.1/.well-known/lnurlp/alice", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
	mux.HandleFunc("GET /cb/{user}", func(w http.ResponseWriter, r *http.Request) {
		a.callbacks.Add(1)
		msat, _ := strconv.ParseInt(r.URL.Query().Get("amount"), 10, 64)
		p := lightning.PayRequest{Metadata: meta}
		switch r.PathValue("user") {
		case "alice":
			invoice(w, r, msat/1000, p.DescriptionHash())
		case "wrongamount":
			invoice(w, r, msat/1000+1, p.DescriptionHash())
		case "wronghash":
			invoice(w, r, msat/1000, strings.Repeat("ab", 32))
		}
	})
	a.srv = httptest.NewTLSServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

// address is user's Lightning address at the service.
func (a *addressService) address(user string) string {
	return user + "@" + strings.TrimPrefix(a.srv.URL, "https://")
}

// The rail pays a Lightning address: it resolves the address once per payment, recorded
// before it pays, so submitting the payment again pays the same invoice and never a second
// one; an address it must not pay fails with LIGHTNING_ADDRESS_FAILED and nothing sent: a
// service's refusal, garbage, a slow answer, a redirect, an amount out of its range, an
// invoice for another amount or not committing to its metadata, and a private address
// under the outbound-address guard.
func TestLightningRailPaysAddresses(t *testing.T) {
	n, node := lntest.Start(t, 18640)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pool, _ := dbtest.NewPool(t)
	store := db.NewStore(pool, view.Resources{})
	svc := newAddressService(t, n)
	client := svc.srv.Client() // trusts the service's certificate; follows no redirect, 1 s a request
	client.Timeout = time.Second
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	r := lightningrail.New(node, lightningrail.Options{Timeout: 20 * time.Second, Invoices: store,
		HTTP: func(catalog.Environment) *http.Client { return client }})
	before, err := node.Balances(ctx)
	if err != nil {
		t.Fatal(err)
	}

	for i := range 3 { // the first submission resolves and pays; the others find the payment
		out, err := r.Submit(ctx, payout("tx-address", svc.address("alice"), 5_000))
		if err != nil || out.Status != catalog.TxCompleted {
			t.Fatalf("submit %d: %+v %v", i, out, err)
		}
	}
	if got := svc.callbacks.Load(); got != 1 {
		t.Fatalf("the address was asked for %d invoices, want 1", got)
	}
	after := settled(ctx, t, node)
	if paid := before.Total() - after.Total(); paid != 5_000 {
		t.Fatalf("%d sat left the node, want 5000", paid)
	}

	for _, user := range []string{"refuses", "garbage", "slow", "redirect", "small", "wrongamount", "wronghash", "nobody"} {
		out, err := r.Submit(ctx, payout("tx-"+user, svc.address(user), 5_000))
		if err != nil || out.Status != catalog.TxFailed || out.Code != catalog.FailLightningAddress || out.Message == "" {
			t.Errorf("%s: %+v %v", user, out, err)
		}
	}
	// The default client is the guard's: a loopback address is refused before connecting.
	guarded := lightningrail.New(node, lightningrail.Options{Invoices: store})
	out, err := guarded.Submit(ctx, payout("tx-private", svc.address("alice"), 5_000))
	if err != nil || out.Status != catalog.TxFailed || out.Code != catalog.FailLightningAddress {
		t.Errorf("a private address under the guard: %+v %v", out, err)
	}
	if b := settled(ctx, t, node); b.Total() != after.Total() {
		t.Fatalf("a refused address moved money: %+v", b)
	}
	t.Logf("guarded refusal: %s", out.Message)
}
