package main

import (
	"context"
	"net/url"
	"testing"
	"time"

	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/view"
)

// agentWorld is a sandbox world (one funded USD customer) with a connected agent of its
// customer.
type agentWorld struct {
	*world
	agentID string
	token   string
	ext     string // a USD external account of the customer (suffix 000: completes)
}

// usdPolicy is a policy in USD with every permission, AUTO, and the given limits.
func usdPolicy(perTx int64, extra map[string]any) map[string]any {
	p := map[string]any{
		"permissions":          []string{"VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"},
		"defaultExecutionMode": "AUTO",
		"spendingLimits":       map[string]any{"currency": "USD", "perTransactionLimit": perTx},
	}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// newAgentWorld funds the world's customer with funds and connects an agent of it under
// policy.
func newAgentWorld(t *testing.T, s *stack, funds int64, policy map[string]any) *agentWorld {
	t.Helper()
	w := newWorld(t, s)
	if funds > 0 {
		w.fund(funds)
	}
	aw := &agentWorld{world: w, ext: w.external("000")}
	aw.agentID, aw.token = connectAgent(t, w.c, w.customer, policy)
	return aw
}

// createAgent creates an agent of the customer under policy: its id and its device code,
// not redeemed.
func createAgent(t *testing.T, c *apitest.Client, customerID string, policy map[string]any) (id, code string) {
	t.Helper()
	r := c.Do("POST", "/agents", map[string]any{"name": "Treasury bot", "customerId": customerID, "policy": policy})
	if r.Status != 201 {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	created := r.JSON(t)
	return created["agent"].(map[string]any)["id"].(string), created["deviceCode"].(map[string]any)["code"].(string)
}

// connectAgent creates an agent of the customer under policy and redeems its device code:
// the agent's id and access token.
func connectAgent(t *testing.T, c *apitest.Client, customerID string, policy map[string]any) (string, string) {
	t.Helper()
	id, code := createAgent(t, c, customerID, policy)
	red := c.With("", "").Do("POST", "/agents/device-codes/"+code+"/redeem", nil)
	if red.Status != 200 {
		t.Fatalf("redeem: %d %s", red.Status, red.Body)
	}
	return id, red.JSON(t)["accessToken"].(string)
}

// as sends a request with the agent's token.
func (w *agentWorld) as(method, path string, body any, headers ...string) *apitest.Response {
	return w.c.With("", "").Do(method, path, body, append([]string{"Authorization", "Bearer " + w.token}, headers...)...)
}

// transferOutAs is the agent's POST /agents/me/transfer-out from the customer's account.
func (w *agentWorld) transferOutAs(amount int64, headers ...string) *apitest.Response {
	return w.as("POST", "/agents/me/transfer-out", map[string]any{"source": map[string]any{"accountId": w.account},
		"destination": map[string]any{"accountId": w.ext}, "amount": amount}, headers...)
}

// action decodes an AgentAction answer with the wanted status code.
func (w *agentWorld) action(r *apitest.Response, status int) view.AgentAction {
	w.t.Helper()
	if r.Status != status {
		w.t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	var a view.AgentAction
	r.Decode(w.t, &a)
	return a
}

// usage is the agent's usage as GET /agents/{agentId} shows it.
func (w *agentWorld) usage() view.Agent {
	w.t.Helper()
	var a view.Agent
	r := w.c.Do("GET", "/agents/"+w.agentID, nil)
	if r.Status != 200 {
		w.t.Fatalf("get agent: %d %s", r.Status, r.Body)
	}
	r.Decode(w.t, &a)
	return a
}

func (w *agentWorld) wantUsage(count, daily int64) {
	w.t.Helper()
	u := w.usage().Usage
	if u.DailyTransactionCount != count || u.DailySpend != daily || u.MonthlySpend != daily {
		w.t.Fatalf("usage %+v, want %d transactions and %d spent", u, count, daily)
	}
}

// webhookCount counts the platform's recorded events of type about the action.
func (w *agentWorld) webhookCount(typ, actionID string) int {
	w.t.Helper()
	var n int
	if err := w.s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM webhook_events WHERE platform_id = $1 AND type = $2 AND data->>'id' = $3",
		w.platform.ID, typ, actionID).Scan(&n); err != nil {
		w.t.Fatal(err)
	}
	return n
}

// Within AUTO and its limits an agent's transfer executes at once, through the transfer
// workflow: the action is APPROVED with the transaction, which names the agent and
// completes; the usage counts it; a transfer past a limit is refused with the limit named
// and counts nothing.
func TestAgentTransferAuto(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := newAgentWorld(t, s, 10_000, usdPolicy(5_000, map[string]any{
		"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 5_000, "dailyLimit": 6_000}}))

	a := w.action(w.transferOutAs(4_000), 201)
	if a.Status != "APPROVED" || a.Type != "TRANSFER_OUT" || a.Transaction == nil || a.TransferDetails == nil {
		t.Fatalf("action %+v", a)
	}
	if a.Transaction.AgentID != w.agentID || a.TransferDetails.Amount != 4_000 || a.TransferDetails.SourceAccountID != w.account {
		t.Fatalf("action's transaction %+v, details %+v", a.Transaction, a.TransferDetails)
	}
	if tx := w.waitFinal(a.Transaction.ID, time.Minute); tx.Status != "COMPLETED" || tx.AgentID != w.agentID {
		t.Fatalf("transaction %+v", tx)
	}
	w.wantUsage(1, 4_000)

	// Per transaction, then the daily amount: refused, nothing counted or moved.
	r := w.transferOutAs(5_001)
	if r.Status != 403 || r.Code(t) != "VELOCITY_LIMIT_EXCEEDED" || r.JSON(t)["details"].(map[string]any)["limit"] != "perTransactionLimit" {
		t.Fatalf("per transaction: %d %s", r.Status, r.Body)
	}
	r = w.transferOutAs(2_001)
	if r.Status != 403 || r.JSON(t)["details"].(map[string]any)["limit"] != "dailyLimit" {
		t.Fatalf("daily: %d %s", r.Status, r.Body)
	}
	w.wantUsage(1, 4_000)
	if b := w.balance(); b != 6_000 {
		t.Fatalf("balance %d, want 6000", b)
	}
	// Exactly at the daily limit passes, on the rail the agent names and with what it asks
	// to travel with the payment; a rail the account does not offer is refused first.
	extras := func(rail string) *apitest.Response {
		return w.as("POST", "/agents/me/transfer-out", map[string]any{"source": map[string]any{"accountId": w.account},
			"destination": map[string]any{"accountId": w.ext, "paymentRail": rail}, "amount": 2_000,
			"remittanceInformation": "INV-7", "purposeOfPayment": "GIFT"})
	}
	if r := extras("SEPA"); r.Status != 400 || r.Field(t) != "destination.paymentRail" {
		t.Fatalf("a rail the account does not offer: %d %s", r.Status, r.Body)
	}
	a = w.action(extras("WIRE"), 201)
	if tx := w.transaction(a.Transaction.ID); db.Deref(tx.PaymentRail) != "WIRE" || db.Deref(tx.RailSelectionMode) != "MANUAL" {
		t.Fatalf("the agent's rail: %+v", tx)
	}
	var remittance, purpose string
	if err := s.app.pool.QueryRow(context.Background(), "SELECT remittance_information, purpose_of_payment FROM transactions WHERE agent_id IS NOT NULL AND payment_rail = 'WIRE'").
		Scan(&remittance, &purpose); err != nil || remittance != "INV-7" || purpose != "GIFT" {
		t.Fatalf("the agent's extras: %q %q %v", remittance, purpose, err)
	}
	w.wantUsage(2, 6_000)

	// The agent sees its actions; the same Idempotency-Key answers the same action.
	var list struct {
		Data       []view.AgentAction `json:"data"`
		TotalCount int64              `json:"totalCount"`
	}
	w.as("GET", "/agents/me/actions?status=APPROVED", nil).Decode(t, &list)
	if list.TotalCount != 2 || len(list.Data) != 2 {
		t.Fatalf("actions %+v", list)
	}
}

// An action above the approval threshold waits for the platform: PENDING_APPROVAL without
// a transaction, the AGENT_ACTION_PENDING_APPROVAL event, listed in GET /agents/approvals.
// Approval executes it; approving or rejecting again is 409. A rejection records its
// reason and gives the reservation back.
func TestAgentApprovalFlow(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := newAgentWorld(t, s, 10_000, usdPolicy(5_000, map[string]any{
		"approvalThresholds": map[string]any{"currency": "USD", "amount": 1_000}}))

	a := w.action(w.transferOutAs(1_500), 201)
	if a.Status != "PENDING_APPROVAL" || a.Transaction != nil || a.ApprovalExpiresAt == nil {
		t.Fatalf("pending action %+v", a)
	}
	if n := w.webhookCount("AGENT_ACTION_PENDING_APPROVAL", a.ID); n != 1 {
		t.Fatalf("%d AGENT_ACTION_PENDING_APPROVAL events, want 1", n)
	}
	w.wantUsage(1, 1_500) // reserved while it waits
	var pending struct {
		Data []view.AgentAction `json:"data"`
	}
	w.c.Do("GET", "/agents/approvals?agentId="+url.QueryEscape(w.agentID), nil).Decode(t, &pending)
	if len(pending.Data) != 1 || pending.Data[0].ID != a.ID {
		t.Fatalf("approvals %+v", pending.Data)
	}

	done := w.action(w.c.Do("POST", "/agents/"+w.agentID+"/actions/"+a.ID+"/approve", nil), 200)
	if done.Status != "APPROVED" || done.Transaction == nil || done.Transaction.AgentID != w.agentID {
		t.Fatalf("approved action %+v", done)
	}
	if tx := w.waitFinal(done.Transaction.ID, time.Minute); tx.Status != "COMPLETED" {
		t.Fatalf("transaction %+v", tx)
	}
	for _, verb := range []string{"approve", "reject"} {
		if r := w.c.Do("POST", "/agents/"+w.agentID+"/actions/"+a.ID+"/"+verb, nil); r.Status != 409 || r.Code(t) != "AGENT_ACTION_NOT_PENDING" {
			t.Fatalf("%s twice: %d %s", verb, r.Status, r.Body)
		}
	}

	b := w.action(w.transferOutAs(2_000), 201)
	rej := w.action(w.c.Do("POST", "/agents/"+w.agentID+"/actions/"+b.ID+"/reject", map[string]any{"reason": "not this week"}), 200)
	if rej.Status != "REJECTED" || rej.RejectionReason == nil || *rej.RejectionReason != "not this week" || rej.Transaction != nil {
		t.Fatalf("rejected action %+v", rej)
	}
	w.wantUsage(1, 1_500)
	if got := w.action(w.as("GET", "/agents/me/actions/"+b.ID, nil), 200); got.Status != "REJECTED" {
		t.Fatalf("agent sees %+v", got)
	}
	if b := w.balance(); b != 8_500 {
		t.Fatalf("balance %d, want 8500", b)
	}
}

// An agent creates a quote from its customer's account and executes it as an action; the
// quote's transaction names the agent.
func TestAgentQuoteExecution(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast, quoteFast)
	w := newAgentWorld(t, s, 100_000, usdPolicy(50_000, nil))
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	eur := w.euroAccount("000")
	// The platform's fee is the platform's to set, not its agents'.
	if r := w.as("POST", "/agents/me/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": w.account},
		"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": eur}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 10_000,
		"platformFeeOverride": map[string]any{"platformFixedFee": map[string]any{"amount": 0, "currency": "USD"}, "platformVariableFeeBps": 0}}); r.Status != 400 || r.Field(t) != "platformFeeOverride" {
		t.Fatalf("agent's fee override: %d %s", r.Status, r.Body)
	}
	r := w.as("POST", "/agents/me/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": w.account},
		"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": eur}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 10_000})
	if r.Status != 201 {
		t.Fatalf("agent quote: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(t, &q)
	if got := w.as("GET", "/agents/me/quotes/"+q.ID, nil); got.Status != 200 {
		t.Fatalf("get quote: %d %s", got.Status, got.Body)
	}
	a := w.action(w.as("POST", "/agents/me/quotes/"+q.ID+"/execute", nil), 200)
	if a.Status != "APPROVED" || a.Type != "EXECUTE_QUOTE" || a.Quote == nil || a.Transaction == nil || a.Transaction.AgentID != w.agentID {
		t.Fatalf("executed %+v", a)
	}
	if tx := w.waitFinal(a.Transaction.ID, time.Minute); tx.Status != "COMPLETED" {
		t.Fatalf("transaction %+v", tx)
	}
	if r := w.as("POST", "/agents/me/quotes/"+q.ID+"/execute", nil); r.Status != 409 {
		t.Fatalf("second execution: %d %s", r.Status, r.Body)
	}
	checkLedger(t, s)
}
