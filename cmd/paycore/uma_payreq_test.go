package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/internal/uma"
)

// umaWebhooks is a platform's webhook endpoint that records the INCOMING_PAYMENT_PENDING
// events it is asked to approve and rejects the payments of one amount.
type umaWebhooks struct {
	mu      sync.Mutex
	pending map[string]map[string]string // transaction id → counterpartyInformation
	reject  int64
}

func newUmaWebhooks(t *testing.T, reject int64) (*umaWebhooks, string) {
	h := &umaWebhooks{pending: map[string]map[string]string{}, reject: reject}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var ev struct {
			Type string `json:"type"`
			Data struct {
				ID             string            `json:"id"`
				Counterparty   map[string]string `json:"counterpartyInformation"`
				ReceivedAmount struct {
					Amount int64 `json:"amount"`
				} `json:"receivedAmount"`
			} `json:"data"`
		}
		_ = json.Unmarshal(b, &ev)
		if ev.Type == "INCOMING_PAYMENT_PENDING" {
			h.mu.Lock()
			h.pending[ev.Data.ID] = ev.Data.Counterparty
			h.mu.Unlock()
			if ev.Data.ReceivedAmount.Amount == h.reject {
				w.WriteHeader(http.StatusForbidden)
				_, _ = io.WriteString(w, `{"code":"FORBIDDEN","message":"no","reason":"RESTRICTED_JURISDICTION"}`)
				return
			}
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return h, srv.URL
}

func (h *umaWebhooks) asked(id string) map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pending[id]
}

// A pay request from another UMA provider, made by the official SDK (the sender's signing
// key, the payer's travel-rule data encrypted to the deployment's published key), for a
// customer's address on its platform's proven domain: the platform is asked to approve it
// with the payer's data decrypted; the answer carries an invoice of the deployment's node
// for the conversion locked (the sender's own check accepts it) and the deployment's signed
// compliance data (the SDK verifies it); paying the invoice completes the INCOMING payment
// once, crediting the customer's USD at that conversion, and the node and the ledger agree.
// A rejected payment, an unpaid invoice, a replayed nonce, a forged signature, a currency
// not received and an unknown user are each the protocol's refusal, nothing credited.
func TestLightningUmaPayRequest(t *testing.T) {
	ctx := context.Background()
	const domain = "pay.receiving.internal"
	prover, resolve := newDomainProver(t, domain)
	s, n, _ := lightningStack(t, 18710, resolve, func(c *config.Config) { c.UmaInvoiceExpiry = 5 * time.Second })
	w := lightningWorld(t, s, 1)
	if r := w.c.Do("PATCH", "/config", map[string]any{"umaDomain": domain}); r.Status != 200 {
		t.Fatalf("umaDomain: %d %s", r.Status, r.Body)
	}
	prover.prove(t, w.c, domain)
	hooks, url := newUmaWebhooks(t, 777)
	setEndpointDirect(t, s, w.platform, url)
	r := w.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US",
		"fullName": "Carol Receiver", "currencies": []string{"USD"}, "umaAddress": "$carol@" + domain})
	if r.Status != 201 {
		t.Fatalf("customer: %d %s", r.Status, r.Body)
	}
	carol := r.JSON(t)["id"].(string)
	var accounts struct {
		Data []view.InternalAccount `json:"data"`
	}
	balance := func() int64 {
		w.c.Do("GET", "/customers/internal-accounts?currency=USD&customerId="+carol, nil).Decode(t, &accounts)
		return accounts.Data[0].Balance.Amount
	}

	sender := newSenderProvider(t, time.Now().Add(24*time.Hour), nil)
	_, published := s.hostGet(domain, "/.well-known/lnurlpubkey")
	sdk := umaSDK(t)
	payer := "$alice@" + sender.domain
	const travelRule = `{"originator":{"name":"Alice Sender","account":"1234"}}`
	// The sender's provider asks to be told which channels carried its payments (UMAD-07).
	told := make(chan []byte, 4)
	utxoCallback := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		told <- b
	}))
	t.Cleanup(utxoCallback.Close)
	payRequest := func(amount int64, currency string) string {
		var out struct{ JSON string }
		sdk.Call(map[string]any{"op": "payRequest", "privateKey": hex.EncodeToString(sender.signing.Bytes()), "receiverKeys": string(published),
			"amount": amount, "inReceiving": true, "currency": currency, "payer": payer, "trInfo": travelRule,
			"utxoCallback": utxoCallback.URL + "/utxo"}, &out)
		return out.JSON
	}
	post := func(user, body string) (int, []byte) {
		return s.hostDo("POST", domain, "/.well-known/lnurlp/"+user+"/callback", []byte(body))
	}
	refused := func(name string, status int, body []byte, wantStatus int, wantCode string) {
		t.Helper()
		var e struct{ Status, Code, Reason string }
		if err := json.Unmarshal(body, &e); err != nil || status != wantStatus || e.Status != "ERROR" || e.Code != wantCode || e.Reason == "" {
			t.Errorf("%s: %d %s, want %d %s", name, status, body, wantStatus, wantCode)
		}
	}
	incoming := func() []view.Transaction {
		var list struct {
			Data []view.Transaction `json:"data"`
		}
		w.c.Do("GET", "/transactions?type=INCOMING&customerId="+carol, nil).Decode(t, &list)
		return list.Data
	}
	find := func(status string, amount int64) *view.Transaction {
		for _, tx := range incoming() {
			if string(tx.Status) == status && tx.ReceivedAmount.Amount == amount {
				return &tx
			}
		}
		return nil
	}

	// An invoice nobody pays: the payment fails QUOTE_EXPIRED once it expired.
	if status, body := post("$carol", payRequest(1500, "USD")); status != 200 {
		t.Fatalf("pay request for the unpaid invoice: %d %s", status, body)
	}

	ledgerBefore := ledgerLightning(t, s)
	body := payRequest(1000, "USD")
	status, answer := post("$carol", body)
	if status != 200 {
		t.Fatalf("pay request: %d %s", status, answer)
	}
	var resp uma.PayReqResponse
	if err := json.Unmarshal(answer, &resp); err != nil {
		t.Fatal(err)
	}
	var ok struct{ Valid bool }
	sdk.Call(map[string]string{"op": "verifyPayReqResponse", "json": string(answer), "payer": payer, "payee": "$carol@" + domain, "pubKeys": string(published)}, &ok)
	if !ok.Valid || resp.Converted == nil || resp.Converted.Amount != 1000 || resp.Converted.CurrencyCode != "USD" || resp.PayeeData.Identifier != "$carol@"+domain ||
		resp.PayeeData.Name != "" {
		t.Fatalf("pay request's response (SDK verified %v): %s", ok.Valid, answer)
	}
	var decoded struct {
		Sats   string `json:"num_satoshis"`
		Expiry string `json:"expiry"`
	}
	if err := n.Peer.CLIJSON(ctx, &decoded, "decodepayreq", resp.PR); err != nil {
		t.Fatal(err)
	}
	var req uma.PayRequest
	_ = json.Unmarshal([]byte(body), &req)
	sats := int64(0)
	_ = json.Unmarshal([]byte(decoded.Sats), &sats)
	if err := resp.CheckInvoice(req, sats*1000, time.Now().Add(5*time.Second), time.Now(), 1<<40); err != nil || decoded.Expiry != "5" {
		t.Fatalf("the sender's check of the invoice (%s sat, expiry %s): %v", decoded.Sats, decoded.Expiry, err)
	}
	pending := find("PENDING", 1000)
	if pending == nil || pending.Source.UmaAddress != payer || pending.SentAmount == nil || pending.SentAmount.Amount != sats {
		t.Fatalf("the pending payment: %+v", pending)
	}
	asked := hooks.asked(pending.ID)
	if asked["TRAVEL_RULE_INFO"] != travelRule || asked["FULL_NAME"] != "Alice Sender" || asked["UMA_ADDRESS"] != payer || asked["KYC_STATUS"] != uma.KycVerified {
		t.Fatalf("the approval webhook's counterparty: %v", asked)
	}
	if _, err := n.Peer.CLI(ctx, "payinvoice", "--force", resp.PR); err != nil {
		t.Fatal(err)
	}
	done := w.waitFinal(pending.ID, 30*time.Second)
	if done.Status != "COMPLETED" || balance() != 1000 {
		t.Fatalf("paid: %+v, balance %d", done, balance())
	}
	if got := ledgerLightning(t, s) - ledgerBefore; got != -sats {
		t.Errorf("the node's ledger account moved %d, want -%d (what came in)", got, sats)
	}
	// The deployment tells the sender's provider which channel carried the payment, signed
	// with its key for the platform's domain (the SDK verifies it with the published keys).
	select {
	case b := <-told:
		var cb uma.PostTransactionCallback
		sdk.Call(map[string]string{"op": "verifyPostTxCallback", "json": string(b), "pubKeys": string(published)}, &ok)
		if err := json.Unmarshal(b, &cb); err != nil || !ok.Valid || cb.VaspDomain != domain || len(cb.Utxos) != 1 || cb.Utxos[0].AmountMsats != sats*1000 ||
			!strings.Contains(cb.Utxos[0].Utxo, ":") {
			t.Fatalf("the post-transaction callback to the sender (SDK verified %v): %s", ok.Valid, b)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no post-transaction callback to the sender")
	}
	// The sender's post-transaction callback (made by the SDK) at the URL the answer named is
	// kept once; one signed by another key, or for another provider's payment, is refused.
	cbURL, err := neturl.Parse(resp.PayeeData.Compliance.UtxoCallback)
	if err != nil || cbURL.Host != domain {
		t.Fatalf("utxoCallback %q", resp.PayeeData.Compliance.UtxoCallback)
	}
	callback := func(key uma.PrivateKey, vasp string) string {
		var out struct{ JSON string }
		sdk.Call(map[string]string{"op": "postTxCallback", "privateKey": hex.EncodeToString(key.Bytes()), "domain": vasp}, &out)
		return out.JSON
	}
	stranger, _ := uma.NewPrivateKey()
	st, b := s.hostDo("POST", domain, cbURL.Path, []byte(callback(stranger, sender.domain)))
	refused("a callback signed by another key", st, b, 401, "INVALID_SIGNATURE")
	st, b = s.hostDo("POST", domain, cbURL.Path, []byte(callback(sender.signing, "127.0.0.1:1")))
	refused("a callback from another provider", st, b, 404, "REQUEST_NOT_FOUND")
	if st, b := s.hostDo("POST", domain, cbURL.Path, []byte(callback(sender.signing, sender.domain))); st != 200 {
		t.Fatalf("post-transaction callback: %d %s", st, b)
	}
	var kept string
	if err := s.app.pool.QueryRow(ctx, `SELECT vasp_domain FROM uma_utxo_callbacks WHERE transaction_id = $1`, uuidOf(pending.ID)).Scan(&kept); err != nil || kept != sender.domain {
		t.Fatalf("the callback kept: %q %v", kept, err)
	}
	// Paying the invoice again moves nothing.
	if _, err := n.Peer.CLI(ctx, "payinvoice", "--force", resp.PR); err == nil {
		t.Error("an invoice paid twice")
	}
	st, b = post("$carol", body)
	refused("the same pay request again", st, b, 400, "INVALID_NONCE")

	// The platform rejects 7.77: no invoice, the payment REJECTED.
	st, b = post("$carol", payRequest(777, "USD"))
	refused("rejected by the platform", st, b, 400, "SENDER_NOT_ACCEPTED")
	if find("REJECTED", 777) == nil {
		t.Errorf("the rejected payment: %+v", incoming())
	}
	st, b = post("$carol", payRequest(1000, "EUR"))
	refused("a currency not received", st, b, 400, "INVALID_CURRENCY")
	st, b = post("$nobody", payRequest(1000, "USD"))
	refused("an unknown user", st, b, 404, "USER_NOT_FOUND")
	var forged map[string]any
	_ = json.Unmarshal([]byte(payRequest(1000, "USD")), &forged)
	forged["payerData"].(map[string]any)["compliance"].(map[string]any)["signature"] = strings.Repeat("30", 35)
	fb, _ := json.Marshal(forged)
	st, b = post("$carol", string(fb))
	refused("a forged signature", st, b, 401, "INVALID_SIGNATURE")
	// Payee data: the name when asked (the platform's customer's), a requirement it cannot meet refused.
	withPayee := func(payee string) string {
		var m map[string]any
		_ = json.Unmarshal([]byte(payRequest(1200, "USD")), &m)
		m["payeeData"] = json.RawMessage(payee)
		out, _ := json.Marshal(m)
		return string(out)
	}
	st, b = post("$carol", withPayee(`{"identifier":{"mandatory":true},"compliance":{"mandatory":true},"name":{"mandatory":true}}`))
	var named uma.PayReqResponse
	if err := json.Unmarshal(b, &named); st != 200 || err != nil || named.PayeeData.Name != "Carol Receiver" {
		t.Errorf("the payee's name asked: %d %s", st, b)
	}
	st, b = post("$carol", withPayee(`{"countryCode":{"mandatory":true}}`))
	refused("a payee field it does not give, required", st, b, 501, "UNRECOGNIZED_MANDATORY_PAYEE_DATA_KEY")
	st, b = post("$carol", "{not json")
	refused("not JSON", st, b, 400, "PARSE_PAYREQ_REQUEST_ERROR")

	eventually(t, 60*time.Second, "the unpaid invoice's payment failed", func() bool { return find("FAILED", 1500) != nil })
	if f := find("FAILED", 1500); f.FailureReason == nil || *f.FailureReason != "QUOTE_EXPIRED" {
		t.Errorf("the unpaid payment: %+v", f)
	}
	if balance() != 1000 {
		t.Errorf("balance %d after refusals", balance())
	}
	reconcile(t, s, n)
}
