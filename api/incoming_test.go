package api_test

import (
	"testing"

	"paycore/api"
	"paycore/db/view"
)

// An approve or reject call on a transaction that is not a PENDING incoming payment is
// refused by the payment's state machine before any workflow is asked (this server's
// Temporal client is never dialled: asking would be a 500); another platform's or an
// unknown transaction is not found.
func TestIncomingDecisionRefusedUpFront(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	if r := c.Do("POST", "/sandbox/internal-accounts/"+accts.Data[0].ID+"/fund", map[string]any{"amount": 500}); r.Status != 200 {
		t.Fatalf("fund: %d %s", r.Status, r.Body)
	}
	var txs api.List[view.Transaction]
	c.Do("GET", "/transactions?customerId="+cust.ID, nil).Decode(t, &txs)
	if len(txs.Data) != 1 {
		t.Fatalf("transactions %+v", txs)
	}
	funded := txs.Data[0].ID // a COMPLETED sandbox funding
	for _, call := range []string{"approve", "reject"} {
		expectError(t, c.Do("POST", "/transactions/"+funded+"/"+call, nil), 409, "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL")
		expectError(t, c.Do("POST", "/transactions/Transaction:0190a000-0000-7000-8000-000000000001/"+call, nil), 404, "TRANSACTION_NOT_FOUND")
		other, _ := e.platform(true)
		expectError(t, other.Do("POST", "/transactions/"+funded+"/"+call, nil), 404, "TRANSACTION_NOT_FOUND")
	}
}
