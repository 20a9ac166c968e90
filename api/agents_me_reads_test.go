package api_test

import (
	"net/url"
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
)

// connectAgent creates an agent of the customer with only perms (and no spending) and
// redeems its device code; it returns the agent's id and a client sending its token.
func connectAgent(t *testing.T, c *apitest.Client, customerID string, perms ...string) (string, func(method, path string, body any) *apitest.Response) {
	t.Helper()
	created := createAgent(t, c, customerID, map[string]any{"permissions": perms, "defaultExecutionMode": "AUTO",
		"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 0}})
	anon := anonymous(c)
	var red redeemed
	if r := anon.Do("POST", "/agents/device-codes/"+created.DeviceCode.Code+"/redeem", nil); r.Status != 200 {
		t.Fatalf("redeem: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &red)
	}
	return created.Agent.ID, func(method, path string, body any) *apitest.Response {
		t.Helper()
		return anon.Do(method, path, body, "Authorization", "Bearer "+red.AccessToken)
	}
}

// fundCustomer credits the customer's USD account (a completed incoming transaction) and
// returns the account's id.
func fundCustomer(t *testing.T, c *apitest.Client, customerID string, amount int64) string {
	t.Helper()
	acct := accountsByCurrency(t, c, customerID)["USD"].ID
	if r := c.Do("POST", "/sandbox/internal-accounts/"+acct+"/fund", map[string]any{"amount": amount}); r.Status != 200 {
		t.Fatalf("fund: %d %s", r.Status, r.Body)
	}
	return acct
}

// transactionsOf lists the customer's transactions through the platform route.
func transactionsOf(t *testing.T, c *apitest.Client, customerID string) []view.Transaction {
	t.Helper()
	var l api.List[view.Transaction]
	if r := c.Do("GET", "/transactions?customerId="+url.QueryEscape(customerID), nil); r.Status != 200 {
		t.Fatalf("transactions: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &l)
	}
	return l.Data
}

func createExternal(t *testing.T, c *apitest.Client, path string, body map[string]any) api.ExternalAccount {
	t.Helper()
	r := c.Do("POST", path, body)
	if r.Status != 201 {
		t.Fatalf("create external account: %d %s", r.Status, r.Body)
	}
	var out api.ExternalAccount
	r.Decode(t, &out)
	return out
}

// An agent reads its customer's internal accounts and transactions, and manages its
// customer's external accounts; another customer's, the platform's or another platform's
// objects are 404 to it.
func TestAgentReadsAndExternalAccounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	c2, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	neighbour := newCustomer(t, c, "US", "USD")
	stranger := newCustomer(t, c2, "US", "USD")
	acct := fundCustomer(t, c, cust.ID, 1500)
	fundCustomer(t, c, cust.ID, 2500)
	fundCustomer(t, c, neighbour.ID, 700)
	fundCustomer(t, c2, stranger.ID, 900)
	mine, theirs, foreign := transactionsOf(t, c, cust.ID), transactionsOf(t, c, neighbour.ID), transactionsOf(t, c2, stranger.ID)
	if len(mine) != 2 || len(theirs) != 1 || len(foreign) != 1 {
		t.Fatalf("transactions %d %d %d", len(mine), len(theirs), len(foreign))
	}
	neighbourExt := createExternal(t, c, "/customers/external-accounts", map[string]any{"customerId": neighbour.ID, "currency": "USD", "accountInfo": usdAccount("123456789001")})
	platformExt := createExternal(t, c, "/platform/external-accounts", map[string]any{"currency": "USD", "accountInfo": usdAccount("123456789002")})
	foreignExt := createExternal(t, c2, "/customers/external-accounts", map[string]any{"customerId": stranger.ID, "currency": "USD", "accountInfo": usdAccount("123456789003")})

	_, as := connectAgent(t, c, cust.ID, "VIEW_TRANSACTIONS", "MANAGE_EXTERNAL_ACCOUNTS")

	// Internal accounts: the customer's only, with the currency and type filters.
	var accts api.List[view.InternalAccount]
	r := as("GET", "/agents/me/internal-accounts", nil)
	r.Decode(t, &accts)
	if r.Status != 200 || len(accts.Data) != 1 || accts.Data[0].ID != acct || accts.TotalCount != 1 || accts.Data[0].Balance.Amount != 4000 {
		t.Fatalf("internal accounts: %d %s", r.Status, r.Body)
	}
	for q, n := range map[string]int{"currency=USD": 1, "currency=EUR": 0, "type=INTERNAL_FIAT": 1, "type=EMBEDDED_WALLET": 0} {
		var l api.List[view.InternalAccount]
		as("GET", "/agents/me/internal-accounts?"+q, nil).Decode(t, &l)
		if len(l.Data) != n {
			t.Errorf("%s: %d accounts, want %d", q, len(l.Data), n)
		}
	}
	expectError(t, as("GET", "/agents/me/internal-accounts?type=SAVINGS", nil), 400, "INVALID_INPUT")
	expectError(t, as("GET", "/agents/me/internal-accounts?customerId="+url.QueryEscape(neighbour.ID), nil), 400, "INVALID_INPUT")

	// Transactions: the customer's only, paginated, sortable and filtered; any other is 404.
	var page api.List[view.Transaction]
	r = as("GET", "/agents/me/transactions?limit=1", nil)
	r.Decode(t, &page)
	if r.Status != 200 || len(page.Data) != 1 || !page.HasMore || page.TotalCount != 2 || page.Data[0].ID != mine[0].ID {
		t.Fatalf("transactions page 1: %d %s", r.Status, r.Body)
	}
	var page2 api.List[view.Transaction]
	as("GET", "/agents/me/transactions?limit=1&cursor="+url.QueryEscape(page.NextCursor), nil).Decode(t, &page2)
	if len(page2.Data) != 1 || page2.HasMore || page2.Data[0].ID != mine[1].ID {
		t.Fatalf("transactions page 2: %+v", page2)
	}
	var asc api.List[view.Transaction]
	as("GET", "/agents/me/transactions?sortOrder=asc&status=COMPLETED&accountIdentifier="+url.QueryEscape(acct), nil).Decode(t, &asc)
	if len(asc.Data) != 2 || asc.Data[0].ID != mine[1].ID {
		t.Fatalf("ascending %+v", asc)
	}
	var none api.List[view.Transaction]
	as("GET", "/agents/me/transactions?status=FAILED", nil).Decode(t, &none)
	if len(none.Data) != 0 {
		t.Fatalf("status filter %+v", none)
	}
	expectError(t, as("GET", "/agents/me/transactions?customerId="+url.QueryEscape(neighbour.ID), nil), 400, "INVALID_INPUT")
	expectError(t, as("GET", "/agents/me/transactions?sortOrder=asc&cursor="+url.QueryEscape(page.NextCursor), nil), 400, "INVALID_INPUT") // bound to the order
	var tx view.Transaction
	r = as("GET", "/agents/me/transactions/"+mine[0].ID, nil)
	r.Decode(t, &tx)
	if r.Status != 200 || tx.ID != mine[0].ID || tx.CustomerID != cust.ID {
		t.Fatalf("transaction: %d %s", r.Status, r.Body)
	}
	for _, id := range []string{theirs[0].ID, foreign[0].ID, "Transaction:nonsense"} {
		expectError(t, as("GET", "/agents/me/transactions/"+id, nil), 404, "TRANSACTION_NOT_FOUND")
	}

	// External accounts: created for the customer whether customerId is omitted or names
	// it; another customer is refused.
	own := createExternal(t, c, "/customers/external-accounts", map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("123456789004")})
	var made, named api.ExternalAccount
	r = as("POST", "/agents/me/external-accounts", map[string]any{"currency": "USD", "accountInfo": usdAccount("123456789005")})
	r.Decode(t, &made)
	if r.Status != 201 || made.CustomerID != cust.ID || made.Status != "ACTIVE" {
		t.Fatalf("agent create: %d %s", r.Status, r.Body)
	}
	r = as("POST", "/agents/me/external-accounts", map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("123456789006")})
	r.Decode(t, &named)
	if r.Status != 201 || named.CustomerID != cust.ID {
		t.Fatalf("agent create naming its customer: %d %s", r.Status, r.Body)
	}
	for _, other := range []string{neighbour.ID, stranger.ID} {
		m := expectError(t, as("POST", "/agents/me/external-accounts", map[string]any{"customerId": other, "currency": "USD", "accountInfo": usdAccount("123456789007")}), 400, "INVALID_INPUT")
		if m["details"].(map[string]any)["field"] != "customerId" {
			t.Fatalf("refusal %v", m)
		}
	}
	expectError(t, as("POST", "/agents/me/external-accounts", map[string]any{"currency": "USD", "accountInfo": usdAccount("123456789005")}), 409, "EXTERNAL_ACCOUNT_EXISTS")
	expectError(t, as("POST", "/agents/me/external-accounts", map[string]any{"currency": "USD"}), 400, "INVALID_INPUT")
	if n := sqlCount(t, e, "SELECT count(*) FROM external_accounts WHERE identifier LIKE '%123456789007%'"); n != 0 {
		t.Fatalf("a refused account was written (%d)", n)
	}
	var exts api.List[api.ExternalAccount]
	r = as("GET", "/agents/me/external-accounts", nil)
	r.Decode(t, &exts)
	if r.Status != 200 || len(exts.Data) != 3 || exts.TotalCount != 3 {
		t.Fatalf("external accounts: %d %s", r.Status, r.Body)
	}
	for _, x := range exts.Data {
		if x.CustomerID != cust.ID {
			t.Fatalf("another customer's account listed: %+v", x)
		}
	}
	var got api.ExternalAccount
	r = as("GET", "/agents/me/external-accounts/"+own.ID, nil)
	r.Decode(t, &got)
	if r.Status != 200 || got.ID != own.ID {
		t.Fatalf("get external account: %d %s", r.Status, r.Body)
	}
	for _, id := range []string{neighbourExt.ID, platformExt.ID, foreignExt.ID, "ExternalAccount:nonsense"} {
		expectError(t, as("GET", "/agents/me/external-accounts/"+id, nil), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
		expectError(t, as("DELETE", "/agents/me/external-accounts/"+id, nil), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
	}
	if r := c.Do("GET", "/customers/external-accounts/"+neighbourExt.ID, nil); r.Status != 200 {
		t.Fatalf("another customer's account was deleted: %d", r.Status)
	}
	if r := c.Do("GET", "/platform/external-accounts/"+platformExt.ID, nil); r.Status != 200 {
		t.Fatalf("the platform's account was deleted: %d", r.Status)
	}
	if r := c2.Do("GET", "/customers/external-accounts/"+foreignExt.ID, nil); r.Status != 200 {
		t.Fatalf("another platform's account was deleted: %d", r.Status)
	}
	if r := as("DELETE", "/agents/me/external-accounts/"+made.ID, nil); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	expectError(t, as("GET", "/agents/me/external-accounts/"+made.ID, nil), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
	expectError(t, as("DELETE", "/agents/me/external-accounts/"+made.ID, nil), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
	expectError(t, c.Do("GET", "/customers/external-accounts/"+made.ID, nil), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
}

// Each route needs its permission, read from the agent's current policy: a missing one is
// 403 naming it, and a policy change applies to the next request. A paused agent is 403, a
// deleted one 401, on every route.
func TestAgentReadPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	fundCustomer(t, c, cust.ID, 1500)
	txID := transactionsOf(t, c, cust.ID)[0].ID
	ext := createExternal(t, c, "/customers/external-accounts", map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("123456789001")})

	type route struct {
		method, path string
		body         any
		perm         string
	}
	newExt := map[string]any{"currency": "USD", "accountInfo": usdAccount("123456789009")}
	routes := []route{
		{"GET", "/agents/me/internal-accounts", nil, "VIEW_TRANSACTIONS"},
		{"GET", "/agents/me/transactions", nil, "VIEW_TRANSACTIONS"},
		{"GET", "/agents/me/transactions/" + txID, nil, "VIEW_TRANSACTIONS"},
		{"GET", "/agents/me/external-accounts", nil, "MANAGE_EXTERNAL_ACCOUNTS"},
		{"GET", "/agents/me/external-accounts/" + ext.ID, nil, "MANAGE_EXTERNAL_ACCOUNTS"},
		{"POST", "/agents/me/external-accounts", newExt, "MANAGE_EXTERNAL_ACCOUNTS"},
		{"DELETE", "/agents/me/external-accounts/" + ext.ID, nil, "MANAGE_EXTERNAL_ACCOUNTS"},
	}
	forbidden := func(as func(string, string, any) *apitest.Response, rt route) {
		t.Helper()
		m := expectError(t, as(rt.method, rt.path, rt.body), 403, "FORBIDDEN")
		if d, _ := m["details"].(map[string]any); d["permission"] != rt.perm {
			t.Fatalf("%s %s: the 403 does not name %s: %v", rt.method, rt.path, rt.perm, m)
		}
	}

	// Every permission but the route's: 403 naming it, and nothing written.
	_, viewer := connectAgent(t, c, cust.ID, "VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES")
	_, manager := connectAgent(t, c, cust.ID, "MANAGE_EXTERNAL_ACCOUNTS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES")
	for _, rt := range routes {
		as := map[string]func(string, string, any) *apitest.Response{"VIEW_TRANSACTIONS": manager, "MANAGE_EXTERNAL_ACCOUNTS": viewer}[rt.perm]
		forbidden(as, rt)
	}
	if r := c.Do("GET", "/customers/external-accounts/"+ext.ID, nil); r.Status != 200 {
		t.Fatalf("a forbidden delete deleted: %d", r.Status)
	}
	if n := sqlCount(t, e, "SELECT count(*) FROM external_accounts WHERE identifier LIKE '%123456789009%'"); n != 0 {
		t.Fatalf("a forbidden create wrote an account (%d)", n)
	}

	// A policy change is effective on the next request, both ways.
	id, as := connectAgent(t, c, cust.ID, "VIEW_TRANSACTIONS", "MANAGE_EXTERNAL_ACCOUNTS")
	for _, rt := range routes[:5] {
		if r := as(rt.method, rt.path, rt.body); r.Status != 200 {
			t.Fatalf("%s %s: %d %s", rt.method, rt.path, r.Status, r.Body)
		}
	}
	if r := c.Do("PATCH", "/agents/"+id+"/policy", map[string]any{"permissions": []string{"MANAGE_EXTERNAL_ACCOUNTS"}}); r.Status != 200 {
		t.Fatalf("policy: %d %s", r.Status, r.Body)
	}
	for _, rt := range routes[:3] {
		forbidden(as, rt)
	}
	if r := as("GET", "/agents/me/external-accounts", nil); r.Status != 200 {
		t.Fatalf("the permission kept: %d", r.Status)
	}
	c.Do("PATCH", "/agents/"+id+"/policy", map[string]any{"permissions": []string{"VIEW_TRANSACTIONS"}})
	if r := as("GET", "/agents/me/transactions/"+txID, nil); r.Status != 200 {
		t.Fatalf("the permission given back: %d %s", r.Status, r.Body)
	}
	forbidden(as, routes[3])

	// Paused: 403 on every route; deleted: 401.
	c.Do("PATCH", "/agents/"+id+"/policy", map[string]any{"permissions": []string{"VIEW_TRANSACTIONS", "MANAGE_EXTERNAL_ACCOUNTS"}})
	c.Do("PATCH", "/agents/"+id, map[string]any{"isPaused": true})
	for _, rt := range routes {
		m := expectError(t, as(rt.method, rt.path, rt.body), 403, "FORBIDDEN")
		if d, _ := m["details"].(map[string]any); d["permission"] != nil {
			t.Fatalf("a paused agent's 403 names a permission: %v", m)
		}
	}
	if r := c.Do("DELETE", "/agents/"+id, nil); r.Status != 204 {
		t.Fatalf("delete agent: %d", r.Status)
	}
	for _, rt := range routes {
		expectError(t, as(rt.method, rt.path, rt.body), 401, "UNAUTHORIZED")
	}
	if r := c.Do("GET", "/customers/external-accounts/"+ext.ID, nil); r.Status != 200 {
		t.Fatalf("a refused delete deleted: %d", r.Status)
	}
}
