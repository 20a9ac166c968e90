package main

import (
	"context"
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
)

// What the transfer rule refuses is refused by the create step of the transfer's workflow,
// with the rule's code and status, and writes nothing; a refusal under an Idempotency-Key
// replays byte for byte. Another platform's accounts are 404.
func TestTransferRefusals(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := newWorld(t, s)
	w.fund(1_000)
	c := w.c
	ext := w.external("001")
	other := newWorld(t, s) // another platform
	otherExt := other.external("001")
	second := w.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "MX", "fullName": "Bo", "currencies": []string{"USD"}}).JSON(t)["id"].(string)
	secondExt := c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": second, "currency": "USD",
		"accountInfo": map[string]any{"accountType": "USD_ACCOUNT", "accountNumber": "555500001", "routingNumber": "021000021",
			"beneficiary": map[string]any{"beneficiaryType": "INDIVIDUAL", "fullName": "Bo"}}}).JSON(t)["id"].(string)
	body := func(src, dst string, amount int64) map[string]any {
		return map[string]any{"source": map[string]any{"accountId": src}, "destination": map[string]any{"accountId": dst}, "amount": amount}
	}
	cases := []struct {
		name   string
		c      *apitest.Client
		path   string
		body   any
		status int
		code   string
	}{
		{"unknown internal", c, "/transfer-out", body("InternalAccount:0190a000-0000-7000-8000-000000000009", ext, 5), 404, "ACCOUNT_NOT_FOUND"},
		{"unknown external", c, "/transfer-out", body(w.account, "ExternalAccount:0190a000-0000-7000-8000-000000000009", 5), 404, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"another platform's internal out", other.c, "/transfer-out", body(w.account, otherExt, 5), 404, "ACCOUNT_NOT_FOUND"},
		{"another platform's internal in", other.c, "/transfer-in", body(otherExt, w.account, 5), 404, "ACCOUNT_NOT_FOUND"},
		{"another platform's external", c, "/transfer-out", body(w.account, otherExt, 5), 404, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"another owner's external", c, "/transfer-out", body(w.account, secondExt, 5), 400, "INVALID_INPUT"},
		{"above the platform's maximum", c, "/transfer-in", body(ext, w.account, 1_000_000_01), 400, "AMOUNT_OUT_OF_RANGE"},
		{"beyond the balance", c, "/transfer-out", body(w.account, ext, 1_001), 400, "INSUFFICIENT_FUNDS"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.c.Do("POST", tc.path, tc.body)
			if r.Status != tc.status || r.Code(t) != tc.code {
				t.Fatalf("%d %s, want %d %s", r.Status, r.Body, tc.status, tc.code)
			}
		})
	}
	// A refusal is the key's stored answer.
	first := w.transferOut(ext, 1_001, "Idempotency-Key", "refused-once")
	again := w.transferOut(ext, 1_001, "Idempotency-Key", "refused-once")
	if first.Status != 400 || again.Status != 400 || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("refusal replay: %d %s / %d %s (replayed %q)", first.Status, first.Body, again.Status, again.Body, again.Header.Get("Idempotent-Replayed"))
	}
	// The platform's configuration: below its minimum, and a direction it disabled.
	if r := c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{
		map[string]any{"currencyCode": "USD", "minAmount": 100, "maxAmount": 1000, "enabledTransactionTypes": []string{"INCOMING"}, "requiredCounterpartyFields": []any{}},
	}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	if r := w.transferOut(ext, 500); r.Status != 400 || r.Code(t) != "INVALID_INPUT" {
		t.Fatalf("transfer-out with OUTGOING disabled: %d %s", r.Status, r.Body)
	}
	if r := w.transferIn(ext, 50); r.Status != 400 || r.Code(t) != "AMOUNT_OUT_OF_RANGE" {
		t.Fatalf("transfer-in below the minimum: %d %s", r.Status, r.Body)
	}
	// A deleted customer's accounts cannot move money.
	gone := newWorld(t, s)
	goneExt := gone.external("001")
	if r := gone.c.Do("DELETE", "/customers/"+gone.customer, nil); r.Status != 200 {
		t.Fatalf("delete customer: %d %s", r.Status, r.Body)
	}
	if r := gone.transferIn(goneExt, 500); r.Status != 410 || r.Code(t) != "CUSTOMER_DELETED" {
		t.Fatalf("transfer-in to a deleted customer: %d %s", r.Status, r.Body)
	}
	var n int
	if err := s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM transactions WHERE kind <> 'SANDBOX_FUNDING'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	var txs api.List[view.Transaction]
	c.Do("GET", "/transactions", nil).Decode(t, &txs)
	if n != 0 || txs.TotalCount != 1 || w.balance() != 1_000 {
		t.Fatalf("refused transfers wrote %d transactions (list %d, balance %d)", n, txs.TotalCount, w.balance())
	}
}
