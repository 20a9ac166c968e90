package api_test

import (
	"testing"

	"paycore/api"
	"paycore/db/view"
)

// Every route that takes an id answers 404 for another platform's object, and lists never
// show another platform's rows. (Transfers, refused by their workflow's create step, are
// checked end to end: TestTransferRefusals in cmd/paycore.)
func TestIsolationOfEveryIdRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, _ := e.platform(true)
	b, _ := e.platform(true)
	cust := newCustomer(t, a, "US", "USD")
	var accts api.List[view.InternalAccount]
	a.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	acct := accts.Data[0].ID
	a.Do("POST", "/sandbox/internal-accounts/"+acct+"/fund", map[string]any{"amount": 100})
	var ext, pext api.ExternalAccount
	a.Do("POST", "/customers/external-accounts", map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("12340001")}).Decode(t, &ext)
	a.Do("POST", "/platform/external-accounts", map[string]any{"currency": "USD", "accountInfo": usdAccount("12340002")}).Decode(t, &pext)
	var txs api.List[view.Transaction]
	a.Do("GET", "/transactions", nil).Decode(t, &txs)
	var platAccts struct{ Data []view.InternalAccount }
	a.Do("GET", "/platform/internal-accounts", nil).Decode(t, &platAccts)
	if len(txs.Data) != 1 || len(platAccts.Data) != 1 {
		t.Fatalf("setup: %d transactions, %d platform accounts", len(txs.Data), len(platAccts.Data))
	}
	routes := []struct {
		method, path string
		body         any
		code         string
	}{
		{"GET", "/customers/" + cust.ID, nil, "USER_NOT_FOUND"},
		{"PATCH", "/customers/" + cust.ID, map[string]any{"customerType": "INDIVIDUAL", "email": "x@example.com"}, "USER_NOT_FOUND"},
		{"DELETE", "/customers/" + cust.ID, nil, "USER_NOT_FOUND"},
		{"GET", "/customers/external-accounts/" + ext.ID, nil, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"DELETE", "/customers/external-accounts/" + ext.ID, nil, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"GET", "/platform/external-accounts/" + pext.ID, nil, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"DELETE", "/platform/external-accounts/" + pext.ID, nil, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"POST", "/customers/external-accounts/" + ext.ID + "/challenge", map[string]any{"method": "WALLET_SIGNATURE"}, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"POST", "/customers/external-accounts/" + ext.ID + "/verify", map[string]any{"signature": "0x00"}, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"POST", "/platform/external-accounts/" + pext.ID + "/challenge", map[string]any{"method": "WALLET_SIGNATURE"}, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"POST", "/platform/external-accounts/" + pext.ID + "/verify", map[string]any{"signature": "0x00"}, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"PATCH", "/internal-accounts/" + acct, map[string]any{"privateEnabled": true}, "ACCOUNT_NOT_FOUND"},
		{"PATCH", "/internal-accounts/" + platAccts.Data[0].ID, map[string]any{"privateEnabled": true}, "ACCOUNT_NOT_FOUND"},
		{"POST", "/sandbox/internal-accounts/" + acct + "/fund", map[string]any{"amount": 5}, "ACCOUNT_NOT_FOUND"},
		{"GET", "/transactions/" + txs.Data[0].ID, nil, "TRANSACTION_NOT_FOUND"},
		{"POST", "/transactions/" + txs.Data[0].ID + "/refund", nil, "TRANSACTION_NOT_FOUND"},
		{"POST", "/transactions/" + txs.Data[0].ID + "/cancel", nil, "TRANSACTION_NOT_FOUND"},
		{"POST", "/customers/external-accounts", map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("12340003")}, "USER_NOT_FOUND"},
	}
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) { expectError(t, b.Do(rt.method, rt.path, rt.body), 404, rt.code) })
	}
	for _, path := range []string{"/customers", "/customers/internal-accounts?customerId=" + cust.ID, "/customers/external-accounts",
		"/platform/external-accounts", "/transactions", "/transactions?customerId=" + cust.ID} {
		var l api.List[map[string]any]
		b.Do("GET", path, nil).Decode(t, &l)
		if l.TotalCount != 0 || len(l.Data) != 0 {
			t.Errorf("%s shows another platform's rows: %d", path, l.TotalCount)
		}
	}
	// Nothing changed on platform A.
	var c api.Customer
	a.Do("GET", "/customers/"+cust.ID, nil).Decode(t, &c)
	if c.IsDeleted || c.Email != nil {
		t.Fatalf("platform B changed A's customer: %+v", c)
	}
	a.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	if accts.Data[0].Balance.Amount != 100 {
		t.Fatalf("balance changed: %d", accts.Data[0].Balance.Amount)
	}
}
