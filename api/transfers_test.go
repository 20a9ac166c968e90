package api_test

import (
	"strings"
	"testing"

	"paycore/api"
	"paycore/db/view"
)

// The handler refuses what is wrong with a transfer request's shape before anything is
// read or started; what depends on the accounts is the create step's refusal (end to end,
// with the workflow: TestTransferRefusals in cmd/paycore). This server has no Temporal, so
// a request that got past the shape checks would fail with 503.
func TestTransferBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	const usd, ext = "InternalAccount:0190a000-0000-7000-8000-000000000001", "ExternalAccount:0190a000-0000-7000-8000-000000000002"
	out := func(src, dst string, amount any) map[string]any {
		return map[string]any{"source": map[string]any{"accountId": src}, "destination": map[string]any{"accountId": dst}, "amount": amount}
	}
	cases := []struct {
		name, path string
		body       any
		field      string
	}{
		{"zero amount", "/transfer-out", out(usd, ext, 0), "amount"},
		{"negative amount", "/transfer-out", out(usd, ext, -5), "amount"},
		{"fractional amount", "/transfer-out", out(usd, ext, 1.5), "amount"},
		{"missing amount", "/transfer-out", map[string]any{"source": map[string]any{"accountId": usd}, "destination": map[string]any{"accountId": ext}}, "amount"},
		{"missing source", "/transfer-out", map[string]any{"destination": map[string]any{"accountId": ext}, "amount": 5}, "source.accountId"},
		{"missing destination", "/transfer-in", map[string]any{"source": map[string]any{"accountId": ext}, "amount": 5}, "destination.accountId"},
		{"swapped ids", "/transfer-out", out(ext, usd, 5), "source.accountId"},
		{"transfer-in swapped", "/transfer-in", out(usd, ext, 5), "destination.accountId"},
		{"long description", "/transfer-out", map[string]any{"source": map[string]any{"accountId": usd}, "destination": map[string]any{"accountId": ext}, "amount": 5,
			"description": strings.Repeat("x", 501)}, "description"},
		{"unknown field", "/transfer-out", map[string]any{"source": map[string]any{"accountId": usd}, "destination": map[string]any{"accountId": ext}, "amount": 5, "fee": 1}, "fee"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Do("POST", tc.path, tc.body)
			expectError(t, r, 400, "INVALID_INPUT")
			if !strings.Contains(string(r.Body), tc.field) {
				t.Fatalf("the refusal does not name %s: %s", tc.field, r.Body)
			}
		})
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
	_ = e.pool.QueryRow(t.Context(), "SELECT sum(balance) FROM ledger_balances WHERE currency = 'USD'").Scan(&sum)
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
	// A deleted customer's accounts cannot be funded.
	gone := newCustomer(t, c, "US", "USD")
	c.Do("GET", "/customers/internal-accounts?customerId="+gone.ID, nil).Decode(t, &accts)
	if r := c.Do("DELETE", "/customers/"+gone.ID, nil); r.Status != 200 {
		t.Fatalf("delete customer: %d %s", r.Status, r.Body)
	}
	expectError(t, c.Do("POST", "/sandbox/internal-accounts/"+accts.Data[0].ID+"/fund", map[string]any{"amount": 5}), 410, "CUSTOMER_DELETED")
}
