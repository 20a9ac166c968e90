package api_test

import (
	"context"
	"testing"
	"time"

	"paycore/db/view"
	"paycore/internal/agentpolicy"
	"paycore/internal/ids"
)

// An agent is shown with the usage its reservations recorded, in the current UTC windows,
// on GET /agents/{agentId}, GET /agents and GET /agents/me; one without reservations
// shows zeros.
func TestAgentUsageShown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	c, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	acct := accountsByCurrency(t, c, cust.ID)["USD"].ID
	a := createAgent(t, c, cust.ID, agentPolicyBody(acct))
	idle := createAgent(t, c, cust.ID, agentPolicyBody(acct))
	var red redeemed
	if r := anonymous(c).Do("POST", "/agents/device-codes/"+a.DeviceCode.Code+"/redeem", nil); r.Status != 200 {
		t.Fatalf("redeem: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &red)
	}
	agentID, err := ids.Parse(ids.Agent, a.Agent.ID)
	if err != nil {
		t.Fatal(err)
	}
	idleID, err := ids.Parse(ids.Agent, idle.Agent.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Today's two transactions are shown; the idle agent's spending of last month is not.
	now, lastMonth := time.Now(), time.Now().AddDate(0, -1, -1)
	for _, u := range []struct {
		id       any
		at       time.Time
		count    int64
		spent    int64
		currency string
	}{{agentID, now, 2, 1500, "USD"}, {idleID, lastMonth, 3, 9000, "USD"}} {
		if _, err := e.pool.Exec(ctx, `INSERT INTO agent_usage (agent_id, currency, currency_since, day, daily_spend, daily_count, month, monthly_spend)
			VALUES ($1, $2, '0001-01-01 00:00:00+00', $3, $4, $5, $6, $4)`, u.id, u.currency, agentpolicy.Day(u.at), u.spent, u.count, agentpolicy.Month(u.at)); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, got view.Agent, count, spend int64) {
		t.Helper()
		day, month := agentpolicy.Day(time.Now()), agentpolicy.Month(time.Now())
		if u := got.Usage; u.DailyTransactionCount != count || u.DailySpend != spend || u.MonthlySpend != spend ||
			u.DailyResetDate != day || u.MonthlyResetMonth != month {
			t.Fatalf("%s: usage %+v, want %d transactions and %d spent on %s", what, got.Usage, count, spend, day)
		}
	}
	var got view.Agent
	c.Do("GET", "/agents/"+a.Agent.ID, nil).Decode(t, &got)
	check("GET /agents/{agentId}", got, 2, 1500)
	var me view.Agent
	if r := anonymous(c).Do("GET", "/agents/me", nil, "Authorization", "Bearer "+red.AccessToken); r.Status != 200 {
		t.Fatalf("/agents/me: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &me)
	}
	check("GET /agents/me", me, 2, 1500)
	var list struct {
		Data []view.Agent `json:"data"`
	}
	c.Do("GET", "/agents?customerId="+cust.ID, nil).Decode(t, &list)
	if len(list.Data) != 2 {
		t.Fatalf("list %+v", list)
	}
	for _, g := range list.Data {
		switch g.ID {
		case a.Agent.ID:
			check("GET /agents", g, 2, 1500)
		case idle.Agent.ID:
			check("GET /agents (idle)", g, 0, 0)
		}
	}
	var patched view.Agent
	c.Do("PATCH", "/agents/"+a.Agent.ID, map[string]any{"name": "Renamed"}).Decode(t, &patched)
	check("PATCH /agents/{agentId}", patched, 2, 1500)
}
