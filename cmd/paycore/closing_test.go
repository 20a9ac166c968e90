package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/infra/config"
)

// twoCurrencyWorld is a world whose customer holds USD and USDC; account is the USD one,
// the currency the tests drop.
func twoCurrencyWorld(t *testing.T, s *stack) *world {
	t.Helper()
	c, _ := s.platform(true)
	if r := c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("USDC")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	w := &world{t: t, s: s, c: c}
	w.newCustomer()
	return w
}

// newCustomer points w at a new USD+USDC customer and its USD account.
func (w *world) newCustomer() {
	w.t.Helper()
	r := w.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US", "currencies": []string{"USD", "USDC"}})
	if r.Status != 201 {
		w.t.Fatalf("create customer: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	r.Decode(w.t, &cust)
	var accts api.List[view.InternalAccount]
	w.c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID+"&currency=USD", nil).Decode(w.t, &accts)
	if len(accts.Data) != 1 {
		w.t.Fatalf("want one USD account, got %d", len(accts.Data))
	}
	w.customer, w.account = cust.ID, accts.Data[0].ID
}

// dropUSD PATCHes the customer's currencies down to USDC, which closes the USD account.
func (w *world) dropUSD() *apitest.Response {
	return w.c.Do("PATCH", "/customers/"+w.customer, map[string]any{"customerType": "INDIVIDUAL", "currencies": []string{"USDC"}})
}

// checkNothingStranded asserts the ledger invariants once every transaction is final: no
// closed account holds or has held money, and every currency sums to zero.
func checkNothingStranded(t *testing.T, s *stack) {
	t.Helper()
	eventually(t, 30*time.Second, "every transaction to finish", func() bool {
		var open int
		_ = s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM transactions WHERE status IN ('CREATED','PENDING','PROCESSING')").Scan(&open)
		return open == 0
	})
	var stranded, unbalanced, creditedClosed int
	err := s.app.pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM internal_accounts a JOIN ledger_balances l ON l.id = a.id WHERE a.status = 'CLOSED' AND (l.balance <> 0 OR l.held <> 0)),
		(SELECT count(*) FROM (SELECT currency FROM ledger_balances GROUP BY currency HAVING sum(balance) <> 0) x),
		(SELECT count(*) FROM ledger_entries e JOIN internal_accounts a ON a.id = e.account_id
		   WHERE a.status = 'CLOSED' AND e.created_at > a.updated_at)`).Scan(&stranded, &unbalanced, &creditedClosed)
	if err != nil {
		t.Fatal(err)
	}
	if stranded != 0 || unbalanced != 0 || creditedClosed != 0 {
		t.Fatalf("%d closed accounts hold money, %d currencies unbalanced, %d postings to accounts after they closed", stranded, unbalanced, creditedClosed)
	}
}

// A currency cannot be dropped while a transfer in to its account is pending, nor while
// the account holds money; once the transfer has finished and the money has been moved
// out, it can, and the closed account then receives nothing.
func TestCurrencyRemovalWaitsForTransferIn(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := twoCurrencyWorld(t, s)
	w.fund(500)
	var in view.Transaction
	if r := w.transferIn(w.external("005"), 700); r.Status != 201 {
		t.Fatalf("transfer-in: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &in)
	}
	r := w.dropUSD()
	if r.Status != 409 || r.Code(t) != "ACCOUNT_NOT_EMPTY" {
		t.Fatalf("PATCH with a transfer in pending: %d %s", r.Status, r.Body)
	}
	if msg := r.JSON(t)["message"].(string); !strings.Contains(msg, "USD") || !strings.Contains(msg, "incoming transaction") || !strings.Contains(msg, "balance of 500") {
		t.Fatalf("the refusal does not say why: %s", msg)
	}
	if final := w.waitFinal(in.ID, 20*time.Second); final.Status != "FAILED" {
		t.Fatalf("005 transfer-in ended %s", final.Status)
	}
	r = w.dropUSD()
	if r.Status != 409 || !strings.Contains(r.JSON(t)["message"].(string), "balance of 500") || strings.Contains(r.JSON(t)["message"].(string), "incoming") {
		t.Fatalf("PATCH with a balance: %d %s", r.Status, r.Body)
	}
	var out view.Transaction
	w.transferOut(w.external("001"), 500).Decode(t, &out)
	if final := w.waitFinal(out.ID, 20*time.Second); final.Status != "COMPLETED" {
		t.Fatalf("moving the money out: %s", final.Status)
	}
	if r := w.dropUSD(); r.Status != 200 {
		t.Fatalf("PATCH of an empty account: %d %s", r.Status, r.Body)
	}
	var accts api.List[view.InternalAccount]
	w.c.Do("GET", "/customers/internal-accounts?customerId="+w.customer, nil).Decode(t, &accts)
	if accts.TotalCount != 1 || accts.Data[0].Balance.Currency.Code != "USDC" {
		t.Fatalf("accounts after closing USD: %+v", accts.Data)
	}
	// Closed: neither funding nor a transfer in reaches it.
	if r := w.c.Do("POST", "/sandbox/internal-accounts/"+w.account+"/fund", map[string]any{"amount": 100}); r.Status != 400 {
		t.Fatalf("funding a closed account: %d %s", r.Status, r.Body)
	}
	if r := w.transferIn(w.external("001"), 100); r.Status != 400 {
		t.Fatalf("transfer in to a closed account: %d %s", r.Status, r.Body)
	}
	checkNothingStranded(t, s)
}

// PATCHes dropping a currency race a transfer in and a sandbox funding of its account.
// Whatever the order, a closed account never receives money: a PATCH that closed the
// account saw neither succeed, and one that came second was refused.
func TestCurrencyRemovalRacesMoneyIn(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) { c.SandboxSlowDelay = 300 * time.Millisecond })
	w := twoCurrencyWorld(t, s)
	outcomes := map[string]int{}
	for round := range 30 {
		if round > 0 {
			w.newCustomer()
		}
		ext := w.external([]string{"001", "005"}[round%2]) // settles at once, or after a delay
		var patch, in, fund *apitest.Response
		var wg sync.WaitGroup
		gate := make(chan struct{})
		wg.Add(3)
		go func() { defer wg.Done(); <-gate; patch = w.dropUSD() }()
		go func() { defer wg.Done(); <-gate; in = w.transferIn(ext, 300) }()
		go func() {
			defer wg.Done()
			<-gate
			fund = w.c.Do("POST", "/sandbox/internal-accounts/"+w.account+"/fund", map[string]any{"amount": 200})
		}()
		close(gate)
		wg.Wait()
		switch {
		case patch.Status == 200 && in.Status == 400 && fund.Status == 400:
			outcomes["closed first"]++
		case patch.Status == 409 && (in.Status == 201 || fund.Status == 200):
			outcomes["money first"]++
		default:
			t.Fatalf("round %d: PATCH %d %s; transfer-in %d %s; funding %d %s", round, patch.Status, patch.Body, in.Status, in.Body, fund.Status, fund.Body)
		}
	}
	checkNothingStranded(t, s)
	t.Logf("outcomes: %v", outcomes)
}
