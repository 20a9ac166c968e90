package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"paycore/api"
	"paycore/db"
	"paycore/db/view"
	"paycore/internal/banking"
)

// rawRequest sends a request line the Go client would refuse to build and reads the answer.
func rawRequest(t *testing.T, addr, method, target, user, pass string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n", method, target)
	if user != "" {
		r, _ := http.NewRequest("GET", "http://x/", nil)
		r.SetBasicAuth(user, pass)
		req += "Authorization: " + r.Header.Get("Authorization") + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// Bad input in the body, the query string, the path or the headers is a 400 in the error
// envelope that names the field, for every route at once; nothing reaches a handler.
func TestMalformedInputIsRefusedAtDecoding(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, p := e.platform(true)
	cust := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "fullName": "Ada", "currencies": []string{"USD"}}).JSON(t)["id"].(string)
	raw := *c
	raw.SkipValidation = true
	cases := []struct {
		name, method, path string
		body               any
		headers            []string
		field              string
	}{
		{"case-folded field name", "POST", "/tokens", `{"NAME": "x", "permissions": ["VIEW"]}`, nil, "NAME"},
		{"duplicate key", "POST", "/tokens", `{"name": "x", "name": "y", "permissions": ["VIEW"]}`, nil, "name"},
		{"NUL in body", "POST", "/tokens", `{"name": "a\u0000b", "permissions": ["VIEW"]}`, nil, "name"},
		{"invalid UTF-8 in body", "POST", "/tokens", "{\"name\": \"\xff\", \"permissions\": [\"VIEW\"]}", nil, "name"},
		{"blank required string", "POST", "/customers", `{"customerType": "INDIVIDUAL", "region": "US", "platformCustomerId": "   "}`, nil, "platformCustomerId"},
		{"NUL in transfer description", "POST", "/transfer-out", `{"source": {"accountId": "InternalAccount:0190a000-0000-7000-8000-000000000001"}, "destination": {"accountId": "ExternalAccount:0190a000-0000-7000-8000-000000000001"}, "amount": 5, "description": "x\u0000"}`, nil, "description"},
		{"NUL in query", "GET", "/customers?platformCustomerId=%00", nil, nil, "platformCustomerId"},
		{"invalid UTF-8 in query", "GET", "/customers?platformCustomerId=%FF", nil, nil, "platformCustomerId"},
		{"bad escape in query", "GET", "/transactions?customerId=%ZZ" + cust, nil, nil, ""},
		{"semicolon separator", "GET", "/transactions?customerId=" + cust + ";limit=5", nil, nil, ""},
		{"repeated parameter", "GET", "/transactions?customerId=" + cust + "&customerId=" + cust, nil, nil, "customerId"},
		{"query on an item route", "GET", "/config?x=%ZZ", nil, nil, ""},
		{"NUL in path", "GET", "/customers/Customer:%00", nil, nil, "path"},
		{"invalid UTF-8 in path", "GET", "/tokens/%FF", nil, nil, "path"},
		{"invalid UTF-8 in Idempotency-Key", "POST", "/tokens", `{"name": "x", "permissions": ["VIEW"]}`, []string{"Idempotency-Key", "k\xff"}, "Idempotency-Key"},
		{"another wallet signature header", "DELETE", "/auth/sessions/Session:0190a000-0000-7000-8000-000000000001", nil, []string{"X-Wallet-Signature", "x"}, "X-Wallet-Signature"},
		{"two different wallet signatures", "DELETE", "/auth/sessions/Session:0190a000-0000-7000-8000-000000000001", nil,
			[]string{"Service-Wallet-Signature", "x", "Grid-Wallet-Signature", "y"}, "Grid-Wallet-Signature"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := raw.Do(tc.method, tc.path, tc.body, tc.headers...)
			m := expectError(t, r, 400, "INVALID_INPUT")
			if tc.field != "" {
				d, _ := m["details"].(map[string]any)
				if d == nil || d["field"] != tc.field {
					t.Fatalf("details %v, want field %q: %s", m["details"], tc.field, r.Body)
				}
			}
			if strings.Contains(string(r.Body), "jsontext") || strings.Contains(string(r.Body), "json:") {
				t.Fatalf("library text in message: %s", r.Body)
			}
		})
	}
	// Nothing was written by the refused requests.
	var tokens, txs int
	_ = e.pool.QueryRow(t.Context(), "SELECT count(*) FROM api_tokens WHERE platform_id = $1", p.ID).Scan(&tokens)
	_ = e.pool.QueryRow(t.Context(), "SELECT count(*) FROM transactions").Scan(&txs)
	if tokens != 1 || txs != 0 {
		t.Fatalf("refused requests wrote: %d tokens, %d transactions", tokens, txs)
	}

	// A filter with a bad escape used to be dropped silently and list everything.
	c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "fullName": "Bob", "currencies": []string{"USD"}})
	if r := raw.Do("GET", "/customers?platformCustomerId=%ZZ", nil); r.Status != 400 {
		t.Fatalf("bad escape filter: %d %s", r.Status, r.Body)
	}
}

// A bad %-escape in the path never reaches a handler (net/http refuses the request line),
// yet the answer is the JSON error envelope.
func TestBadPathEscapeAnswersInEnvelope(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := httptest.NewUnstartedServer(e.api)
	srv.Listener = api.EnvelopeListener(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)
	resp, body := rawRequest(t, srv.Listener.Addr().String(), "GET", e.cfg.BasePath()+"/customers/%ZZ", "", "")
	if resp.StatusCode != 400 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("bad path escape: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var env api.Error
	if err := json.Unmarshal(body, &env); err != nil || env.Code != "INVALID_INPUT" || env.Status != 400 || env.Message == "" {
		t.Fatalf("envelope %s (%v)", body, err)
	}
	// Ordinary answers pass through the wrapper unchanged.
	resp, body = rawRequest(t, srv.Listener.Addr().String(), "GET", "/healthz", "", "")
	if resp.StatusCode != 200 || !strings.Contains(string(body), "ok") {
		t.Fatalf("healthz through the wrapper: %d %s", resp.StatusCode, body)
	}
}

// HEAD answers like GET without a body; OPTIONS lists the methods of a route; 405 says
// which methods are allowed.
func TestHeadAndOptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	req, _ := http.NewRequest("HEAD", c.BaseURL+"/config", nil)
	req.SetBasicAuth(c.User, c.Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(body) != 0 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("HEAD /config: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	req, _ = http.NewRequest("OPTIONS", c.BaseURL+"/config", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Allow") != "GET, HEAD, PATCH, OPTIONS" {
		t.Fatalf("OPTIONS /config: %d Allow=%q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	raw := *c
	raw.SkipValidation = true
	r := raw.Do("PUT", "/config", `{}`)
	if r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD, PATCH, OPTIONS" {
		t.Fatalf("PUT /config: %d Allow=%q", r.Status, r.Header.Get("Allow"))
	}
}

// A token can only create tokens whose permissions it holds itself.
func TestTokenCannotMintMorePermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	var manageOnly view.Token
	c.Do("POST", "/tokens", map[string]any{"name": "m", "permissions": []string{"MANAGE"}}).Decode(t, &manageOnly)
	m := c.With(manageOnly.ClientID, manageOnly.ClientSecret)
	r := m.Do("POST", "/tokens", map[string]any{"name": "t", "permissions": []string{"TRANSACT"}})
	expectError(t, r, 403, "FORBIDDEN")
	r = m.Do("POST", "/tokens", map[string]any{"name": "v", "permissions": []string{"VIEW", "MANAGE"}})
	expectError(t, r, 403, "FORBIDDEN")
	if r := m.Do("POST", "/tokens", map[string]any{"name": "ok", "permissions": []string{"MANAGE"}}); r.Status != 201 {
		t.Fatalf("same permissions: %d %s", r.Status, r.Body)
	}
}

// Requests a client of the peer API sends are accepted: its read-only config fields sent
// back, external accounts without customerId (the platform's own), USD accountInfo extras.
// The platform learns its own id from GET /config and can filter its transactions by it.
func TestPeerRequestFieldsAndPlatformID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, p := e.platform(true)
	var cfg api.PlatformConfig
	c.Do("GET", "/config", nil).Decode(t, &cfg)
	if cfg.PlatformID != "Platform:"+p.ID.String() {
		t.Fatalf("platformId %q, want Platform:%s", cfg.PlatformID, p.ID)
	}
	if r := c.Do("GET", "/transactions?customerId="+cfg.PlatformID, nil); r.Status != 200 {
		t.Fatalf("transactions by platform id: %d %s", r.Status, r.Body)
	}
	items := make([]any, 0, len(cfg.SupportedCurrencies))
	for _, cur := range cfg.SupportedCurrencies {
		items = append(items, map[string]any{"currencyCode": cur.CurrencyCode, "minAmount": cur.MinAmount, "maxAmount": cur.MaxAmount,
			"enabledTransactionTypes": cur.EnabledTransactionTypes, "requiredCounterpartyFields": cur.RequiredCounterpartyFields,
			"providerRequiredCustomerFields": cur.ProviderRequiredCustomerFields, "providerRequiredCounterpartyCustomerFields": cur.ProviderRequiredCounterpartyCustomerFields})
	}
	if r := c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": items}); r.Status != 200 {
		t.Fatalf("config sent back: %d %s", r.Status, r.Body)
	}

	info := map[string]any{"accountType": "USD_ACCOUNT", "accountNumber": "12345678", "routingNumber": banking.MakeABA("02100002"),
		"bankAccountType": "CHECKING", "bankName": "First Bank", "platformAccountId": "acct-1",
		"beneficiary": map[string]any{"beneficiaryType": "BUSINESS", "legalName": "Acme"}}
	r := c.Do("POST", "/customers/external-accounts", map[string]any{"currency": "USD", "accountInfo": info})
	if r.Status != 201 {
		t.Fatalf("external account without customerId: %d %s", r.Status, r.Body)
	}
	var ext api.ExternalAccount
	r.Decode(t, &ext)
	if ext.CustomerID != "" {
		t.Fatalf("platform account has customerId %v", ext.CustomerID)
	}
	var list api.List[api.ExternalAccount]
	c.Do("GET", "/platform/external-accounts", nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != ext.ID {
		t.Fatalf("platform external accounts: %+v", list.Data)
	}
	info["bankAccountType"] = "BROKERAGE"
	info["accountNumber"] = "12345679"
	expectError(t, c.Do("POST", "/customers/external-accounts", map[string]any{"currency": "USD", "accountInfo": info}), 400, "INVALID_INPUT")
	delete(info, "bankAccountType")
	info["sortCode"] = "123456"
	expectError(t, c.Do("POST", "/customers/external-accounts", map[string]any{"currency": "USD", "accountInfo": info}), 400, "INVALID_INPUT")
}

// A transfer out of an embedded wallet needs the customer's session signature: the call
// with platform credentials alone answers 202 with payloadToSign and creates nothing, a
// wrong signature is 401, and the ledger refuses a wallet hold without a bound signature.
func TestWalletTransferOutNeedsSignature(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, p := e.platform(true)
	multiCurrency(t, c, true)
	acct := walletAccount(t, c, "wal@example.com")
	if r := c.Do("POST", "/sandbox/internal-accounts/"+acct+"/fund", map[string]any{"amount": 5000}); r.Status != 200 {
		t.Fatalf("fund: %d %s", r.Status, r.Body)
	}
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?type=EMBEDDED_WALLET", nil).Decode(t, &accts)
	ext := c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": accts.Data[0].CustomerID, "currency": accts.Data[0].Balance.Currency.Code,
		"accountInfo": map[string]any{"accountType": "SOLANA_WALLET", "address": "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"}})
	if ext.Status != 201 {
		t.Fatalf("external wallet: %d %s", ext.Status, ext.Body)
	}
	body := map[string]any{"source": map[string]any{"accountId": acct}, "destination": map[string]any{"accountId": ext.JSON(t)["id"]}, "amount": 100}
	r := c.Do("POST", "/transfer-out", body, "Idempotency-Key", "w-1")
	if r.Status != 202 {
		t.Fatalf("transfer-out from a wallet without signature: %d %s", r.Status, r.Body)
	}
	var ch view.Challenge
	r.Decode(t, &ch)
	if ch.PayloadToSign == "" || ch.RequestID == "" {
		t.Fatalf("challenge %+v", ch)
	}
	// The challenge is not the key's stored answer; a wrong signature is refused.
	expectError(t, c.Do("POST", "/transfer-out", body, "Idempotency-Key", "w-1", "Service-Wallet-Signature", "not-a-stamp", "Request-Id", ch.RequestID), 401, "WALLET_SIGNATURE_MALFORMED")
	// Whether the transfer can be made is the create step's decision, after the signature
	// (end to end: TestWalletTransferOutBySignedRetry): beyond the balance asks to sign too.
	body["amount"] = 999999
	if r := c.Do("POST", "/transfer-out", body); r.Status != 202 {
		t.Fatalf("transfer-out beyond the balance without signature: %d %s", r.Status, r.Body)
	}
	var n int
	_ = e.pool.QueryRow(t.Context(), "SELECT count(*) FROM transactions WHERE type = 'OUTGOING'").Scan(&n)
	if n != 0 {
		t.Fatalf("%d transactions created without a signature", n)
	}

	// Below the API: the ledger itself refuses to hold wallet money for a transaction no
	// signed retry is bound to, and accepts it once one is.
	ctx := context.Background()
	walletID := uuidOf(t, acct)
	txID := uuidOf(t, "Transaction:0190a000-0000-7000-8000-0000000000aa")
	if err := db.LedgerApply(ctx, e.pool, txID, "USDC", []db.Move{{Account: walletID, Held: 10}}); err == nil || !strings.Contains(err.Error(), "wallet signature") {
		t.Fatalf("unsigned wallet hold: %v", err)
	}
	if err := db.AuthorizeWalletDebit(ctx, e.pool, uuidOf(t, ch.RequestID), walletID, txID, "TRANSFER_OUT"); err == nil {
		t.Fatal("an unused signed retry authorised a debit")
	}
	if _, err := e.pool.Exec(ctx, "UPDATE signed_requests SET used_at = now()"); err != nil {
		t.Fatal(err)
	}
	if err := db.AuthorizeWalletDebit(ctx, e.pool, uuidOf(t, ch.RequestID), walletID, txID, "TRANSFER_OUT"); err != nil {
		t.Fatal(err)
	}
	if err := db.LedgerApply(ctx, e.pool, txID, "USDC", []db.Move{{Account: walletID, Held: 10}}); err != nil {
		t.Fatalf("signed wallet hold: %v", err)
	}
	other := txID
	other[15]++
	if err := db.AuthorizeWalletDebit(ctx, e.pool, uuidOf(t, ch.RequestID), walletID, other, "TRANSFER_OUT"); err == nil {
		t.Fatal("one signature authorised two transactions")
	}
	_ = p
}

func uuidOf(t *testing.T, id string) uuid.UUID {
	t.Helper()
	_, s, _ := strings.Cut(id, ":")
	parsed, err := uuid.Parse(s)
	if err != nil {
		t.Fatalf("id %q: %v", id, err)
	}
	return parsed
}
