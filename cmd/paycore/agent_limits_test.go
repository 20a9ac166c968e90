package main

import (
	"context"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/agentpolicy"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
	"paycore/internal/money"
)

// refusal checks that r is the refusal status/code and returns its details (nil when it
// has none).
func refusal(t *testing.T, what string, r *apitest.Response, status int, code string) map[string]any {
	t.Helper()
	if r.Status != status || r.Code(t) != code {
		t.Fatalf("%s: %d %s, want %d %s", what, r.Status, r.Body, status, code)
	}
	d, _ := r.JSON(t)["details"].(map[string]any)
	return d
}

// usageRow is the agent_usage row of an agent as stored.
type usageRow struct {
	Currency     string
	Day          string
	DailySpend   int64
	DailyCount   int64
	Month        string
	MonthlySpend int64
}

// storedUsage reads the agent's agent_usage row.
func storedUsage(t *testing.T, s *stack, agentID string) usageRow {
	t.Helper()
	id, err := ids.Parse(ids.Agent, agentID)
	if err != nil {
		t.Fatal(err)
	}
	var u usageRow
	if err := s.app.pool.QueryRow(context.Background(), "SELECT currency, day, daily_spend, daily_count, month, monthly_spend FROM agent_usage WHERE agent_id = $1", id).
		Scan(&u.Currency, &u.Day, &u.DailySpend, &u.DailyCount, &u.Month, &u.MonthlySpend); err != nil {
		t.Fatalf("read agent usage: %v", err)
	}
	return u
}

// reservation is an action's reserved amount as stored.
type reservation struct {
	Amount   int64
	Currency string
	At       time.Time
	Released bool
}

func storedReservation(t *testing.T, s *stack, actionID string) reservation {
	t.Helper()
	id, err := ids.Parse(ids.AgentAction, actionID)
	if err != nil {
		t.Fatal(err)
	}
	var r reservation
	if err := s.app.pool.QueryRow(context.Background(), "SELECT reserved_amount, reserved_currency, reserved_at, released_at IS NOT NULL FROM agent_actions WHERE id = $1", id).
		Scan(&r.Amount, &r.Currency, &r.At, &r.Released); err != nil {
		t.Fatalf("read action reservation: %v", err)
	}
	return r
}

// getAction is the agent's GET /agents/me/actions/{id}.
func (w *agentWorld) getAction(id string) view.AgentAction {
	w.t.Helper()
	return w.action(w.as("GET", "/agents/me/actions/"+id, nil), 200)
}

// decide is the platform's approve or reject of one of w's agent's actions.
func (w *agentWorld) decide(verb, actionID string) *apitest.Response {
	return w.c.Do("POST", "/agents/"+w.agentID+"/actions/"+actionID+"/"+verb, nil)
}

// transferOutFrom is the agent's transfer-out of amount from account to ext.
func (w *agentWorld) transferOutFrom(account, ext string, amount int64) *apitest.Response {
	return w.as("POST", "/agents/me/transfer-out", map[string]any{"source": map[string]any{"accountId": account},
		"destination": map[string]any{"accountId": ext}, "amount": amount})
}

// customerWith creates another customer of w's platform in region with currencies and returns it as
// a world (same platform and client), with account its internal account in the first
// currency, and every internal account by currency.
func customerWith(t *testing.T, w *world, region string, currencies ...string) (*world, map[string]string) {
	t.Helper()
	r := w.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": region, "fullName": "Grace Hopper", "currencies": currencies})
	if r.Status != 201 {
		t.Fatalf("create customer: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	r.Decode(t, &cust)
	var accts api.List[view.InternalAccount]
	w.c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	byCur := map[string]string{}
	for _, a := range accts.Data {
		byCur[string(a.Balance.Currency.Code)] = a.ID
	}
	if len(byCur) != len(currencies) {
		t.Fatalf("internal accounts %+v for %v", accts.Data, currencies)
	}
	return &world{t: t, s: w.s, c: w.c, platform: w.platform, customer: cust.ID, account: byCur[currencies[0]]}, byCur
}

// goroutineTB is a testing.TB whose Fatal and Fatalf may be called from a goroutine other
// than the test's: they report the failure (Errorf) and end only that goroutine.
type goroutineTB struct{ testing.TB }

func (g goroutineTB) Fatalf(format string, args ...any) {
	g.TB.Helper()
	g.TB.Errorf(format, args...)
	runtime.Goexit()
}

func (g goroutineTB) Fatal(args ...any) {
	g.TB.Helper()
	g.TB.Error(args...)
	runtime.Goexit()
}

// forGoroutines is w with a client safe to use from many goroutines at once: failures are
// reported without stopping the test from another goroutine, and a request may wait up to
// five minutes for its answer (a hundred workflows on a loaded machine).
func (w *agentWorld) forGoroutines() *agentWorld {
	c := *w.c
	c.T, c.HTTP = goroutineTB{w.t}, &http.Client{Timeout: 5 * time.Minute}
	base := *w.world
	base.t, base.c = goroutineTB{w.t}, &c
	cp := *w
	cp.world = &base
	return &cp
}

// concurrently runs n calls of f at once and returns their responses.
func concurrently(n int, f func(i int) *apitest.Response) []*apitest.Response {
	res := make([]*apitest.Response, n)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			res[i] = f(i)
		}()
	}
	close(gate)
	wg.Wait()
	return res
}

// A hundred simultaneous transfers of one agent never pass its daily amount nor its daily
// transaction count together: exactly as many as fit are APPROVED, the others refused with
// the limit named, the usage counts exactly the approved ones and the balance moves by
// exactly their sum.
func TestAgentLimitsConcurrentTransfers(t *testing.T) {
	t.Parallel()
	// What is checked is which requests pass, not how fast: under the race detector beside
	// the other tests on two cores, 100 requests at once can take longer than the server's
	// default 60 s to write an answer, so this stack gives them five minutes.
	s := newStack(t, fast, func(c *config.Config) { c.HTTPWriteTimeout = 5 * time.Minute })
	const n = 100
	cases := []struct {
		name          string
		limits        map[string]any
		amount        int64
		approved      int
		limit         string
		wantDailySpnd int64
	}{
		{"dailyLimit", map[string]any{"currency": "USD", "perTransactionLimit": 5_000, "dailyLimit": 2_550}, 100, 25, "dailyLimit", 2_500},
		{"dailyTransactionLimit", map[string]any{"currency": "USD", "perTransactionLimit": 5_000, "dailyTransactionLimit": 10}, 10, 10, "dailyTransactionLimit", 100},
	}
	for _, tc := range cases {
		w := newAgentWorld(t, s, 10_000, usdPolicy(5_000, map[string]any{"spendingLimits": tc.limits}))
		started := time.Now()
		gw := w.forGoroutines()
		res := concurrently(n, func(int) *apitest.Response { return gw.transferOutAs(tc.amount) })
		t.Logf("%s: %d requests answered in %s", tc.name, n, time.Since(started))
		var txs []string
		refused := 0
		for i, r := range res {
			if r == nil {
				t.Fatalf("%s: request %d did not complete", tc.name, i)
			}
			switch r.Status {
			case 201:
				var a view.AgentAction
				r.Decode(t, &a)
				if a.Status != "APPROVED" || a.Transaction == nil {
					t.Fatalf("%s: response %d: %s", tc.name, i, r.Body)
				}
				txs = append(txs, a.Transaction.ID)
			case 403:
				if d := refusal(t, tc.name, r, 403, "VELOCITY_LIMIT_EXCEEDED"); d["limit"] != tc.limit {
					t.Fatalf("%s: response %d refused for %v: %s", tc.name, i, d["limit"], r.Body)
				}
				refused++
			default:
				t.Fatalf("%s: response %d: %d %s", tc.name, i, r.Status, r.Body)
			}
		}
		if len(txs) != tc.approved || refused != n-tc.approved {
			t.Fatalf("%s: %d approved and %d refused, want %d and %d", tc.name, len(txs), refused, tc.approved, n-tc.approved)
		}
		for _, id := range txs {
			if tx := w.waitFinal(id, 2*time.Minute); tx.Status != "COMPLETED" {
				t.Fatalf("%s: transaction %+v", tc.name, tx)
			}
		}
		w.wantUsage(int64(tc.approved), tc.wantDailySpnd)
		if u := storedUsage(t, s, w.agentID); u.DailyCount != int64(tc.approved) || u.DailySpend != tc.wantDailySpnd || u.MonthlySpend != tc.wantDailySpnd {
			t.Fatalf("%s: stored usage %+v", tc.name, u)
		}
		if b := w.balance(); b != 10_000-tc.wantDailySpnd {
			t.Fatalf("%s: balance %d, want %d", tc.name, b, 10_000-tc.wantDailySpnd)
		}
		agentUUID, err := ids.Parse(ids.Agent, w.agentID)
		if err != nil {
			t.Fatal(err)
		}
		var actions int
		if err := s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM agent_actions WHERE agent_id = $1", agentUUID).Scan(&actions); err != nil {
			t.Fatal(err)
		}
		if actions != tc.approved {
			t.Fatalf("%s: %d actions stored, want %d (a refusal writes nothing)", tc.name, actions, tc.approved)
		}
	}
	checkLedger(t, s)
}

// Usage windows are UTC days and months of the worker's clock: spending up to the daily
// and the monthly amount is refused past them; the first moment of a new month starts both
// again, a new day within the month only the daily counters.
func TestAgentLimitsDayAndMonthBoundaries(t *testing.T) {
	t.Parallel()
	var clock atomic.Pointer[time.Time]
	set := func(v string) {
		at, err := time.Parse(time.RFC3339, v)
		if err != nil {
			t.Fatal(err)
		}
		clock.Store(&at)
	}
	set("2031-01-30T12:00:00Z")
	// The clock is the app's from its start: the API and the worker read it as they start.
	s := newStackWith(t, appOptions{clock: func() time.Time { return *clock.Load() }}, fast)

	w := newAgentWorld(t, s, 100_000, usdPolicy(5_000, map[string]any{
		"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 5_000, "dailyLimit": 1_000, "monthlyLimit": 1_500, "dailyTransactionLimit": 3}}))
	ok := func(amount int64) {
		t.Helper()
		if a := w.action(w.transferOutAs(amount), 201); a.Status != "APPROVED" {
			t.Fatalf("transfer of %d: %+v", amount, a)
		}
	}
	refused := func(amount int64, limit string) {
		t.Helper()
		if d := refusal(t, "transfer", w.transferOutAs(amount), 403, "VELOCITY_LIMIT_EXCEEDED"); d["limit"] != limit {
			t.Fatalf("transfer of %d refused for %v, want %s", amount, d["limit"], limit)
		}
	}
	stored := func(day string, count, daily int64, month string, monthly int64) {
		t.Helper()
		u := storedUsage(t, s, w.agentID)
		if u.Day != day || u.DailyCount != count || u.DailySpend != daily || u.Month != month || u.MonthlySpend != monthly {
			t.Fatalf("stored usage %+v, want %s %d/%d, %s %d", u, day, count, daily, month, monthly)
		}
		// The API reads the usage at the real time, earlier than the windows: it shows them.
		if got := w.usage().Usage; got.DailyResetDate != day || got.DailyTransactionCount != count || got.DailySpend != daily ||
			got.MonthlyResetMonth != month || got.MonthlySpend != monthly {
			t.Fatalf("GET usage %+v, want %s %d/%d, %s %d", got, day, count, daily, month, monthly)
		}
	}

	// Jan 30: the daily amount.
	ok(600)
	ok(400)
	refused(1, "dailyLimit")
	stored("2031-01-30", 2, 1_000, "2031-01", 1_000)

	// The last seconds of January: a new day (daily counters at zero) but the same month.
	set("2031-01-31T23:59:50Z")
	ok(500)
	refused(1, "monthlyLimit")
	stored("2031-01-31", 1, 500, "2031-01", 1_500)

	// Midnight, February 1st: both windows start again.
	set("2031-02-01T00:00:00Z")
	ok(1_000)
	refused(1, "dailyLimit")
	stored("2031-02-01", 1, 1_000, "2031-02", 1_000)

	// February 2nd: only the daily counters start again.
	set("2031-02-02T00:00:00Z")
	ok(250)
	ok(250)
	refused(1, "monthlyLimit")
	stored("2031-02-02", 2, 500, "2031-02", 1_500)

	// The usage was counted at the worker's clock.
	var last string
	if err := s.app.pool.QueryRow(context.Background(), "SELECT to_char(max(reserved_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') FROM agent_actions").Scan(&last); err != nil || last != "2031-02-02T00:00:00" {
		t.Fatalf("last reservation at %s (%v), want the worker's clock", last, err)
	}

	// The daily transaction count resets with the day too (3 per day).
	set("2031-03-01T08:00:00Z")
	ok(1)
	ok(1)
	ok(1)
	refused(1, "dailyTransactionLimit")
	set("2031-03-02T08:00:00Z")
	ok(1)
	stored("2031-03-02", 1, 1, "2031-03", 4)

	// A reservation given back after its windows have passed leaves the new ones alone: an
	// action pending at the end of March, rejected on April 1st.
	p := newAgentWorld(t, s, 10_000, usdPolicy(5_000, map[string]any{
		"spendingLimits":     map[string]any{"currency": "USD", "perTransactionLimit": 5_000, "dailyLimit": 1_000},
		"approvalThresholds": map[string]any{"currency": "USD", "amount": 100}}))
	set("2031-03-31T23:59:59Z")
	pending := p.action(p.transferOutAs(900), 201)
	if pending.Status != "PENDING_APPROVAL" {
		t.Fatalf("pending %+v", pending)
	}
	set("2031-04-01T00:00:00Z")
	if a := p.action(p.transferOutAs(50), 201); a.Status != "APPROVED" {
		t.Fatalf("April's first transfer %+v", a)
	}
	if r := p.action(p.decide("reject", pending.ID), 200); r.Status != "REJECTED" {
		t.Fatalf("rejected %+v", r)
	}
	if u := storedUsage(t, s, p.agentID); u.Day != "2031-04-01" || u.DailyCount != 1 || u.DailySpend != 50 || u.Month != "2031-04" || u.MonthlySpend != 50 {
		t.Fatalf("April's usage %+v after March's reservation was given back", u)
	}
}

// A policy in EUR counts a USD account's transfer at the mid-market rate: the reservation
// is the converted amount, in EUR, and the per-transaction limit applies to it; an
// approval threshold in USD is converted into the policy currency too.
func TestAgentLimitsCrossCurrency(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	// 1 USD is about 0.92 EUR (the sandbox moves the rate by at most 0.2 %).
	w := newAgentWorld(t, s, 100_000, usdPolicy(0, map[string]any{
		"spendingLimits":     map[string]any{"currency": "EUR", "perTransactionLimit": 9_200},
		"approvalThresholds": map[string]any{"currency": "USD", "amount": 5_000}}))

	usd, _ := money.Lookup("USD")
	eur, _ := money.Lookup("EUR")
	rates := s.app.rates.Sandbox()

	// 4_000 USD (~3_680 EUR): under the threshold in USD, AUTO; reserved converted.
	a := w.action(w.transferOutAs(4_000), 201)
	if a.Status != "APPROVED" {
		t.Fatalf("4000 USD: %+v", a)
	}
	res := storedReservation(t, s, a.ID)
	want, err := agentpolicy.ToPolicyCurrency(rates, 4_000, usd, eur, res.At)
	if err != nil {
		t.Fatal(err)
	}
	if res.Currency != "EUR" || res.Amount != want || want < 3_670 || want > 3_690 {
		t.Fatalf("reservation %+v, want %d EUR", res, want)
	}
	if u := w.usage().Usage; u.DailySpend != want || u.MonthlySpend != want || u.DailyTransactionCount != 1 {
		t.Fatalf("usage %+v, want %d EUR", u, want)
	}

	// 9_500 USD (~8_740 EUR) passes the 9_200 EUR per-transaction limit only converted;
	// above the 5_000 USD threshold it waits for approval.
	b := w.action(w.transferOutAs(9_500), 201)
	if b.Status != "PENDING_APPROVAL" {
		t.Fatalf("9500 USD: %+v", b)
	}
	resB := storedReservation(t, s, b.ID)
	if wantB, _ := agentpolicy.ToPolicyCurrency(rates, 9_500, usd, eur, resB.At); resB.Amount != wantB || resB.Currency != "EUR" {
		t.Fatalf("reservation %+v, want %d EUR", resB, wantB)
	}
	// 10_100 USD (~9_292 EUR) passes it.
	d := refusal(t, "10100 USD", w.transferOutAs(10_100), 403, "VELOCITY_LIMIT_EXCEEDED")
	if d["limit"] != "perTransactionLimit" || d["currency"] != "EUR" || d["limitValue"] != float64(9_200) {
		t.Fatalf("refusal details %v", d)
	}
	// 5_000 USD is the threshold converted the same way: not above it.
	if c := w.action(w.transferOutAs(5_000), 201); c.Status != "APPROVED" {
		t.Fatalf("5000 USD: %+v", c)
	}
	// 5_200 USD (~4_784 EUR) is under 5_000 as EUR but above the threshold, 5_000 USD
	// (~4_600 EUR): the threshold is counted in its own currency.
	e := w.action(w.transferOutAs(5_200), 201)
	if e.Status != "PENDING_APPROVAL" {
		t.Fatalf("5200 USD: %+v", e)
	}
	// The rejected actions give back their converted reservations.
	w.action(w.decide("reject", b.ID), 200)
	w.action(w.decide("reject", e.ID), 200)
	u := storedUsage(t, s, w.agentID)
	five, _ := agentpolicy.ToPolicyCurrency(rates, 5_000, usd, eur, time.Now())
	if u.Currency != "EUR" || u.DailyCount != 2 || u.DailySpend < want+five-20 || u.DailySpend > want+five+20 {
		t.Fatalf("usage %+v after the rejection, want about %d EUR in 2 transactions", u, want+five)
	}
}

// Account restrictions: an account outside allowedAccountIds is refused naming it; an
// account rule asking for approval makes the action wait; an account rule's
// per-transaction limit replaces the policy's for that account.
func TestAgentLimitsAccountRestrictions(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	base := newWorld(t, s)
	if r := base.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	cw, accts := customerWith(t, base, "DE", "USD", "EUR")
	cw.fund(50_000)
	usdAcct, eurAcct := accts["USD"], accts["EUR"]
	connect := func(extra map[string]any) *agentWorld {
		aw := &agentWorld{world: cw, ext: cw.external("000")}
		aw.agentID, aw.token = connectAgent(t, cw.c, cw.customer, usdPolicy(5_000, extra))
		return aw
	}

	// Only the EUR account is allowed: the USD one is refused, named.
	only := connect(map[string]any{"accountRestrictions": map[string]any{"allowedAccountIds": []string{eurAcct}}})
	d := refusal(t, "account not allowed", only.transferOutFrom(usdAcct, only.ext, 100), 403, "FORBIDDEN")
	if d["accountId"] != usdAcct {
		t.Fatalf("details %v, want accountId %s", d, usdAcct)
	}
	// Quotes from it too.
	d = refusal(t, "quote from an account not allowed", only.as("POST", "/agents/me/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": usdAcct},
		"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": cw.euroAccount("000")}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 1_000}), 403, "FORBIDDEN")
	if d["accountId"] != usdAcct {
		t.Fatalf("quote refusal details %v", d)
	}
	only.wantUsage(0, 0)

	// A rule for the USD account: approval required, and its own per-transaction limit.
	ruled := connect(map[string]any{"accountRestrictions": map[string]any{"accountRules": []any{
		map[string]any{"accountId": usdAcct, "executionMode": "APPROVAL_REQUIRED", "perTransactionLimit": 300}}}})
	a := ruled.action(ruled.transferOutFrom(usdAcct, ruled.ext, 300), 201)
	if a.Status != "PENDING_APPROVAL" || a.Transaction != nil {
		t.Fatalf("action on a ruled account %+v", a)
	}
	d = refusal(t, "over the rule's limit", ruled.transferOutFrom(usdAcct, ruled.ext, 301), 403, "VELOCITY_LIMIT_EXCEEDED")
	if d["limit"] != "perTransactionLimit" || d["limitValue"] != float64(300) {
		t.Fatalf("details %v, want the rule's perTransactionLimit 300", d)
	}
	ruled.wantUsage(1, 300)

	// A rule's larger limit lets through what the policy's would refuse.
	larger := connect(map[string]any{"accountRestrictions": map[string]any{"accountRules": []any{
		map[string]any{"accountId": usdAcct, "perTransactionLimit": 8_000}}}})
	if b := larger.action(larger.transferOutFrom(usdAcct, larger.ext, 7_000), 201); b.Status != "APPROVED" {
		t.Fatalf("under the rule's limit %+v", b)
	}
	d = refusal(t, "over the rule's limit", larger.transferOutFrom(usdAcct, larger.ext, 8_001), 403, "VELOCITY_LIMIT_EXCEEDED")
	if d["limit"] != "perTransactionLimit" || d["limitValue"] != float64(8_000) {
		t.Fatalf("details %v", d)
	}
}

// A pending action nobody decides ends FAILED (APPROVAL_EXPIRED) at its expiry with its
// reservation given back; deciding it afterwards is 409.
func TestAgentLimitsApprovalExpires(t *testing.T) {
	t.Parallel()
	// Long enough for the usage to be read while the action is pending on a loaded machine.
	s := newStack(t, fast, func(c *config.Config) { c.AgentApprovalLifetime = 6 * time.Second })
	w := newAgentWorld(t, s, 10_000, usdPolicy(5_000, map[string]any{
		"approvalThresholds": map[string]any{"currency": "USD", "amount": 1_000}}))
	w.action(w.transferOutAs(500), 201)
	a := w.action(w.transferOutAs(1_500), 201)
	if a.Status != "PENDING_APPROVAL" || a.ApprovalExpiresAt == nil || a.ApprovalExpiresAt.Sub(a.CreatedAt) > 7*time.Second {
		t.Fatalf("pending %+v", a)
	}
	w.wantUsage(2, 2_000)
	var got view.AgentAction
	eventually(t, 30*time.Second, "the approval to expire", func() bool {
		got = w.getAction(a.ID)
		return got.Status != "PENDING_APPROVAL"
	})
	if got.Status != "FAILED" || ptr(got.FailureReason) != "APPROVAL_EXPIRED" || got.Transaction != nil {
		t.Fatalf("expired action %+v", got)
	}
	w.wantUsage(1, 500)
	for _, verb := range []string{"approve", "reject"} {
		refusal(t, verb+" after expiry", w.decide(verb, a.ID), 409, "AGENT_ACTION_NOT_PENDING")
	}
	w.wantUsage(1, 500)
	if b := w.balance(); b != 9_500 {
		t.Fatalf("balance %d, want 9500", b)
	}
}

// An EXECUTE_QUOTE action waiting for approval whose quote expires meanwhile is approved
// into FAILED (QUOTE_NOT_PENDING), its reservation given back.
func TestAgentLimitsPendingQuoteExpires(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast, quoteFast, func(c *config.Config) { c.QuoteLifetime = 4 * time.Second })
	w := newAgentWorld(t, s, 100_000, usdPolicy(50_000, map[string]any{"defaultExecutionMode": "APPROVAL_REQUIRED"}))
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	r := w.as("POST", "/agents/me/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": w.account},
		"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": w.euroAccount("000")}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 10_000})
	if r.Status != 201 {
		t.Fatalf("agent quote: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(t, &q)
	a := w.action(w.as("POST", "/agents/me/quotes/"+q.ID+"/execute", nil), 200)
	if a.Status != "PENDING_APPROVAL" || a.Type != "EXECUTE_QUOTE" {
		t.Fatalf("pending execution %+v", a)
	}
	w.wantUsage(1, 10_000)
	eventually(t, 30*time.Second, "the quote to expire", func() bool { return w.transaction(q.TransactionID).Status == "EXPIRED" })
	if got := w.getAction(a.ID); got.Status != "PENDING_APPROVAL" {
		t.Fatalf("action after its quote expired %+v", got)
	}
	done := w.action(w.decide("approve", a.ID), 200)
	if done.Status != "FAILED" || ptr(done.FailureReason) != "QUOTE_NOT_PENDING" {
		t.Fatalf("approved after the quote expired %+v", done)
	}
	w.wantUsage(0, 0)
	if res := storedReservation(t, s, a.ID); !res.Released {
		t.Fatalf("reservation %+v not released", res)
	}
	if b := w.balance(); b != 100_000 {
		t.Fatalf("balance %d", b)
	}
}

// Pausing or deleting an agent while its action waits: its token stops working, approval
// ends the action FAILED (AGENT_PAUSED, AGENT_DELETED) with its reservation given back,
// and a deleted agent's pending action can still be rejected.
func TestAgentLimitsPauseAndDeleteMidFlight(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := newAgentWorld(t, s, 10_000, usdPolicy(5_000, map[string]any{"defaultExecutionMode": "APPROVAL_REQUIRED"}))

	a := w.action(w.transferOutAs(1_000), 201)
	if a.Status != "PENDING_APPROVAL" {
		t.Fatalf("pending %+v", a)
	}
	w.wantUsage(1, 1_000)
	if r := w.c.Do("PATCH", "/agents/"+w.agentID, map[string]any{"isPaused": true}); r.Status != 200 {
		t.Fatalf("pause: %d %s", r.Status, r.Body)
	}
	refusal(t, "paused agent's transfer", w.transferOutAs(10), 403, "FORBIDDEN")
	refusal(t, "paused agent's read", w.as("GET", "/agents/me/actions/"+a.ID, nil), 403, "FORBIDDEN")
	done := w.action(w.decide("approve", a.ID), 200)
	if done.Status != "FAILED" || ptr(done.FailureReason) != "AGENT_PAUSED" || done.Transaction != nil {
		t.Fatalf("approved while paused %+v", done)
	}
	w.wantUsage(0, 0)
	refusal(t, "approve twice", w.decide("approve", a.ID), 409, "AGENT_ACTION_NOT_PENDING")

	// Resumed, two actions wait; then the agent is deleted.
	if r := w.c.Do("PATCH", "/agents/"+w.agentID, map[string]any{"isPaused": false}); r.Status != 200 {
		t.Fatalf("resume: %d %s", r.Status, r.Body)
	}
	b := w.action(w.transferOutAs(700), 201)
	c := w.action(w.transferOutAs(300), 201)
	if b.Status != "PENDING_APPROVAL" || c.Status != "PENDING_APPROVAL" {
		t.Fatalf("pending %+v %+v", b, c)
	}
	w.wantUsage(2, 1_000)
	if r := w.c.Do("DELETE", "/agents/"+w.agentID, nil); r.Status != 204 && r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	refusal(t, "deleted agent's request", w.as("GET", "/agents/me/actions", nil), 401, "UNAUTHORIZED")
	done = w.action(w.decide("approve", b.ID), 200)
	if done.Status != "FAILED" || ptr(done.FailureReason) != "AGENT_DELETED" || done.Transaction != nil {
		t.Fatalf("approved after deletion %+v", done)
	}
	if u := storedUsage(t, s, w.agentID); u.DailyCount != 1 || u.DailySpend != 300 {
		t.Fatalf("usage %+v after the failed approval, want 1 transaction of 300", u)
	}
	rej := w.action(w.decide("reject", c.ID), 200)
	if rej.Status != "REJECTED" {
		t.Fatalf("rejected after deletion %+v", rej)
	}
	if u := storedUsage(t, s, w.agentID); u.DailyCount != 0 || u.DailySpend != 0 || u.MonthlySpend != 0 {
		t.Fatalf("usage %+v after the rejection", u)
	}
	if bal := w.balance(); bal != 10_000 {
		t.Fatalf("balance %d", bal)
	}
}

// An agent's transfer the bank fails ends its action FAILED with the reason, the
// reservation given back exactly once.
func TestAgentLimitsFailedPaymentReleases(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := newAgentWorld(t, s, 10_000, usdPolicy(5_000, nil))
	w.action(w.transferOutAs(1_000), 201)
	w.wantUsage(1, 1_000)

	for _, suffix := range []string{"002", "004"} {
		ext := w.external(suffix)
		a := w.action(w.as("POST", "/agents/me/transfer-out", map[string]any{"source": map[string]any{"accountId": w.account},
			"destination": map[string]any{"accountId": ext}, "amount": 400}), 201)
		if a.Status != "APPROVED" || a.Transaction == nil {
			t.Fatalf("%s: %+v", suffix, a)
		}
		if tx := w.waitFinal(a.Transaction.ID, time.Minute); tx.Status != "FAILED" {
			t.Fatalf("%s: transaction %+v", suffix, tx)
		}
		var got view.AgentAction
		eventually(t, 20*time.Second, "the action to fail", func() bool {
			got = w.getAction(a.ID)
			return got.Status != "APPROVED"
		})
		if got.Status != "FAILED" || got.FailureReason == nil || *got.FailureReason == "" {
			t.Fatalf("%s: action %+v", suffix, got)
		}
		// Given back once: the earlier transfer stays counted.
		w.wantUsage(1, 1_000)
		if res := storedReservation(t, s, a.ID); !res.Released || res.Amount != 400 {
			t.Fatalf("%s: reservation %+v", suffix, res)
		}
	}
	if b := w.balance(); b != 9_000 {
		t.Fatalf("balance %d", b)
	}
	checkLedger(t, s)
}

// An agent reaches only its own customer's quotes and accounts and its own actions; a
// platform decides only its own agents' actions.
func TestAgentLimitsIsolation(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast, quoteFast)
	w := newAgentWorld(t, s, 100_000, usdPolicy(50_000, map[string]any{
		"approvalThresholds": map[string]any{"currency": "USD", "amount": 1_000}}))
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	// Another customer of the same platform, with its own agent, quote and pending action.
	ow, _ := customerWith(t, w.world, "US", "USD")
	ow.fund(50_000)
	other := &agentWorld{world: ow, ext: ow.external("000")}
	other.agentID, other.token = connectAgent(t, ow.c, ow.customer, usdPolicy(50_000, map[string]any{
		"approvalThresholds": map[string]any{"currency": "USD", "amount": 1_000}}))
	otherQuote := ow.newQuote(ow.euroAccount("000"), 1_000)
	otherAction := other.action(other.transferOutAs(2_000), 201)
	if otherAction.Status != "PENDING_APPROVAL" {
		t.Fatalf("other action %+v", otherAction)
	}

	refusal(t, "execute another customer's quote", w.as("POST", "/agents/me/quotes/"+otherQuote.ID+"/execute", nil), 404, "QUOTE_NOT_FOUND")
	refusal(t, "transfer from another customer's account", w.transferOutFrom(ow.account, w.ext, 100), 404, "ACCOUNT_NOT_FOUND")
	refusal(t, "another agent's action", w.as("GET", "/agents/me/actions/"+otherAction.ID, nil), 404, "AGENT_ACTION_NOT_FOUND")
	// The platform: the action under the wrong agent.
	mine := w.action(w.transferOutAs(2_000), 201)
	refusal(t, "approve under the wrong agent", w.c.Do("POST", "/agents/"+w.agentID+"/actions/"+otherAction.ID+"/approve", nil), 404, "AGENT_ACTION_NOT_FOUND")
	refusal(t, "reject under the wrong agent", w.c.Do("POST", "/agents/"+other.agentID+"/actions/"+mine.ID+"/reject", nil), 404, "AGENT_ACTION_NOT_FOUND")
	// Another platform.
	stranger := newAgentWorld(t, s, 0, usdPolicy(1_000, nil))
	refusal(t, "another platform approves", stranger.c.Do("POST", "/agents/"+w.agentID+"/actions/"+mine.ID+"/approve", nil), 404, "AGENT_ACTION_NOT_FOUND")
	refusal(t, "another platform's agent reads", stranger.as("GET", "/agents/me/actions/"+mine.ID, nil), 404, "AGENT_ACTION_NOT_FOUND")
	refusal(t, "another platform's agent executes", stranger.as("POST", "/agents/me/quotes/"+otherQuote.ID+"/execute", nil), 404, "QUOTE_NOT_FOUND")
	// Nothing was decided or moved.
	if got := w.getAction(mine.ID); got.Status != "PENDING_APPROVAL" {
		t.Fatalf("my action %+v", got)
	}
	if got := other.getAction(otherAction.ID); got.Status != "PENDING_APPROVAL" {
		t.Fatalf("other action %+v", got)
	}
	if q := ow.transaction(otherQuote.TransactionID); q.Status != "PENDING" {
		t.Fatalf("other quote's transaction %+v", q)
	}
	w.wantUsage(1, 2_000)
	// Reading another customer's quote is 404 like the rest.
	if r := w.as("GET", "/agents/me/quotes/"+otherQuote.ID, nil); r.Status != 404 || r.Code(t) != "QUOTE_NOT_FOUND" {
		t.Errorf("read another customer's quote: %d %s, want 404 QUOTE_NOT_FOUND", r.Status, r.Body)
	}
	if r := stranger.as("GET", "/agents/me/quotes/"+otherQuote.ID, nil); r.Status != 404 || r.Code(t) != "QUOTE_NOT_FOUND" {
		t.Errorf("read another platform's quote: %d %s, want 404 QUOTE_NOT_FOUND", r.Status, r.Body)
	}
}

// Each money route needs its permission: without it 403 FORBIDDEN naming it.
func TestAgentLimitsPermissions(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	all := []string{"VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"}
	without := func(p string) []string {
		var out []string
		for _, x := range all {
			if x != p {
				out = append(out, x)
			}
		}
		return out
	}
	w := newAgentWorld(t, s, 10_000, usdPolicy(5_000, nil))
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	eur := w.euroAccount("000")
	quoteBody := map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": w.account},
		"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": eur}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 1_000}
	q := w.newQuote(eur, 1_000)
	cases := []struct {
		perm string
		call func(a *agentWorld) *apitest.Response
	}{
		{"CREATE_QUOTES", func(a *agentWorld) *apitest.Response { return a.as("POST", "/agents/me/quotes", quoteBody) }},
		{"EXECUTE_QUOTES", func(a *agentWorld) *apitest.Response { return a.as("POST", "/agents/me/quotes/"+q.ID+"/execute", nil) }},
		{"CREATE_TRANSFERS", func(a *agentWorld) *apitest.Response { return a.transferOutAs(100) }},
		{"CREATE_TRANSFERS", func(a *agentWorld) *apitest.Response {
			return a.as("POST", "/agents/me/transfer-in", map[string]any{"source": map[string]any{"accountId": a.ext},
				"destination": map[string]any{"accountId": a.account}, "amount": 100})
		}},
	}
	for _, tc := range cases {
		a := &agentWorld{world: w.world, ext: w.ext}
		a.agentID, a.token = connectAgent(t, w.c, w.customer, usdPolicy(5_000, map[string]any{"permissions": without(tc.perm)}))
		d := refusal(t, "without "+tc.perm, tc.call(a), 403, "FORBIDDEN")
		if d["permission"] != tc.perm {
			t.Fatalf("without %s: details %v", tc.perm, d)
		}
		a.wantUsage(0, 0)
	}
	// With every permission the same calls pass (the refusals above are the permissions').
	if r := w.as("POST", "/agents/me/quotes", quoteBody); r.Status != 201 {
		t.Fatalf("quote with the permission: %d %s", r.Status, r.Body)
	}
	w.action(w.as("POST", "/agents/me/quotes/"+q.ID+"/execute", nil), 200)
	w.action(w.transferOutAs(100), 201)
	if b := w.balance(); b != 10_000-1_000-100 {
		t.Fatalf("balance %d", b)
	}
}
