package main

import (
	"strings"
	"testing"

	"paycore/api/apitest"
)

// wantTransactRefusal checks the refusal of an act that needs TRANSACT.
func wantTransactRefusal(t *testing.T, step string, r *apitest.Response) {
	t.Helper()
	if r.Status != 403 || r.Code(t) != "FORBIDDEN" || r.JSON(t)["details"].(map[string]any)["permission"] != "TRANSACT" ||
		!strings.Contains(r.JSON(t)["message"].(string), "TRANSACT") {
		t.Fatalf("%s with a MANAGE-only token: %d %s, want 403 FORBIDDEN naming TRANSACT", step, r.Status, r.Body)
	}
}

// The attack of a MANAGE-only token: it is refused POST /transfer-out, so it makes an
// agent that transfers for it (create it with CREATE_TRANSFERS in AUTO, or issue a device
// code for one, or switch an approval-required one to AUTO). Every step that would let
// money move needs TRANSACT; the customer's money stays where it is.
func TestManageOnlyTokenCannotMoveMoneyThroughAnAgent(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := newWorld(t, s)
	w.fund(100_000)
	ext := w.external("000")
	r := w.c.Do("POST", "/tokens", map[string]any{"name": "manager", "permissions": []string{"MANAGE"}})
	if r.Status != 201 {
		t.Fatalf("token: %d %s", r.Status, r.Body)
	}
	tok := r.JSON(t)
	manager := w.c.With(tok["clientId"].(string), tok["clientSecret"].(string))
	transferOut := func(token string) *apitest.Response {
		return w.c.With("", "").Do("POST", "/agents/me/transfer-out", map[string]any{"source": map[string]any{"accountId": w.account},
			"destination": map[string]any{"accountId": ext}, "amount": 90_000}, "Authorization", "Bearer "+token)
	}
	if r := manager.Do("POST", "/transfer-out", map[string]any{"source": map[string]any{"accountId": w.account},
		"destination": map[string]any{"accountId": ext}, "amount": 90_000}); r.Status != 403 {
		t.Fatalf("transfer-out with MANAGE only: %d %s", r.Status, r.Body)
	}

	// 1. An AUTO agent with CREATE_TRANSFERS, its code redeemed without credential.
	r = manager.Do("POST", "/agents", map[string]any{"name": "Mule", "customerId": w.customer, "policy": usdPolicy(100_000, nil)})
	if r.Status == 201 {
		code := r.JSON(t)["deviceCode"].(map[string]any)["code"].(string)
		red := w.c.With("", "").Do("POST", "/agents/device-codes/"+code+"/redeem", nil)
		moved := transferOut(red.JSON(t)["accessToken"].(string))
		t.Fatalf("a MANAGE-only token created a money agent; its transfer answered %d %s", moved.Status, moved.Body)
	}
	wantTransactRefusal(t, "creating an AUTO agent with CREATE_TRANSFERS", r)

	// 2. A device code for a money agent the platform created but did not connect.
	r = w.c.Do("POST", "/agents", map[string]any{"name": "Treasury", "customerId": w.customer, "policy": usdPolicy(100_000, nil)})
	if r.Status != 201 {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	unconnected := r.JSON(t)["agent"].(map[string]any)["id"].(string)
	wantTransactRefusal(t, "issuing a device code for a money agent", manager.Do("POST", "/agents/"+unconnected+"/device-codes", nil))

	// 3. An approval-required agent switched to AUTO: refused, its transfer still waits.
	agentID, token := connectAgent(t, w.c, w.customer, usdPolicy(100_000, map[string]any{"defaultExecutionMode": "APPROVAL_REQUIRED"}))
	wantTransactRefusal(t, "switching an agent to AUTO", manager.Do("PATCH", "/agents/"+agentID+"/policy", map[string]any{"defaultExecutionMode": "AUTO"}))
	r = transferOut(token)
	if r.Status != 201 || r.JSON(t)["status"] != "PENDING_APPROVAL" {
		t.Fatalf("the approval-required agent's transfer: %d %s", r.Status, r.Body)
	}
	// Pausing stays with MANAGE; resuming needs TRANSACT.
	if r := manager.Do("PATCH", "/agents/"+agentID, map[string]any{"isPaused": true}); r.Status != 200 {
		t.Fatalf("pause: %d %s", r.Status, r.Body)
	}
	wantTransactRefusal(t, "resuming an agent", manager.Do("PATCH", "/agents/"+agentID, map[string]any{"isPaused": false}))
	if b := w.balance(); b != 100_000 {
		t.Fatalf("balance %d, want 100000: money moved", b)
	}
}
