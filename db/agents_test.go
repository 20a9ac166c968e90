package db_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/internal/agent"
	"paycore/internal/agentpolicy"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/kit/strictjson"
	"paycore/internal/problem"
)

func agentPolicy(t *testing.T, body string) agentpolicy.Policy {
	t.Helper()
	var u agentpolicy.Update
	if err := strictjson.Decode([]byte(body), &u); err != nil {
		t.Fatal(err)
	}
	p, err := agentpolicy.New("policy", u)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const basicAgentPolicy = `{"permissions": ["VIEW_TRANSACTIONS"], "defaultExecutionMode": "AUTO",
	"spendingLimits": {"currency": "USD", "perTransactionLimit": 1000, "dailyLimit": 5000}}`

// agentWorld is a platform with a customer (and its USD account), another platform, and a
// way to create agents with a fresh device code.
type agentWorld struct {
	t        *testing.T
	pool     *pgxpool.Pool
	q        *db.Queries
	platform uuid.UUID
	other    uuid.UUID
	customer db.Customer
	account  uuid.UUID
}

func newAgentWorld(t *testing.T) *agentWorld {
	t.Helper()
	pool, _ := dbtest.NewPool(t)
	box := newBox(t)
	p, s := provision(t, pool, box)
	other, _ := provision(t, pool, box)
	c, err := db.CustomerOpen(context.Background(), pool, box, p.ID, newCustomer(t, s, "agent-owner", "$owner@"+s.UmaDomain))
	if err != nil {
		t.Fatal(err)
	}
	accts, err := db.New(pool).InternalAccountsOfCustomer(context.Background(), uuid.NullUUID{UUID: c.ID, Valid: true})
	if err != nil || len(accts) == 0 {
		t.Fatalf("accounts of the customer: %v, %v", accts, err)
	}
	return &agentWorld{t: t, pool: pool, q: db.New(pool), platform: p.ID, other: other.ID, customer: c, account: accts[0].InternalAccount.ID}
}

// create creates an agent of the customer and returns it with its device code.
func (w *agentWorld) create(policy agentpolicy.Policy, lifetime time.Duration) (db.Agent, string) {
	w.t.Helper()
	code := agent.NewDeviceCode()
	a, err := db.AgentCreate(context.Background(), w.pool, db.NewAgent{ID: ids.New(), PlatformID: w.platform, CustomerID: w.customer.ID,
		Name: "bot", Policy: policy, CodeHash: agent.CodeHash(code), CodeExpiresAt: time.Now().Add(lifetime)})
	if err != nil {
		w.t.Fatal(err)
	}
	return a, code
}

func fieldRefused(t *testing.T, err error, field string) {
	t.Helper()
	var fe *problem.FieldError
	if !errors.As(err, &fe) || fe.Field != field {
		t.Fatalf("err = %v, want a field error on %s", err, field)
	}
}

// An agent is created only for a live customer of the platform, with a policy naming only
// that customer's accounts; a refused one writes nothing.
func TestAgentCreate(t *testing.T) {
	w := newAgentWorld(t)
	ctx := context.Background()
	p := agentPolicy(t, basicAgentPolicy)
	n := db.NewAgent{ID: ids.New(), PlatformID: w.platform, CustomerID: ids.New(), Name: "bot", Policy: p,
		CodeHash: agent.CodeHash(agent.NewDeviceCode()), CodeExpiresAt: time.Now().Add(time.Minute)}
	_, err := db.AgentCreate(ctx, w.pool, n)
	refusedWith(t, err, catalog.UserNotFound)
	n.CustomerID, n.PlatformID = w.customer.ID, w.other
	_, err = db.AgentCreate(ctx, w.pool, n)
	refusedWith(t, err, catalog.UserNotFound) // another platform's customer

	n.PlatformID = w.platform
	foreign := ids.Format(ids.InternalAccount, ids.New())
	n.Policy = agentPolicy(t, `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
		"accountRestrictions": {"allowedAccountIds": ["`+ids.Format(ids.InternalAccount, w.account)+`", "`+foreign+`"]}}`)
	_, err = db.AgentCreate(ctx, w.pool, n)
	fieldRefused(t, err, "policy.accountRestrictions.allowedAccountIds[1]")
	n.Policy = agentPolicy(t, `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
		"accountRestrictions": {"accountRules": [{"accountId": "`+foreign+`"}]}}`)
	_, err = db.AgentCreate(ctx, w.pool, n)
	fieldRefused(t, err, "policy.accountRestrictions.accountRules[0].accountId")
	if c := count(t, w.pool, "SELECT (SELECT count(*) FROM agents) + (SELECT count(*) FROM agent_device_codes)"); c != 0 {
		t.Fatalf("refused agents wrote %d rows", c)
	}

	n.Policy = agentPolicy(t, `{"permissions": [], "defaultExecutionMode": "AUTO", "spendingLimits": {"currency": "USD", "perTransactionLimit": 1},
		"accountRestrictions": {"allowedAccountIds": ["`+ids.Format(ids.InternalAccount, w.account)+`"]}}`)
	a, err := db.AgentCreate(ctx, w.pool, n)
	if err != nil {
		t.Fatal(err)
	}
	if a.CustomerID != w.customer.ID || a.IsPaused || a.ConnectedAt != nil || a.TokenHash != nil || a.Name != "bot" {
		t.Fatalf("created %+v", a)
	}
	stored, err := agentpolicy.Decode(a.Policy)
	if err != nil || stored.AccountRestrictions.AllowedAccountIDs[0] != ids.Format(ids.InternalAccount, w.account) {
		t.Fatalf("stored policy %s: %v", a.Policy, err)
	}
	if _, err := db.AgentGetLive(ctx, w.pool, w.other, a.ID); problem.CodeOf(err) != catalog.AgentNotFound {
		t.Fatalf("another platform reads the agent: %v", err)
	}

	if _, err := db.CustomerDelete(ctx, w.pool, w.platform, w.customer.ID); err != nil {
		t.Fatal(err)
	}
	n.ID = ids.New()
	n.CodeHash = agent.CodeHash(agent.NewDeviceCode())
	_, err = db.AgentCreate(ctx, w.pool, n)
	refusedWith(t, err, catalog.CustomerDeleted)
}

// Policy updates merge into the stored policy under the agent's lock: concurrent updates of
// different members all survive.
func TestAgentPolicyUpdateMerges(t *testing.T) {
	w := newAgentWorld(t)
	ctx := context.Background()
	a, _ := w.create(agentPolicy(t, basicAgentPolicy), time.Minute)
	updates := []string{
		`{"permissions": ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS"]}`,
		`{"defaultExecutionMode": "APPROVAL_REQUIRED"}`,
		`{"spendingLimits": {"dailyLimit": null}}`,
		`{"spendingLimits": {"monthlyLimit": 90000}}`,
		`{"approvalThresholds": {"currency": "USD", "amount": 700}}`,
		`{"accountRestrictions": {"accountRules": [{"accountId": "` + ids.Format(ids.InternalAccount, w.account) + `", "perTransactionLimit": 50}]}}`,
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(updates))
	for _, body := range updates {
		var u agentpolicy.Update
		if err := strictjson.Decode([]byte(body), &u); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := db.AgentPolicyUpdate(ctx, w.pool, w.platform, a.ID, u, true)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.AgentGetLive(ctx, w.pool, w.platform, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	p, err := agentpolicy.Decode(got.Policy)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Permissions) != 2 || p.DefaultExecutionMode != agentpolicy.ApprovalRequired || p.SpendingLimits.DailyLimit != nil ||
		p.SpendingLimits.MonthlyLimit == nil || *p.SpendingLimits.MonthlyLimit != 90000 || p.SpendingLimits.PerTransactionLimit != 1000 ||
		*p.ApprovalThresholds.Amount != 700 || len(p.AccountRestrictions.AccountRules) != 1 {
		t.Fatalf("an update was lost: %s", got.Policy)
	}

	var u agentpolicy.Update
	_ = strictjson.Decode([]byte(`{"accountRestrictions": {"allowedAccountIds": ["`+ids.Format(ids.InternalAccount, ids.New())+`"]}}`), &u)
	_, err = db.AgentPolicyUpdate(ctx, w.pool, w.platform, a.ID, u, true)
	fieldRefused(t, err, "accountRestrictions.accountRules[0].accountId") // the rule's account left out
	_, err = db.AgentPolicyUpdate(ctx, w.pool, w.other, a.ID, agentpolicy.Update{}, true)
	refusedWith(t, err, catalog.AgentNotFound)
	if after, _ := db.AgentGetLive(ctx, w.pool, w.platform, a.ID); string(after.Policy) != string(got.Policy) {
		t.Fatal("a refused update changed the policy")
	}
}

// A device code is redeemed once, before it expires and before a newer code replaces it;
// redeeming connects the agent. A connected agent gets no new code; a deleted agent's codes
// are not found.
func TestAgentDeviceCodes(t *testing.T) {
	w := newAgentWorld(t)
	ctx := context.Background()
	now := time.Now()
	a, first := w.create(agentPolicy(t, basicAgentPolicy), time.Minute)

	second := agent.NewDeviceCode()
	if err := db.AgentDeviceCodeIssue(ctx, w.pool, w.other, a.ID, agent.CodeHash(second), now.Add(time.Minute), now, true); problem.CodeOf(err) != catalog.AgentNotFound {
		t.Fatalf("another platform issued a code: %v", err)
	}
	if err := db.AgentDeviceCodeIssue(ctx, w.pool, w.platform, a.ID, agent.CodeHash(second), now.Add(time.Minute), now, true); err != nil {
		t.Fatal(err)
	}
	_, tokenDigest := agent.NewAccessToken(a.ID)
	mint := func(id uuid.UUID) []byte {
		if id != a.ID {
			t.Errorf("a token minted for %s, not the code's agent", id)
		}
		return tokenDigest
	}
	_, err := db.AgentRedeem(ctx, w.pool, agent.CodeHash(first), now, mint)
	refusedWith(t, err, catalog.DeviceCodeExpired) // replaced
	_, err = db.AgentRedeem(ctx, w.pool, agent.CodeHash(agent.NewDeviceCode()), now, mint)
	refusedWith(t, err, catalog.DeviceCodeNotFound)
	_, err = db.AgentRedeem(ctx, w.pool, agent.CodeHash(second), now.Add(time.Minute), mint)
	refusedWith(t, err, catalog.DeviceCodeExpired)

	// Ten concurrent redeems of the live code: exactly one connects the agent.
	var wg sync.WaitGroup
	results := make(chan error, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := db.AgentRedeem(ctx, w.pool, agent.CodeHash(second), now, mint)
			results <- err
		}()
	}
	wg.Wait()
	close(results)
	ok := 0
	for err := range results {
		if err == nil {
			ok++
		} else if problem.CodeOf(err) != catalog.DeviceCodeRedeemed {
			t.Fatalf("a concurrent redeem: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d redeems succeeded, want 1", ok)
	}
	got, _ := db.AgentGetLive(ctx, w.pool, w.platform, a.ID)
	if got.ConnectedAt == nil || string(got.TokenHash) != string(tokenDigest) {
		t.Fatalf("redeemed agent %+v", got)
	}
	st, err := w.q.AgentDeviceCodeStatus(ctx, db.AgentDeviceCodeStatusParams{CodeHash: agent.CodeHash(second), PlatformID: w.platform})
	if err != nil || st.RedeemedAt == nil || st.AgentID != a.ID {
		t.Fatalf("status %+v, %v", st, err)
	}
	if _, err := w.q.AgentDeviceCodeStatus(ctx, db.AgentDeviceCodeStatusParams{CodeHash: agent.CodeHash(first), PlatformID: w.platform}); !db.IsNotFound(err) {
		t.Fatalf("a replaced code's status: %v", err)
	}
	if _, err := w.q.AgentDeviceCodeStatus(ctx, db.AgentDeviceCodeStatusParams{CodeHash: agent.CodeHash(second), PlatformID: w.other}); !db.IsNotFound(err) {
		t.Fatalf("another platform reads the code's status: %v", err)
	}
	err = db.AgentDeviceCodeIssue(ctx, w.pool, w.platform, a.ID, agent.CodeHash(agent.NewDeviceCode()), now.Add(time.Minute), now, true)
	refusedWith(t, err, catalog.AgentConnected)

	// The bearer read finds the connected agent until it is deleted.
	if row, err := w.q.AgentAuthenticate(ctx, a.ID); err != nil || row.CustomerDeleted || string(row.TokenHash) != string(tokenDigest) {
		t.Fatalf("authenticate %+v, %v", row, err)
	}
	b, code := w.create(agentPolicy(t, basicAgentPolicy), time.Minute)
	if _, err := w.q.AgentAuthenticate(ctx, b.ID); !db.IsNotFound(err) {
		t.Fatalf("an agent that is not connected authenticated: %v", err)
	}
	if err := db.AgentDelete(ctx, w.pool, w.other, b.ID, time.Now()); problem.CodeOf(err) != catalog.AgentNotFound {
		t.Fatalf("another platform deleted the agent: %v", err)
	}
	for _, id := range []uuid.UUID{a.ID, b.ID} {
		if err := db.AgentDelete(ctx, w.pool, w.platform, id, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.q.AgentAuthenticate(ctx, a.ID); !db.IsNotFound(err) {
		t.Fatalf("a deleted agent authenticated: %v", err)
	}
	_, err = db.AgentRedeem(ctx, w.pool, agent.CodeHash(code), now, mint)
	refusedWith(t, err, catalog.DeviceCodeNotFound)
	refusedWith(t, db.AgentDelete(ctx, w.pool, w.platform, a.ID, time.Now()), catalog.AgentNotFound)
	if _, err := db.AgentUpdate(ctx, w.pool, w.platform, a.ID, db.AgentChange{}); problem.CodeOf(err) != catalog.AgentNotFound {
		t.Fatalf("a deleted agent updated: %v", err)
	}
}

// Rate-limit windows count every attempt atomically on the database's clock, and start
// again once they ended.
func TestRateLimitHit(t *testing.T) {
	w := newAgentWorld(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	seen := make(chan int, 40)
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.RateLimitHit(ctx, w.pool, "k", time.Minute)
			if err != nil {
				t.Error(err)
				return
			}
			seen <- c.Attempts
		}()
	}
	wg.Wait()
	close(seen)
	got := map[int]bool{}
	for n := range seen {
		got[n] = true
	}
	if len(got) != 40 || !got[1] || !got[40] {
		t.Fatalf("concurrent attempts counted %v, want 1..40 once each", got)
	}
	c, err := db.RateLimitHit(ctx, w.pool, "k", time.Minute)
	if err != nil || c.Attempts != 41 || time.Until(c.WindowEnds) > time.Minute || time.Until(c.WindowEnds) < 50*time.Second {
		t.Fatalf("within the window %+v, %v", c, err)
	}
	// The window ended (as the database's clock sees it): counting starts again.
	if _, err := w.pool.Exec(ctx, "UPDATE rate_limits SET window_ends = now() - interval '1 millisecond' WHERE key = 'k'"); err != nil {
		t.Fatal(err)
	}
	c, err = db.RateLimitHit(ctx, w.pool, "k", time.Minute)
	if err != nil || c.Attempts != 1 || time.Until(c.WindowEnds) < 50*time.Second {
		t.Fatalf("a new window %+v, %v", c, err)
	}
	if c, _ := db.RateLimitHit(ctx, w.pool, "other", time.Minute); c.Attempts != 1 {
		t.Fatalf("keys share counts: %+v", c)
	}
	if _, err := w.pool.Exec(ctx, "UPDATE rate_limits SET window_ends = now() - interval '1 second' WHERE key = 'other'"); err != nil {
		t.Fatal(err)
	}
	if n, err := w.q.RateLimitsDeleteEnded(ctx); err != nil || n != 1 {
		t.Fatalf("deleted %d ended windows: %v", n, err)
	}
}

// The list of agents: the platform's live agents, newest first, with its filters.
func TestAgentPage(t *testing.T) {
	w := newAgentWorld(t)
	ctx := context.Background()
	p := agentPolicy(t, basicAgentPolicy)
	a, _ := w.create(p, time.Minute)
	b, codeB := w.create(p, time.Minute)
	c, _ := w.create(p, time.Minute)
	if _, err := db.AgentUpdate(ctx, w.pool, w.platform, a.ID, db.AgentChange{IsPaused: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AgentRedeem(ctx, w.pool, agent.CodeHash(codeB), time.Now(), func(uuid.UUID) []byte { return []byte("digest") }); err != nil {
		t.Fatal(err)
	}
	if err := db.AgentDelete(ctx, w.pool, w.platform, c.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	list := func(f db.AgentFilter) []uuid.UUID {
		t.Helper()
		f.PlatformID = w.platform
		res, err := db.AgentPage(ctx, w.pool, f, db.Page[db.IDPos]{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if int(res.Total) != len(res.Rows) {
			t.Fatalf("total %d for %d rows", res.Total, len(res.Rows))
		}
		var out []uuid.UUID
		for _, r := range res.Rows {
			out = append(out, r.ID)
		}
		return out
	}
	eq := func(got []uuid.UUID, want ...uuid.UUID) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("listed %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("listed %v, want %v", got, want)
			}
		}
	}
	eq(list(db.AgentFilter{}), b.ID, a.ID)
	eq(list(db.AgentFilter{IsPaused: ptr(true)}), a.ID)
	eq(list(db.AgentFilter{IsConnected: ptr(true)}), b.ID)
	eq(list(db.AgentFilter{IsConnected: ptr(false)}), a.ID)
	eq(list(db.AgentFilter{CustomerID: uuid.NullUUID{UUID: w.customer.ID, Valid: true}}), b.ID, a.ID)
	eq(list(db.AgentFilter{CustomerID: uuid.NullUUID{UUID: ids.New(), Valid: true}}))
	future := time.Now().Add(time.Hour)
	eq(list(db.AgentFilter{CreatedAfter: &future}))
	eq(list(db.AgentFilter{UpdatedBefore: &future}), b.ID, a.ID)
	res, err := db.AgentPage(ctx, w.pool, db.AgentFilter{PlatformID: w.other}, db.Page[db.IDPos]{Limit: 10})
	if err != nil || len(res.Rows) != 0 {
		t.Fatalf("another platform lists %d agents: %v", len(res.Rows), err)
	}
}

func ptr[T any](v T) *T { return &v }

// Review fixes: issuing a code and redeeming one run side by side without a deadlock; an
// account the policy already names that was closed since does not block an update; a
// deleted customer's agent can neither redeem nor get a new code.
func TestAgentCodesAndPolicyEdges(t *testing.T) {
	w := newAgentWorld(t)
	ctx := context.Background()
	now := time.Now()
	for range 10 {
		a, code := w.create(agentPolicy(t, basicAgentPolicy), time.Minute)
		var wg sync.WaitGroup
		var issueErr, redeemErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			issueErr = db.AgentDeviceCodeIssue(ctx, w.pool, w.platform, a.ID, agent.CodeHash(agent.NewDeviceCode()), now.Add(time.Minute), now, true)
		}()
		go func() {
			defer wg.Done()
			_, redeemErr = db.AgentRedeem(ctx, w.pool, agent.CodeHash(code), now, func(uuid.UUID) []byte { return []byte("digest") })
		}()
		wg.Wait()
		// One of two orders: the redeem first (the issue then refuses a connected agent), or
		// the issue first (the redeem then refuses a replaced code). Never both through,
		// never a database error.
		for _, err := range []error{issueErr, redeemErr} {
			if err != nil && problem.CodeOf(err) == "" {
				t.Fatalf("issue %v, redeem %v", issueErr, redeemErr)
			}
		}
		if (issueErr == nil) == (redeemErr == nil) {
			t.Fatalf("issue %v, redeem %v: exactly one must pass", issueErr, redeemErr)
		}
	}

	acct := ids.Format(ids.InternalAccount, w.account)
	a, code := w.create(agentPolicy(t, `{"permissions": ["VIEW_TRANSACTIONS"], "defaultExecutionMode": "AUTO",
		"spendingLimits": {"currency": "USD", "perTransactionLimit": 1000}, "accountRestrictions": {"allowedAccountIds": ["`+acct+`"]}}`), time.Minute)
	if _, err := w.pool.Exec(ctx, "UPDATE internal_accounts SET status = 'CLOSED' WHERE id = $1", w.account); err != nil {
		t.Fatal(err)
	}
	var u agentpolicy.Update
	_ = strictjson.Decode([]byte(`{"permissions": []}`), &u)
	if _, err := db.AgentPolicyUpdate(ctx, w.pool, w.platform, a.ID, u, true); err != nil {
		t.Fatalf("an update that restricts the agent, its account closed since: %v", err)
	}
	_ = strictjson.Decode([]byte(`{"accountRestrictions": {"allowedAccountIds": ["`+acct+`", "`+ids.Format(ids.InternalAccount, ids.New())+`"]}}`), &u)
	_, err := db.AgentPolicyUpdate(ctx, w.pool, w.platform, a.ID, u, true)
	fieldRefused(t, err, "accountRestrictions.allowedAccountIds[1]") // a new account is still checked

	if _, err := w.pool.Exec(ctx, "UPDATE customers SET is_deleted = true WHERE id = $1", w.customer.ID); err != nil {
		t.Fatal(err)
	}
	_, err = db.AgentRedeem(ctx, w.pool, agent.CodeHash(code), now, func(uuid.UUID) []byte { return []byte("digest") })
	refusedWith(t, err, catalog.CustomerDeleted)
	err = db.AgentDeviceCodeIssue(ctx, w.pool, w.platform, a.ID, agent.CodeHash(agent.NewDeviceCode()), now.Add(time.Minute), now, true)
	refusedWith(t, err, catalog.CustomerDeleted)
}
