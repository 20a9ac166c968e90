package api_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
)

// accountsByCurrency lists a customer's open internal accounts by currency.
func accountsByCurrency(t *testing.T, c *apitest.Client, customerID string) map[string]view.InternalAccount {
	t.Helper()
	var accts api.List[view.InternalAccount]
	if r := c.Do("GET", "/customers/internal-accounts?customerId="+customerID, nil); r.Status != 200 {
		t.Fatalf("list accounts: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &accts)
	}
	out := map[string]view.InternalAccount{}
	for _, a := range accts.Data {
		out[a.Balance.Currency.Code] = a
	}
	return out
}

// Dropping a currency whose account holds money is refused with 409 ACCOUNT_NOT_EMPTY,
// naming the currency and the reason, and nothing else of the PATCH is applied.
func TestCurrencyRemovalRefusedWhileAccountHoldsMoney(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, false)
	cust := newCustomer(t, c, "US", "USD", "USDC")
	before := accountsByCurrency(t, c, cust.ID)
	usdc := before["USDC"].ID
	if r := c.Do("POST", "/sandbox/internal-accounts/"+usdc+"/fund", map[string]any{"amount": 1500}); r.Status != 200 {
		t.Fatalf("fund: %d %s", r.Status, r.Body)
	}
	r := c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "currencies": []string{"USD"}, "email": "grace@new.example"})
	m := expectError(t, r, 409, "ACCOUNT_NOT_EMPTY")
	msg := m["message"].(string)
	if !strings.Contains(msg, "USDC") || !strings.Contains(msg, "balance of 1500") || !strings.Contains(msg, usdc) {
		t.Fatalf("the message does not name the currency, account and reason: %s", msg)
	}
	if d, _ := m["details"].(map[string]any); d["currency"] != "USDC" || d["balance"] != float64(1500) {
		t.Fatalf("details %v", m["details"])
	}
	var after api.Customer
	c.Do("GET", "/customers/"+cust.ID, nil).Decode(t, &after)
	if after.Email != nil || strings.Join(after.Currencies, ",") != "USD,USDC" {
		t.Fatalf("the refused PATCH changed the customer: %+v", after)
	}
	if got := accountsByCurrency(t, c, cust.ID); got["USDC"].Status != "ACTIVE" || got["USDC"].Balance.Amount != 1500 || len(got) != 2 {
		t.Fatalf("accounts after the refusal: %+v", got)
	}
}

// PATCHes dropping a currency race sandbox fundings of that currency's account: either the
// funding lands first and the PATCH is refused, or the account closes first and the
// funding is refused. No closed account ever holds money and the ledger stays balanced.
func TestCurrencyRemovalRacesFunding(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, false)
	fundedFirst, closedFirst := 0, 0
	for range 30 {
		cust := newCustomer(t, c, "US", "USD", "USDC")
		usdc := accountsByCurrency(t, c, cust.ID)["USDC"].ID
		var patch, fund *apitest.Response
		var wg sync.WaitGroup
		gate := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-gate
			patch = c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "currencies": []string{"USD"}})
		}()
		go func() {
			defer wg.Done()
			<-gate
			fund = c.Do("POST", "/sandbox/internal-accounts/"+usdc+"/fund", map[string]any{"amount": 100})
		}()
		close(gate)
		wg.Wait()
		switch {
		case patch.Status == 200 && fund.Status == 400:
			closedFirst++
		case patch.Status == 409 && fund.Status == 200:
			fundedFirst++
		default:
			t.Fatalf("PATCH %d %s; funding %d %s", patch.Status, patch.Body, fund.Status, fund.Body)
		}
	}
	var stranded, unbalanced int
	if err := e.pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM internal_accounts a JOIN ledger_balances l ON l.id = a.id WHERE a.status = 'CLOSED' AND (l.balance <> 0 OR l.held <> 0)),
		(SELECT count(*) FROM (SELECT currency FROM ledger_balances GROUP BY currency HAVING sum(balance) <> 0) x)`).Scan(&stranded, &unbalanced); err != nil {
		t.Fatal(err)
	}
	if stranded != 0 || unbalanced != 0 {
		t.Fatalf("%d closed accounts hold money, %d currencies unbalanced", stranded, unbalanced)
	}
	t.Logf("%d fundings first, %d closes first", fundedFirst, closedFirst)
}
