package api_test

import (
	"testing"

	"paycore/api"
	"paycore/db/view"
)

// Transfers that cannot be valid are refused before any workflow starts, with nothing
// written. (Accepted transfers are covered end to end in cmd/paycore.)
func TestTransferBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, false)
	cust := newCustomer(t, c, "US", "USD")
	other := newCustomer(t, c, "MX", "MXN")
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	usd := accts.Data[0].ID
	c.Do("GET", "/customers/internal-accounts?customerId="+other.ID, nil).Decode(t, &accts)
	mxn := accts.Data[0].ID
	var ext, extOther, eur api.ExternalAccount
	c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("44440001")}).Decode(t, &ext)
	c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": other.ID, "currency": "USD", "accountInfo": usdAccount("44440002")}).Decode(t, &extOther)
	c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": cust.ID, "currency": "EUR", "accountInfo": map[string]any{
		"accountType": "EUR_ACCOUNT", "iban": "DE89370400440532013000", "beneficiary": map[string]any{"beneficiaryType": "BUSINESS", "legalName": "x"}}}).Decode(t, &eur)
	out := func(src, dst string, amount any) map[string]any {
		return map[string]any{"source": map[string]any{"accountId": src}, "destination": map[string]any{"accountId": dst}, "amount": amount}
	}
	cases := []struct {
		name, path string
		body       any
		status     int
		code       string
	}{
		{"zero amount", "/transfer-out", out(usd, ext.ID, 0), 400, "INVALID_INPUT"},
		{"negative amount", "/transfer-out", out(usd, ext.ID, -5), 400, "INVALID_INPUT"},
		{"fractional amount", "/transfer-out", out(usd, ext.ID, 1.5), 400, "INVALID_INPUT"},
		{"missing amount", "/transfer-out", map[string]any{"source": map[string]any{"accountId": usd}, "destination": map[string]any{"accountId": ext.ID}}, 400, "INVALID_INPUT"},
		{"missing source", "/transfer-out", map[string]any{"destination": map[string]any{"accountId": ext.ID}, "amount": 5}, 400, "INVALID_INPUT"},
		{"swapped ids", "/transfer-out", out(ext.ID, usd, 5), 400, "INVALID_INPUT"},
		{"transfer-in swapped", "/transfer-in", out(usd, ext.ID, 5), 400, "INVALID_INPUT"},
		{"unknown internal", "/transfer-out", out("InternalAccount:0190a000-0000-7000-8000-000000000009", ext.ID, 5), 404, "ACCOUNT_NOT_FOUND"},
		{"unknown external", "/transfer-out", out(usd, "ExternalAccount:0190a000-0000-7000-8000-000000000009", 5), 404, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"currency mismatch", "/transfer-out", out(usd, eur.ID, 5), 400, "INVALID_CURRENCY"},
		{"other owner", "/transfer-out", out(usd, extOther.ID, 5), 400, "INVALID_INPUT"},
		{"other owner in", "/transfer-in", out(extOther.ID, mxn, 5), 400, "INVALID_CURRENCY"},
		{"above max", "/transfer-out", out(usd, ext.ID, int64(1_000_000_01)), 400, "AMOUNT_OUT_OF_RANGE"},
		{"unknown field", "/transfer-out", map[string]any{"source": map[string]any{"accountId": usd}, "destination": map[string]any{"accountId": ext.ID}, "amount": 5, "fee": 1}, 400, "INVALID_INPUT"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { expectError(t, c.Do("POST", tc.path, tc.body), tc.status, tc.code) })
	}
	// Below the configured minimum and with OUTGOING disabled.
	if r := c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{
		map[string]any{"currencyCode": "USD", "minAmount": 100, "maxAmount": 1000, "enabledTransactionTypes": []string{"INCOMING"}, "requiredCounterpartyFields": []any{}},
		map[string]any{"currencyCode": "MXN", "minAmount": 100, "maxAmount": 1000, "enabledTransactionTypes": []string{"INCOMING", "OUTGOING"}, "requiredCounterpartyFields": []any{}},
	}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	expectError(t, c.Do("POST", "/transfer-out", out(usd, ext.ID, 500)), 400, "INVALID_INPUT")
	expectError(t, c.Do("POST", "/transfer-in", out(ext.ID, usd, 50)), 400, "AMOUNT_OUT_OF_RANGE")
	// A deleted customer's accounts cannot move money.
	c.Do("DELETE", "/customers/"+cust.ID, nil)
	expectError(t, c.Do("POST", "/transfer-in", out(ext.ID, usd, 500)), 410, "CUSTOMER_DELETED")
	expectError(t, c.Do("POST", "/sandbox/internal-accounts/"+usd+"/fund", map[string]any{"amount": 5}), 410, "CUSTOMER_DELETED")
	var n int
	_ = e.pool.QueryRow(t.Context(), "SELECT count(*) FROM transactions WHERE kind <> 'SANDBOX_FUNDING'").Scan(&n)
	if n != 0 {
		t.Fatalf("refused transfers wrote %d transactions", n)
	}
}

// Sandbox funding credits at once from the sandbox funding account, balanced, and shows
// up as a completed incoming transaction; production platforms get 403.
func TestSandboxFundingAndTransactions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	acct := accts.Data[0].ID
	for _, amount := range []int64{5000, 2500} {
		r := c.Do("POST", "/sandbox/internal-accounts/"+acct+"/fund", map[string]any{"amount": amount}, "Idempotency-Key", "fund-"+acct+string(rune('a'+amount%7)))
		if r.Status != 200 {
			t.Fatalf("fund: %d %s", r.Status, r.Body)
		}
	}
	var a view.InternalAccount
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	a = accts.Data[0]
	if a.Balance.Amount != 7500 || a.Balance.Currency.Decimals != 2 {
		t.Fatalf("balance %+v", a.Balance)
	}
	var sum int64
	_ = e.pool.QueryRow(t.Context(), "SELECT sum(balance) FROM ledger_accounts WHERE currency = 'USD'").Scan(&sum)
	if sum != 0 {
		t.Fatalf("USD ledger sums to %d", sum)
	}
	var events api.List[api.WebhookEvent]
	c.Do("GET", "/webhooks/events?type=INTERNAL_ACCOUNT_BALANCE_UPDATED", nil).Decode(t, &events)
	if events.TotalCount != 2 {
		t.Fatalf("balance events: %d", events.TotalCount)
	}
	var txs api.List[view.Transaction]
	c.Do("GET", "/transactions?customerId="+cust.ID+"&type=INCOMING&status=COMPLETED&sortOrder=asc", nil).Decode(t, &txs)
	if txs.TotalCount != 2 || txs.Data[0].ReceivedAmount.Amount != 5000 || txs.Data[0].ReconciliationInstructions == nil || txs.Data[0].SettledAt == nil {
		t.Fatalf("transactions %+v", txs)
	}
	for q, want := range map[string]int64{
		"receiverAccountIdentifier=" + acct: 2, "senderAccountIdentifier=" + acct: 0, "accountIdentifier=" + acct: 2,
		"reference=" + txs.Data[1].ReconciliationInstructions.Reference: 1, "status=FAILED": 0, "type=OUTGOING": 0,
		"platformCustomerId=" + cust.PlatformCustomerID: 2, "startDate=2999-01-01T00:00:00Z": 0, "endDate=2999-01-01T00:00:00Z": 2,
		"limit=1": 2,
	} {
		var l api.List[view.Transaction]
		c.Do("GET", "/transactions?"+q, nil).Decode(t, &l)
		if l.TotalCount != want {
			t.Errorf("%s: %d, want %d", q, l.TotalCount, want)
		}
	}
	var one api.List[view.Transaction]
	c.Do("GET", "/transactions?limit=1", nil).Decode(t, &one)
	var next api.List[view.Transaction]
	c.Do("GET", "/transactions?limit=1&cursor="+one.NextCursor, nil).Decode(t, &next)
	if !one.HasMore || len(next.Data) != 1 || next.Data[0].ID == one.Data[0].ID || next.HasMore {
		t.Fatalf("paging: %+v %+v", one, next)
	}
	for _, q := range []string{"status=DONE", "type=SIDEWAYS", "sortOrder=up", "customerId=Platform:0190a000-0000-7000-8000-000000000001", "accountIdentifier=" + cust.ID, "startDate=yesterday"} {
		expectError(t, c.Do("GET", "/transactions?"+q, nil), 400, "INVALID_INPUT")
	}
	for _, amount := range []any{0, -1, 100_000_000_001, "5"} {
		expectError(t, c.Do("POST", "/sandbox/internal-accounts/"+acct+"/fund", map[string]any{"amount": amount}), 400, "INVALID_INPUT")
	}
	prod, _ := e.platform(false)
	expectError(t, prod.Do("POST", "/sandbox/internal-accounts/"+acct+"/fund", map[string]any{"amount": 5}), 403, "FORBIDDEN")
}
