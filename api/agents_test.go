package api_test

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/agentpolicy"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
)

// agentPolicyBody is a full policy naming the customer's account acct.
func agentPolicyBody(acct string) map[string]any {
	return map[string]any{
		"permissions":          []string{"VIEW_TRANSACTIONS", "CREATE_TRANSFERS"},
		"defaultExecutionMode": "AUTO",
		"spendingLimits":       map[string]any{"currency": "USD", "perTransactionLimit": 10000, "dailyLimit": 50000, "dailyTransactionLimit": 5, "monthlyLimit": nil},
		"accountRestrictions": map[string]any{"allowedAccountIds": []string{acct},
			"accountRules": []any{map[string]any{"accountId": acct, "executionMode": "APPROVAL_REQUIRED", "perTransactionLimit": 2500}}},
		"approvalThresholds": map[string]any{"currency": "USD", "amount": 7500},
	}
}

type agentCreated struct {
	Agent      view.Agent           `json:"agent"`
	DeviceCode view.AgentDeviceCode `json:"deviceCode"`
}

// createAgent creates an agent of the customer with policy; it must succeed.
func createAgent(t *testing.T, c *apitest.Client, customerID string, policy map[string]any) agentCreated {
	t.Helper()
	r := c.Do("POST", "/agents", map[string]any{"name": "Budget bot", "customerId": customerID, "policy": policy})
	if r.Status != 201 {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	var out agentCreated
	r.Decode(t, &out)
	return out
}

// anonymous is c without credentials: the device-code redeem is called without any.
func anonymous(c *apitest.Client) *apitest.Client { return c.With("", "") }

// policyOf decodes an agent's rendered policy.
func policyOf(t *testing.T, a view.Agent) map[string]any {
	t.Helper()
	return (&apitest.Response{Body: a.Policy}).JSON(t)
}

func TestAgentLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	other, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	acct := accountsByCurrency(t, c, cust.ID)["USD"].ID

	before := time.Now()
	created := createAgent(t, c, cust.ID, agentPolicyBody(acct))
	after := time.Now()
	a, dc := created.Agent, created.DeviceCode
	if !strings.HasPrefix(a.ID, "Agent:") || a.Name != "Budget bot" || a.CustomerID != cust.ID || a.IsPaused || a.IsConnected {
		t.Fatalf("created %+v", a)
	}
	// No spending recorded yet: zeros in today's UTC windows.
	if u := a.Usage; u.DailySpend != 0 || u.DailyTransactionCount != 0 || u.MonthlySpend != 0 ||
		(u.DailyResetDate != agentpolicy.Day(before) && u.DailyResetDate != agentpolicy.Day(after)) ||
		(u.MonthlyResetMonth != agentpolicy.Month(before) && u.MonthlyResetMonth != agentpolicy.Month(after)) {
		t.Fatalf("usage %+v", a.Usage)
	}
	if dc.AgentID != a.ID || dc.Redeemed || !strings.HasPrefix(dc.Code, "AGENT-") || time.Until(dc.ExpiresAt) < 14*time.Minute || time.Until(dc.ExpiresAt) > 16*time.Minute {
		t.Fatalf("device code %+v", dc)
	}
	p := policyOf(t, a)
	limits := p["spendingLimits"].(map[string]any)
	if limits["dailyLimit"] != float64(50000) || limits["monthlyLimit"] != nil || limits["dailyTransactionLimit"] != float64(5) {
		t.Fatalf("policy %s", a.Policy)
	}

	var got view.Agent
	r := c.Do("GET", "/agents/"+a.ID, nil)
	if r.Status != 200 {
		t.Fatalf("get: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &got)
	if got.ID != a.ID || string(got.Policy) != string(a.Policy) {
		t.Fatalf("got %+v", got)
	}

	// Renamed and paused; the list filters see it.
	r = c.Do("PATCH", "/agents/"+a.ID, map[string]any{"name": "Groceries", "isPaused": true})
	if r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &got)
	if got.Name != "Groceries" || !got.IsPaused || string(got.Policy) != string(a.Policy) {
		t.Fatalf("patched %+v", got)
	}
	second := createAgent(t, c, cust.ID, map[string]any{"permissions": []string{}, "defaultExecutionMode": "AUTO",
		"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 0}})
	listIDs := func(query string) []string {
		t.Helper()
		var l struct {
			Data       []view.Agent `json:"data"`
			TotalCount int          `json:"totalCount"`
		}
		r := c.Do("GET", "/agents"+query, nil)
		if r.Status != 200 {
			t.Fatalf("list %s: %d %s", query, r.Status, r.Body)
		}
		r.Decode(t, &l)
		var out []string
		for _, a := range l.Data {
			out = append(out, a.ID)
		}
		if l.TotalCount != len(out) && !strings.Contains(query, "limit") {
			t.Fatalf("list %s: totalCount %d for %d agents", query, l.TotalCount, len(out))
		}
		return out
	}
	if ids := listIDs(""); len(ids) != 2 || ids[0] != second.Agent.ID || ids[1] != a.ID {
		t.Fatalf("list %v", ids)
	}
	if ids := listIDs("?isPaused=true"); len(ids) != 1 || ids[0] != a.ID {
		t.Fatalf("paused %v", ids)
	}
	if ids := listIDs("?isPaused=false&customerId=" + cust.ID); len(ids) != 1 || ids[0] != second.Agent.ID {
		t.Fatalf("active of the customer %v", ids)
	}
	if ids := listIDs("?isConnected=true"); len(ids) != 0 {
		t.Fatalf("connected %v", ids)
	}
	if ids := listIDs("?customerId=" + ids.Format(ids.Customer, ids.New())); len(ids) != 0 {
		t.Fatalf("another customer's %v", ids)
	}
	if ids := listIDs("?limit=1"); len(ids) != 1 {
		t.Fatalf("one page %v", ids)
	}
	for _, q := range []string{"?isPaused=yes", "?customerId=nope", "?createdAfter=yesterday", "?name=x", "?limit=0"} {
		expectError(t, c.Do("GET", "/agents"+q, nil), 400, "INVALID_INPUT")
	}

	// The policy: a partial merge, effective at once; an explicit null lifts a limit.
	r = c.Do("PATCH", "/agents/"+a.ID+"/policy", map[string]any{"spendingLimits": map[string]any{"dailyLimit": nil, "monthlyLimit": 90000},
		"permissions": []string{"VIEW_TRANSACTIONS"}})
	if r.Status != 200 {
		t.Fatalf("patch policy: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &got)
	p = policyOf(t, got)
	limits = p["spendingLimits"].(map[string]any)
	if limits["dailyLimit"] != nil || limits["monthlyLimit"] != float64(90000) || limits["perTransactionLimit"] != float64(10000) ||
		limits["dailyTransactionLimit"] != float64(5) || len(p["permissions"].([]any)) != 1 ||
		p["approvalThresholds"].(map[string]any)["amount"] != float64(7500) || got.Name != "Groceries" {
		t.Fatalf("merged policy %s", got.Policy)
	}
	r = c.Do("PATCH", "/agents/"+a.ID+"/policy", map[string]any{"accountRestrictions": map[string]any{"allowedAccountIds": nil}})
	r.Decode(t, &got)
	if rs := policyOf(t, got)["accountRestrictions"].(map[string]any); r.Status != 200 || rs["allowedAccountIds"] != nil || len(rs["accountRules"].([]any)) != 1 {
		t.Fatalf("every account allowed: %d %s", r.Status, r.Body)
	}
	for _, bad := range []struct {
		body  map[string]any
		field string
		code  string
	}{
		{map[string]any{"spendingLimits": map[string]any{"dailyLimit": -1}}, "spendingLimits.dailyLimit", "INVALID_INPUT"},
		{map[string]any{"spendingLimits": map[string]any{"dailyLimit": "10"}}, "spendingLimits.dailyLimit", "INVALID_INPUT"},
		{map[string]any{"spendingLimits": map[string]any{"currency": "XYZ", "perTransactionLimit": 1, "dailyLimit": nil, "monthlyLimit": nil}},
			"spendingLimits.currency", "INVALID_CURRENCY"},
		// Another currency means other amounts: the update states them.
		{map[string]any{"spendingLimits": map[string]any{"currency": "EUR"}}, "spendingLimits.perTransactionLimit", "INVALID_INPUT"},
		{map[string]any{"permissions": []string{"EVERYTHING"}}, "permissions[0]", "INVALID_INPUT"},
		{map[string]any{"accountRestrictions": map[string]any{"allowedAccountIds": []string{ids.Format(ids.InternalAccount, ids.New())}}},
			"accountRestrictions.accountRules[0].accountId", "INVALID_INPUT"},
		{map[string]any{"accountRestrictions": map[string]any{"accountRules": []any{map[string]any{"accountId": ids.Format(ids.InternalAccount, ids.New())}}}},
			"accountRestrictions.accountRules[0].accountId", "INVALID_INPUT"},
		{map[string]any{"approvalThresholds": map[string]any{"currency": nil}}, "approvalThresholds.currency", "INVALID_INPUT"},
		{map[string]any{"limits": map[string]any{}}, "limits", "INVALID_INPUT"},
	} {
		m := expectError(t, c.Do("PATCH", "/agents/"+a.ID+"/policy", bad.body), 400, bad.code)
		if m["details"].(map[string]any)["field"] != bad.field {
			t.Errorf("%v: field %v, want %s", bad.body, m["details"], bad.field)
		}
	}

	// Under an Idempotency-Key a repeated create answers the first agent and code again.
	body := map[string]any{"name": "Once", "customerId": cust.ID, "policy": agentPolicyBody(acct)}
	r1 := c.Do("POST", "/agents", body, "Idempotency-Key", "agent-once")
	r2 := c.Do("POST", "/agents", body, "Idempotency-Key", "agent-once")
	if r1.Status != 201 || r2.Status != 201 || string(r1.Body) != string(r2.Body) || r2.Header.Get("Idempotent-Replayed") != "true" ||
		r2.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("idempotent create: %d %d %s", r1.Status, r2.Status, r2.Header)
	}
	var once agentCreated
	r1.Decode(t, &once)
	if n := sqlCount(t, e, "SELECT count(*) FROM agents WHERE name = 'Once'"); n != 1 {
		t.Fatalf("%d agents for one key", n)
	}
	c.Do("DELETE", "/agents/"+once.Agent.ID, nil)

	// Another platform sees none of it.
	expectError(t, other.Do("GET", "/agents/"+a.ID, nil), 404, "AGENT_NOT_FOUND")
	expectError(t, other.Do("PATCH", "/agents/"+a.ID, map[string]any{"isPaused": false}), 404, "AGENT_NOT_FOUND")
	expectError(t, other.Do("PATCH", "/agents/"+a.ID+"/policy", map[string]any{}), 404, "AGENT_NOT_FOUND")
	expectError(t, other.Do("POST", "/agents/"+a.ID+"/device-codes", nil), 404, "AGENT_NOT_FOUND")
	expectError(t, other.Do("DELETE", "/agents/"+a.ID, nil), 404, "AGENT_NOT_FOUND")
	expectError(t, other.Do("GET", "/agents/device-codes/"+dc.Code+"/status", nil), 404, "DEVICE_CODE_NOT_FOUND")
	if r := other.Do("GET", "/agents", nil); !strings.Contains(string(r.Body), `"totalCount":0`) {
		t.Fatalf("another platform lists: %s", r.Body)
	}
	expectError(t, other.Do("POST", "/agents", map[string]any{"name": "x", "customerId": cust.ID, "policy": agentPolicyBody(acct)}), 404, "USER_NOT_FOUND")
	expectError(t, c.Do("GET", "/agents/"+cust.ID, nil), 404, "AGENT_NOT_FOUND")

	// Delete: gone from reads and lists.
	if r := c.Do("DELETE", "/agents/"+a.ID, nil); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	expectError(t, c.Do("GET", "/agents/"+a.ID, nil), 404, "AGENT_NOT_FOUND")
	expectError(t, c.Do("DELETE", "/agents/"+a.ID, nil), 404, "AGENT_NOT_FOUND")
	expectError(t, c.Do("GET", "/agents/device-codes/"+dc.Code+"/status", nil), 404, "DEVICE_CODE_NOT_FOUND")
	if ids := listIDs(""); len(ids) != 1 || ids[0] != second.Agent.ID {
		t.Fatalf("after delete %v", ids)
	}
}

func TestAgentCreateRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	acct := accountsByCurrency(t, c, cust.ID)["USD"].ID
	policy := agentPolicyBody(acct)
	for _, bad := range []struct {
		body         map[string]any
		status       int
		code, field  string
		messageNames string
	}{
		{map[string]any{"customerId": cust.ID, "policy": policy}, 400, "INVALID_INPUT", "name", "name"},
		{map[string]any{"name": " ", "customerId": cust.ID, "policy": policy}, 400, "INVALID_INPUT", "name", "name"},
		{map[string]any{"name": strings.Repeat("n", 256), "customerId": cust.ID, "policy": policy}, 400, "INVALID_INPUT", "name", "255"},
		{map[string]any{"name": "x", "policy": policy}, 400, "INVALID_INPUT", "customerId", "customerId"},
		{map[string]any{"name": "x", "customerId": "Customer:nope", "policy": policy}, 400, "INVALID_INPUT", "customerId", "Customer:<uuid>"},
		{map[string]any{"name": "x", "customerId": cust.ID}, 400, "INVALID_INPUT", "policy", "policy"},
		{map[string]any{"name": "x", "customerId": cust.ID, "policy": map[string]any{"defaultExecutionMode": "AUTO"}}, 400, "INVALID_INPUT", "policy.permissions", "policy.permissions"},
		{map[string]any{"name": "x", "customerId": cust.ID, "policy": map[string]any{"permissions": []string{}, "defaultExecutionMode": "AUTO",
			"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 1, "monthlyLimit": -3}}}, 400, "INVALID_INPUT", "policy.spendingLimits.monthlyLimit", "negative"},
		{map[string]any{"name": "x", "customerId": cust.ID, "policy": map[string]any{"permissions": []string{}, "defaultExecutionMode": "AUTO",
			"spendingLimits": map[string]any{"currency": "usd", "perTransactionLimit": 1}}}, 400, "INVALID_CURRENCY", "policy.spendingLimits.currency", "usd"},
		{map[string]any{"name": "x", "customerId": cust.ID, "policy": map[string]any{"permissions": []string{}, "defaultExecutionMode": "AUTO",
			"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 1}, "approvalThresholds": map[string]any{"amount": 5}}},
			400, "INVALID_INPUT", "policy.approvalThresholds.currency", "required"},
		{map[string]any{"name": "x", "customerId": cust.ID, "policy": map[string]any{"permissions": []string{}, "defaultExecutionMode": "AUTO",
			"spendingLimits":      map[string]any{"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": map[string]any{"allowedAccountIds": []string{strings.Replace(acct, "InternalAccount", "ExternalAccount", 1)}}}},
			400, "INVALID_INPUT", "policy.accountRestrictions.allowedAccountIds[0]", "InternalAccount:<uuid>"},
		{map[string]any{"name": "x", "customerId": cust.ID, "policy": map[string]any{"permissions": []string{}, "defaultExecutionMode": "AUTO",
			"spendingLimits":      map[string]any{"currency": "USD", "perTransactionLimit": 1},
			"accountRestrictions": map[string]any{"allowedAccountIds": []string{ids.Format(ids.InternalAccount, ids.New())}}}},
			400, "INVALID_INPUT", "policy.accountRestrictions.allowedAccountIds[0]", "not an open internal account"},
		{map[string]any{"name": "x", "customerId": cust.ID, "policy": policy, "isPaused": true}, 400, "INVALID_INPUT", "isPaused", "isPaused"},
		{map[string]any{"name": "x", "customerId": ids.Format(ids.Customer, ids.New()), "policy": policy}, 404, "USER_NOT_FOUND", "", "customer"},
	} {
		m := expectError(t, c.Do("POST", "/agents", bad.body), bad.status, bad.code)
		if bad.field != "" {
			if d, _ := m["details"].(map[string]any); d == nil || d["field"] != bad.field {
				t.Errorf("%v: details %v, want field %s", bad.body, m["details"], bad.field)
			}
		}
		if !strings.Contains(m["message"].(string), bad.messageNames) {
			t.Errorf("%v: message %q does not say %q", bad.body, m["message"], bad.messageNames)
		}
	}
	// A token without MANAGE cannot create agents (but reads them).
	r := c.Do("POST", "/tokens", map[string]any{"name": "viewer", "permissions": []string{"VIEW"}})
	var tok struct{ ClientID, ClientSecret string }
	r.Decode(t, &tok)
	viewer := c.With(tok.ClientID, tok.ClientSecret)
	expectError(t, viewer.Do("POST", "/agents", map[string]any{"name": "x", "customerId": cust.ID, "policy": policy}), 403, "FORBIDDEN")
	if r := viewer.Do("GET", "/agents", nil); r.Status != 200 {
		t.Fatalf("a VIEW token lists agents: %d", r.Status)
	}
	if n := sqlCount(t, e, "SELECT count(*) FROM agents"); n != 0 {
		t.Fatalf("refused creates wrote %d agents", n)
	}
	// A deleted customer gets no agent.
	if r := c.Do("DELETE", "/customers/"+cust.ID, nil); r.Status != 200 {
		t.Fatalf("delete customer: %d %s", r.Status, r.Body)
	}
	expectError(t, c.Do("POST", "/agents", map[string]any{"name": "x", "customerId": cust.ID, "policy": policy}), 410, "CUSTOMER_DELETED")
}

func sqlCount(t *testing.T, e *env, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

type redeemed struct {
	AgentID     string         `json:"agentId"`
	AgentName   string         `json:"agentName"`
	AccessToken string         `json:"accessToken"`
	Policy      map[string]any `json:"policy"`
}

func TestAgentDeviceCodeAndBearer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	acct := accountsByCurrency(t, c, cust.ID)["USD"].ID
	created := createAgent(t, c, cust.ID, agentPolicyBody(acct))
	a, first := created.Agent, created.DeviceCode.Code
	anon := anonymous(c)

	// A new code replaces the first.
	r := c.Do("POST", "/agents/"+a.ID+"/device-codes", nil)
	if r.Status != 201 || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("new code: %d %s", r.Status, r.Body)
	}
	var dc view.AgentDeviceCode
	r.Decode(t, &dc)
	if dc.Code == first || dc.AgentID != a.ID || dc.Redeemed {
		t.Fatalf("new code %+v", dc)
	}
	expectError(t, anon.Do("POST", "/agents/device-codes/"+first+"/redeem", nil), 400, "DEVICE_CODE_EXPIRED")
	expectError(t, c.Do("GET", "/agents/device-codes/"+first+"/status", nil), 404, "DEVICE_CODE_NOT_FOUND")
	var st view.AgentDeviceCodeStatus
	r = c.Do("GET", "/agents/device-codes/"+dc.Code+"/status", nil)
	r.Decode(t, &st)
	if r.Status != 200 || st.Redeemed || st.Code != dc.Code || st.AgentID != a.ID {
		t.Fatalf("status %d %+v", r.Status, st)
	}

	// Redeemed once, typed the way a person might; the token is shown once.
	typed := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(dc.Code, "AGENT-"), "-", ""))
	typed = typed[:4] + "%20" + typed[4:] // a space, as typed into a URL
	r = anon.Do("POST", "/agents/device-codes/"+typed+"/redeem", nil)
	if r.Status != 200 || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("redeem: %d %s", r.Status, r.Body)
	}
	var red redeemed
	r.Decode(t, &red)
	if red.AgentID != a.ID || red.AgentName != "Budget bot" || !strings.HasPrefix(red.AccessToken, "pcagent_") ||
		red.Policy["defaultExecutionMode"] != "AUTO" {
		t.Fatalf("redeemed %+v", red)
	}
	if n := sqlCount(t, e, "SELECT count(*) FROM agents WHERE position(convert_to($1, 'UTF8') in token_hash) > 0", red.AccessToken); n != 0 {
		t.Fatal("the access token is stored in clear")
	}
	expectError(t, anon.Do("POST", "/agents/device-codes/"+dc.Code+"/redeem", nil), 400, "DEVICE_CODE_ALREADY_REDEEMED")
	r = c.Do("GET", "/agents/device-codes/"+dc.Code+"/status", nil)
	r.Decode(t, &st)
	if r.Status != 200 || !st.Redeemed {
		t.Fatalf("status after redeem %d %+v", r.Status, st)
	}
	var got view.Agent
	c.Do("GET", "/agents/"+a.ID, nil).Decode(t, &got)
	if !got.IsConnected {
		t.Fatal("a redeemed agent is not connected")
	}
	expectError(t, c.Do("POST", "/agents/"+a.ID+"/device-codes", nil), 409, "AGENT_ALREADY_CONNECTED")
	expectError(t, anon.Do("POST", "/agents/device-codes/AGENT-0000-0000-0000/redeem", nil), 404, "DEVICE_CODE_NOT_FOUND")
	expectError(t, anon.Do("POST", "/agents/device-codes/not-a-code/redeem", nil), 404, "DEVICE_CODE_NOT_FOUND")

	// An expired code (its expiry moved to the past) is refused.
	b := createAgent(t, c, cust.ID, agentPolicyBody(acct))
	if _, err := e.pool.Exec(context.Background(), "UPDATE agent_device_codes SET expires_at = now() - interval '1 second' WHERE redeemed_at IS NULL AND replaced_at IS NULL"); err != nil {
		t.Fatal(err)
	}
	expectError(t, anon.Do("POST", "/agents/device-codes/"+b.DeviceCode.Code+"/redeem", nil), 400, "DEVICE_CODE_EXPIRED")
	c.Do("GET", "/agents/"+b.Agent.ID, nil).Decode(t, &got)
	if got.IsConnected {
		t.Fatal("an expired code connected its agent")
	}

	// The bearer token reads /agents/me.
	me := func(header string) *apitest.Response {
		t.Helper()
		if header == "" {
			return anon.Do("GET", "/agents/me", nil)
		}
		return anon.Do("GET", "/agents/me", nil, "Authorization", header)
	}
	r = me("Bearer " + red.AccessToken)
	if r.Status != 200 {
		t.Fatalf("/agents/me: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &got)
	if got.ID != a.ID || !got.IsConnected || got.Usage.DailySpend != 0 || got.Usage.DailyResetDate == "" || got.Usage.MonthlyResetMonth == "" {
		t.Fatalf("/agents/me %+v", got)
	}
	if r := me("bearer " + red.AccessToken); r.Status != 200 {
		t.Fatalf("the scheme in lower case: %d", r.Status)
	}
	forged := red.AccessToken[:len(red.AccessToken)-4] + "AAAA"
	if forged == red.AccessToken {
		forged = red.AccessToken[:len(red.AccessToken)-4] + "BBBB"
	}
	otherAgentsID := strings.ReplaceAll(strings.TrimPrefix(b.Agent.ID, "Agent:"), "-", "")
	for _, bad := range []string{"", "Bearer", "Bearer ", "Bearer nonsense", "Bearer " + forged,
		"Bearer pcagent_" + otherAgentsID + red.AccessToken[len("pcagent_")+32:], "Token " + red.AccessToken} {
		r := me(bad)
		expectError(t, r, 401, "UNAUTHORIZED")
		if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%q: WWW-Authenticate %q", bad, r.Header.Get("WWW-Authenticate"))
		}
	}
	expectError(t, c.Do("GET", "/agents/me", nil), 401, "UNAUTHORIZED") // platform credentials are not an agent's
	expectError(t, anon.Do("GET", "/agents", nil, "Authorization", "Bearer "+red.AccessToken), 401, "UNAUTHORIZED")

	// A policy change shows at once; pausing refuses the agent with 403 until resumed.
	c.Do("PATCH", "/agents/"+a.ID+"/policy", map[string]any{"defaultExecutionMode": "APPROVAL_REQUIRED"})
	me("Bearer "+red.AccessToken).Decode(t, &got)
	if policyOf(t, got)["defaultExecutionMode"] != "APPROVAL_REQUIRED" {
		t.Fatalf("policy not effective at once: %s", got.Policy)
	}
	c.Do("PATCH", "/agents/"+a.ID, map[string]any{"isPaused": true})
	m := expectError(t, me("Bearer "+red.AccessToken), 403, "FORBIDDEN")
	if !strings.Contains(m["message"].(string), "paused") {
		t.Fatalf("the 403 does not say the agent is paused: %v", m["message"])
	}
	expectError(t, me("Bearer "+forged), 401, "UNAUTHORIZED") // a paused agent's wrong token is still a 401
	c.Do("PATCH", "/agents/"+a.ID, map[string]any{"isPaused": false})
	if r := me("Bearer " + red.AccessToken); r.Status != 200 {
		t.Fatalf("resumed: %d %s", r.Status, r.Body)
	}

	// Deleting the customer stops the agent (403); deleting the agent revokes its token (401).
	cust2 := newCustomer(t, c, "US", "USD")
	d := createAgent(t, c, cust2.ID, map[string]any{"permissions": []string{}, "defaultExecutionMode": "AUTO",
		"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 0}})
	var red2 redeemed
	anon.Do("POST", "/agents/device-codes/"+d.DeviceCode.Code+"/redeem", nil).Decode(t, &red2)
	if r := me("Bearer " + red2.AccessToken); r.Status != 200 {
		t.Fatalf("second agent: %d %s", r.Status, r.Body)
	}
	c.Do("DELETE", "/customers/"+cust2.ID, nil)
	m = expectError(t, me("Bearer "+red2.AccessToken), 403, "FORBIDDEN")
	if !strings.Contains(m["message"].(string), "deleted") {
		t.Fatalf("the 403 does not say the customer was deleted: %v", m["message"])
	}
	if r := c.Do("DELETE", "/agents/"+a.ID, nil); r.Status != 204 {
		t.Fatalf("delete: %d", r.Status)
	}
	expectError(t, me("Bearer "+red.AccessToken), 401, "UNAUTHORIZED")
}

// Redeem attempts are limited per source address and per code (its first group), in
// Postgres, across API instances; X-Forwarded-For counts only from trusted proxies, and
// without them no address is limited (the peer may be an ingress every client shares).
func TestAgentRedeemRateLimits(t *testing.T) {
	t.Parallel()
	trusted := func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	}
	e := newEnv(t, trusted)
	c, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	anon := anonymous(c)
	sibling := anonymous(e.sibling(c))
	from := func(addr string) []string { return []string{"X-Forwarded-For", addr} }
	// Each a code of its own first group.
	unknown := func(i int) string { return fmt.Sprintf("AGENT-%04d-0000-0000", i) }

	// Guessing from one address: 10 attempts (on two API instances), then 429 for any code,
	// a live one included.
	live := createAgent(t, c, cust.ID, map[string]any{"permissions": []string{}, "defaultExecutionMode": "AUTO",
		"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 0}})
	for i := range 10 {
		client := anon
		if i%2 == 1 {
			client = sibling
		}
		expectError(t, client.Do("POST", "/agents/device-codes/"+unknown(i)+"/redeem", nil, from("198.51.100.7")...), 404, "DEVICE_CODE_NOT_FOUND")
	}
	r := anon.Do("POST", "/agents/device-codes/"+live.DeviceCode.Code+"/redeem", nil, from("198.51.100.7")...)
	expectError(t, r, 429, "RATE_LIMITED")
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 900 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	expectError(t, sibling.Do("POST", "/agents/device-codes/not-even-a-code/redeem", nil, from("198.51.100.7")...), 429, "RATE_LIMITED")
	// Another address of the same IPv6 /64 shares the limit; another /64 does not.
	for i := range 10 {
		expectError(t, anon.Do("POST", "/agents/device-codes/"+unknown(100+i)+"/redeem", nil, from(fmt.Sprintf("2001:db8:1:2::%x", i+1))...), 404, "DEVICE_CODE_NOT_FOUND")
	}
	expectError(t, anon.Do("POST", "/agents/device-codes/"+unknown(200)+"/redeem", nil, from("2001:db8:1:2:ffff::1")...), 429, "RATE_LIMITED")
	// The live code still works from elsewhere.
	if r := anon.Do("POST", "/agents/device-codes/"+live.DeviceCode.Code+"/redeem", nil, from("2001:db8:1:3::1")...); r.Status != 200 {
		t.Fatalf("the live code from another address: %d %s", r.Status, r.Body)
	}

	// One code tried from many addresses: 5 attempts, then 429, for an unknown code and for
	// a known one alike.
	for i := range 5 {
		expectError(t, anon.Do("POST", "/agents/device-codes/"+unknown(999)+"/redeem", nil, from(fmt.Sprintf("203.0.113.%d", i+1))...), 404, "DEVICE_CODE_NOT_FOUND")
	}
	expectError(t, sibling.Do("POST", "/agents/device-codes/"+strings.ToLower(unknown(999))+"/redeem", nil, from("203.0.113.99")...), 429, "RATE_LIMITED")
	known := createAgent(t, c, cust.ID, map[string]any{"permissions": []string{}, "defaultExecutionMode": "AUTO",
		"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 0}})
	if r := anon.Do("POST", "/agents/device-codes/"+known.DeviceCode.Code+"/redeem", nil, from("192.0.2.1")...); r.Status != 200 {
		t.Fatalf("redeem: %d %s", r.Status, r.Body)
	}
	for i := range 4 {
		expectError(t, anon.Do("POST", "/agents/device-codes/"+known.DeviceCode.Code+"/redeem", nil, from(fmt.Sprintf("192.0.2.%d", i+2))...), 400, "DEVICE_CODE_ALREADY_REDEEMED")
	}
	expectError(t, anon.Do("POST", "/agents/device-codes/"+known.DeviceCode.Code+"/redeem", nil, from("192.0.2.50")...), 429, "RATE_LIMITED")

	// Without trusted proxies the header is not believed, and the peer address (perhaps an
	// ingress) is not limited: only the codes are.
	e2 := newEnv(t)
	c2, _ := e2.platform(true)
	anon2 := anonymous(c2)
	for i := range 20 {
		expectError(t, anon2.Do("POST", "/agents/device-codes/"+unknown(i)+"/redeem", nil, from(fmt.Sprintf("198.51.100.%d", i+1))...), 404, "DEVICE_CODE_NOT_FOUND")
	}
	if n := sqlCount(t, e2, "SELECT count(*) FROM rate_limits WHERE key LIKE 'agent-redeem/address/%'"); n != 0 {
		t.Fatalf("%d address counters, want none", n)
	}
	if n := sqlCount(t, e2, "SELECT count(*) FROM rate_limits WHERE key LIKE '%0000%'"); n != 0 {
		t.Fatal("a code is kept in clear in the limits table")
	}
}
