package main

import (
	"context"
	"testing"
	"time"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/internal/rail"
)

// productionWorld is a production platform supporting USD and EUR with one USD customer
// account whose KYC is approved. It holds no money: the payments below are refused
// before the balance is judged.
func productionWorld(t *testing.T, s *stack) *world {
	t.Helper()
	c, p := s.platform(false)
	if r := c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "fullName": "Ada Lovelace", "currencies": []string{"USD"}})
	if r.Status != 201 {
		t.Fatalf("create customer: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	r.Decode(t, &cust)
	if _, err := s.app.pool.Exec(context.Background(), "UPDATE customers SET kyc_status = 'APPROVED' WHERE platform_id = $1", p.ID); err != nil {
		t.Fatal(err)
	}
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	if len(accts.Data) != 1 {
		t.Fatalf("want one internal account, got %d", len(accts.Data))
	}
	return &world{t: t, s: s, c: c, platform: p, customer: cust.ID, account: accts.Data[0].ID}
}

// A production payment that no rail serves (by default none serves production) is
// refused when it is requested: 400 RAIL_NOT_CONFIGURED in the error envelope, and
// nothing is created, held or announced. Transfers out and in, quotes to an external
// account, executed at once or not, an agent's transfer. Before, the payment was created and then failed
// RAIL_UNAVAILABLE at its rail.
func TestProductionPaymentsRefusedWithoutRail(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	w := productionWorld(t, s)
	usd, eur := w.external("001"), w.euroAccount("001")
	for what, r := range map[string]*apitest.Response{
		"transfer out":           w.transferOut(usd, 100),
		"transfer in":            w.transferIn(usd, 100),
		"quote":                  w.quote(eur, "SENDING", 1000),
		"quote executed at once": w.quote(eur, "SENDING", 1000, map[string]any{"immediatelyExecute": true}),
	} {
		if r.Status != 400 || r.Code(t) != "RAIL_NOT_CONFIGURED" || r.JSON(t)["details"] == nil {
			t.Fatalf("%s: %d %s", what, r.Status, r.Body)
		}
	}

	// An agent's transfer is refused when the agent asks, not once the action is approved.
	_, token := connectAgent(t, w.c, w.customer, usdPolicy(5_000, nil))
	r := w.c.With("", "").Do("POST", "/agents/me/transfer-in", map[string]any{"source": map[string]any{"accountId": usd},
		"destination": map[string]any{"accountId": w.account}, "amount": 100}, "Authorization", "Bearer "+token)
	if r.Status != 400 || r.Code(t) != "RAIL_NOT_CONFIGURED" {
		t.Fatalf("agent transfer in: %d %s", r.Status, r.Body)
	}

	var list api.List[view.Transaction]
	w.c.Do("GET", "/transactions", nil).Decode(t, &list)
	var events, quotes, actions int
	ctx := context.Background()
	var held int64
	if err := s.app.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM webhook_events WHERE platform_id = $1 AND type LIKE '%PAYMENT%'),
		(SELECT count(*) FROM quotes WHERE platform_id = $1), (SELECT coalesce(sum(held), 0) FROM ledger_accounts WHERE platform_id = $1),
		(SELECT count(*) FROM agent_actions WHERE platform_id = $1)`,
		w.platform.ID).Scan(&events, &quotes, &held, &actions); err != nil {
		t.Fatal(err)
	}
	if len(list.Data) != 0 || events != 0 || quotes != 0 || held != 0 || actions != 0 || w.balance() != 0 {
		t.Fatalf("refused payments left %d transactions, %d quotes, %d payment events, %d agent actions, %d held, balance %d",
			len(list.Data), quotes, events, actions, held, w.balance())
	}
}

// Rails are routed by external account type too: with only USD_ACCOUNT external accounts
// (and UMA addresses) routed to the sandbox rail, a quote paying out to an EUR_ACCOUNT is
// refused when it is requested (400 RAIL_NOT_CONFIGURED naming the type, no quote made),
// while a transfer out to a USD_ACCOUNT is taken and completes.
func TestRailsRoutedByAccountType(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) {
		routes, err := rail.ParseRoutes("SANDBOX:*:UMA=sandbox,SANDBOX:*:EXTERNAL_ACCOUNT:USD_ACCOUNT=sandbox")
		if err != nil {
			t.Fatal(err)
		}
		c.Rails = routes
	})
	w := newWorld(t, s)
	w.fund(10_000)
	r := w.quote(w.euroAccount("001"), "SENDING", 1000)
	if r.Status != 400 || r.Code(t) != "RAIL_NOT_CONFIGURED" {
		t.Fatalf("a quote to an EUR_ACCOUNT: %d %s", r.Status, r.Body)
	}
	if d, _ := r.JSON(t)["details"].(map[string]any); d["accountType"] != "EUR_ACCOUNT" {
		t.Fatalf("the refusal's details %v do not name the account type", r.JSON(t)["details"])
	}
	var quotes int
	if err := s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM quotes WHERE platform_id = $1", w.platform.ID).Scan(&quotes); err != nil || quotes != 0 {
		t.Fatalf("%d quotes after the refusal (%v)", quotes, err)
	}
	r = w.transferOut(w.external("001"), 100)
	if r.Status != 200 && r.Status != 201 {
		t.Fatalf("a transfer out to a USD_ACCOUNT: %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["id"].(string)
	eventually(t, 60*time.Second, "the transfer to complete", func() bool {
		return w.c.Do("GET", "/transactions/"+id, nil).JSON(t)["status"] == "COMPLETED"
	})
}
