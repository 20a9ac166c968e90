package db_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/db/view"
	"paycore/internal/agent"
	"paycore/internal/agentpolicy"
	"paycore/internal/catalog"
	"paycore/internal/extaccount"
	"paycore/internal/ids"
	"paycore/internal/kit/sealbox"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

// actionWorld is an agentWorld whose customer (KYC approved) has a funded USD internal
// account and a USD external account, with an agent of its customer.
type actionWorld struct {
	*agentWorld
	// store runs the operations that record webhook events on the world's pool.
	store    db.Store
	external uuid.UUID
	agent    db.Agent
}

const actionPolicy = `{"permissions": ["CREATE_TRANSFERS"], "defaultExecutionMode": "AUTO",
	"spendingLimits": {"currency": "USD", "perTransactionLimit": 5000, "dailyLimit": 10000}}`

func newActionWorld(t *testing.T, policy string) *actionWorld {
	t.Helper()
	pool, _ := dbtest.NewPool(t)
	store := db.NewStore(pool, view.Resources{})
	box := newBox(t)
	p, s := provision(t, pool, box)
	payer, err := openPayer(context.Background(), pool, store, box, p.ID, s, "agent-owner", "$owner@"+s.UmaDomain, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	w := &actionWorld{agentWorld: &agentWorld{t: t, pool: pool, q: db.New(pool), platform: p.ID, customer: payer.customer, account: payer.account},
		store: store, external: payer.external}
	w.agent, _ = w.create(agentPolicy(t, policy), time.Minute)
	return w
}

// payer is a customer who can send a transfer out: KYC approved, with a funded USD
// internal account and a USD external account of its own.
type payer struct {
	customer          db.Customer
	account, external uuid.UUID
}

// openPayer creates a payer of platform (settings s) through the operations of the
// service: the customer with its accounts, its KYC approval, a sandbox funding of amount
// into its USD account and its external account.
func openPayer(ctx context.Context, pool *pgxpool.Pool, store db.Store, box *sealbox.Box, platform uuid.UUID, s platformconfig.Settings,
	platformCustomerID, uma string, amount int64) (payer, error) {
	n, err := individual(s, platformCustomerID, uma)
	if err != nil {
		return payer{}, err
	}
	c, err := db.CustomerOpen(ctx, pool, box, platform, n)
	if err != nil {
		return payer{}, fmt.Errorf("create customer %s: %w", platformCustomerID, err)
	}
	q := db.New(pool)
	if _, err := q.CustomerSetKycStatus(ctx, db.CustomerSetKycStatusParams{ID: c.ID, KycStatus: catalog.KycApproved}); err != nil {
		return payer{}, fmt.Errorf("approve customer %s: %w", platformCustomerID, err)
	}
	accts, err := q.InternalAccountsOfCustomer(ctx, uuid.NullUUID{UUID: c.ID, Valid: true})
	if err != nil {
		return payer{}, fmt.Errorf("accounts of customer %s: %w", platformCustomerID, err)
	}
	out := payer{customer: c}
	for _, a := range accts {
		if a.InternalAccount.Currency == "USD" {
			out.account = a.InternalAccount.ID
		}
	}
	if out.account == uuid.Nil {
		return payer{}, fmt.Errorf("no USD account among %+v", accts)
	}
	if _, err := store.SandboxFund(ctx, platform, out.account, amount, time.Now(), func(*sandbox.FundingTarget) error { return nil }); err != nil {
		return payer{}, fmt.Errorf("fund customer %s: %w", platformCustomerID, err)
	}
	cid, currency := ids.Format(ids.Customer, c.ID), "USD"
	en, err := extaccount.Request{CustomerID: &cid, Currency: &currency,
		AccountInfo: []byte(`{"accountType":"USD_ACCOUNT","accountNumber":"123456789001","routingNumber":"021000021",
			"beneficiary":{"beneficiaryType":"INDIVIDUAL","fullName":"Grace Hopper"}}`)}.Check(false)
	if err != nil {
		return payer{}, fmt.Errorf("external account of customer %s: %w", platformCustomerID, err)
	}
	ext, err := db.ExternalAccountAdd(ctx, pool, platform, en)
	if err != nil {
		return payer{}, fmt.Errorf("add external account of customer %s: %w", platformCustomerID, err)
	}
	out.external = ext.ID
	return out, nil
}

// request is a transfer out of amount from the customer's account by the world's agent.
func (w *actionWorld) request(amount int64) agent.Request {
	id := ids.New()
	return agent.Request{ActionID: id, WorkflowID: "agent-action/" + id.String(), PlatformID: w.platform, AgentID: w.agent.ID, Type: agent.TransferOut,
		InternalAccountID: w.account, ExternalAccountID: uuid.NullUUID{UUID: w.external, Valid: true}, Amount: amount, ApprovalLifetime: time.Hour}
}

// judge applies the policy as the service does, the amount being in the policy currency
// already; needsApproval asks for approval whatever the policy says.
func judge(now time.Time, needsApproval bool, calls *int) db.ActionJudge {
	var mu sync.Mutex
	return func(p agentpolicy.Policy, u agentpolicy.Usage, amount int64, _ string, account uuid.UUID) (int64, agentpolicy.Decision, error) {
		if calls != nil {
			mu.Lock()
			*calls++
			mu.Unlock()
		}
		d, err := p.Decide(u, now, agentpolicy.Action{Amount: amount, AccountID: ids.Format(ids.InternalAccount, account)})
		d.NeedsApproval = d.NeedsApproval || needsApproval
		return amount, d, err
	}
}

func (w *actionWorld) submit(r agent.Request, now time.Time, needsApproval bool) db.AgentActionFull {
	w.t.Helper()
	a, err := w.store.AgentActionSubmit(context.Background(), r, now, judge(now, needsApproval, nil))
	if err != nil {
		w.t.Fatalf("submit %d: %v", r.Amount, err)
	}
	return a
}

// usageRow is the agent's agent_usage row as stored.
type usageRow struct {
	currency              string
	count, daily, monthly int64
}

func (w *actionWorld) usage() usageRow {
	w.t.Helper()
	var u usageRow
	if err := w.pool.QueryRow(context.Background(), "SELECT currency, daily_count, daily_spend, monthly_spend FROM agent_usage WHERE agent_id = $1",
		w.agent.ID).Scan(&u.currency, &u.count, &u.daily, &u.monthly); err != nil {
		w.t.Fatal(err)
	}
	return u
}

func (w *actionWorld) wantUsage(currency string, count, spent int64) {
	w.t.Helper()
	if u := w.usage(); u != (usageRow{currency, count, spent, spent}) {
		w.t.Fatalf("usage %+v, want %d transactions and %d %s spent", u, count, spent, currency)
	}
}

func (w *actionWorld) read(id uuid.UUID) db.AgentActionFull {
	w.t.Helper()
	a, err := db.AgentActionRead(context.Background(), w.pool, id)
	if err != nil {
		w.t.Fatal(err)
	}
	return a
}

func wantAction(t *testing.T, a db.AgentActionFull, status agent.ActionStatus, failure string, released bool) {
	t.Helper()
	if a.Status != status || db.Deref(a.FailureReason) != failure || (a.ReleasedAt != nil) != released {
		t.Fatalf("action %s %s (failure %q, released at %v), want %s %q released %v", a.ID, a.Status, db.Deref(a.FailureReason), a.ReleasedAt,
			status, failure, released)
	}
}

// Submitting writes the action with its reservation: APPROVED within AUTO, or
// PENDING_APPROVAL with its expiry and the AGENT_ACTION_PENDING_APPROVAL event when the
// judge asks for approval. A refusal writes nothing; the same action id submitted again
// answers the same action without judging or reserving again.
func TestAgentActionSubmit(t *testing.T) {
	w := newActionWorld(t, actionPolicy)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond) // as Postgres stores it

	a := w.submit(w.request(1000), now, false)
	wantAction(t, a, agent.Approved, "", false)
	if a.ReservedAmount != 1000 || a.ReservedCurrency != "USD" || a.ApprovalExpiresAt != nil || a.TransactionID != agent.TransferTransactionID(a.ID) {
		t.Fatalf("approved action %+v", a.AgentAction)
	}
	w.wantUsage("USD", 1, 1000)

	pr := w.request(1500)
	p := w.submit(pr, now, true)
	wantAction(t, p, agent.PendingApproval, "", false)
	if p.ApprovalExpiresAt == nil || !p.ApprovalExpiresAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("pending action expires at %v, want %v", p.ApprovalExpiresAt, now.Add(time.Hour))
	}
	w.wantUsage("USD", 2, 2500)
	if n := count(t, w.pool, "SELECT count(*) FROM webhook_events WHERE platform_id = $1 AND type = 'AGENT_ACTION_PENDING_APPROVAL'", w.platform); n != 1 {
		t.Fatalf("%d AGENT_ACTION_PENDING_APPROVAL events, want 1", n)
	}

	// The same id again: the stored action, judged and reserved once.
	calls := 0
	again, err := w.store.AgentActionSubmit(ctx, pr, now, judge(now, true, &calls))
	if err != nil || again.ID != p.ID || again.Status != agent.PendingApproval || calls != 0 {
		t.Fatalf("submitted again: %v %+v (judged %d times)", err, again.AgentAction, calls)
	}
	w.wantUsage("USD", 2, 2500)
	if n := count(t, w.pool, "SELECT count(*) FROM webhook_events WHERE platform_id = $1 AND type = 'AGENT_ACTION_PENDING_APPROVAL'", w.platform); n != 1 {
		t.Fatalf("%d AGENT_ACTION_PENDING_APPROVAL events after the repeat, want 1", n)
	}

	// Refusals write nothing: past the per-transaction limit, past the balance.
	_, err = w.store.AgentActionSubmit(ctx, w.request(5001), now, judge(now, false, nil))
	limitRefused(t, err, agentpolicy.LimitPerTransaction)
	_, err = w.store.AgentActionSubmit(ctx, w.request(200_000), now,
		func(agentpolicy.Policy, agentpolicy.Usage, int64, string, uuid.UUID) (int64, agentpolicy.Decision, error) {
			t.Fatal("judged an action the transfer rule refuses")
			return 0, agentpolicy.Decision{}, nil
		})
	var fe *problem.FieldError
	if !errors.As(err, &fe) || fe.Code != catalog.InsufficientFunds {
		t.Fatalf("above the balance: %v", err)
	}
	if n := count(t, w.pool, "SELECT count(*) FROM agent_actions WHERE agent_id = $1", w.agent.ID); n != 2 {
		t.Fatalf("%d actions, want 2", n)
	}
	w.wantUsage("USD", 2, 2500)
}

// Failing an action gives its reservation back once: a second fail (a retried expiry)
// changes nothing, and an action not in the given statuses is left as it is.
func TestAgentActionFailReleasesOnce(t *testing.T) {
	w := newActionWorld(t, actionPolicy)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond) // as Postgres stores it
	// An action that stays: the usage never falls below it.
	w.submit(w.request(1000), now, false)
	p := w.submit(w.request(1500), now, true)
	w.wantUsage("USD", 2, 2500)

	// Not PENDING_APPROVAL's "from": nothing changes.
	got, err := db.AgentActionFail(ctx, w.pool, p.ID, "EXECUTION_REFUSED", now, agent.Approved)
	if err != nil {
		t.Fatal(err)
	}
	wantAction(t, got, agent.PendingApproval, "", false)
	w.wantUsage("USD", 2, 2500)

	for range 2 {
		got, err := db.AgentActionFail(ctx, w.pool, p.ID, agent.FailureApprovalExpired, now, agent.PendingApproval)
		if err != nil {
			t.Fatal(err)
		}
		wantAction(t, got, agent.Failed, agent.FailureApprovalExpired, true)
		w.wantUsage("USD", 1, 1000)
	}
	if _, err := db.AgentActionFail(ctx, w.pool, ids.New(), agent.FailureApprovalExpired, now, agent.PendingApproval); err == nil {
		t.Fatal("failed an action that does not exist")
	}
}

// A rejection ends the action REJECTED with its reason and gives its reservation back;
// deciding again is 409 AGENT_ACTION_NOT_PENDING. An approval keeps the reservation, and
// approving an action of an agent paused meanwhile ends it FAILED (AGENT_PAUSED), given
// back.
func TestAgentActionDecide(t *testing.T) {
	w := newActionWorld(t, actionPolicy)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond) // as Postgres stores it
	rej := w.submit(w.request(1000), now, true)
	app := w.submit(w.request(2000), now, true)
	paused := w.submit(w.request(3000), now, true)
	w.wantUsage("USD", 3, 6000)

	// With its workflow ended a pending action takes no decision, and nothing is written.
	_, err := db.AgentActionDecide(ctx, w.pool, rej.ID, agent.Decision{Reason: "late"}, time.Now(), false)
	refusedWith(t, err, catalog.AgentActionNotPending)
	if wire, _ := problem.ToWire(err); wire.Details["status"] != "PENDING_APPROVAL" {
		t.Fatalf("a decision without the workflow: %v", wire.Details)
	}
	w.wantUsage("USD", 3, 6000)

	got, err := db.AgentActionDecide(ctx, w.pool, rej.ID, agent.Decision{Reason: "not this week"}, time.Now(), true)
	if err != nil {
		t.Fatal(err)
	}
	wantAction(t, got, agent.Rejected, "", true)
	if db.Deref(got.RejectionReason) != "not this week" || got.Transaction != nil {
		t.Fatalf("rejected %+v", got.AgentAction)
	}
	w.wantUsage("USD", 2, 5000)
	for _, d := range []agent.Decision{{Approve: true}, {Reason: "again"}} {
		_, err = db.AgentActionDecide(ctx, w.pool, rej.ID, d, time.Now(), true)
		refusedWith(t, err, catalog.AgentActionNotPending)
	}
	w.wantUsage("USD", 2, 5000)

	if got, err = db.AgentActionDecide(ctx, w.pool, app.ID, agent.Decision{Approve: true}, time.Now(), true); err != nil {
		t.Fatal(err)
	}
	wantAction(t, got, agent.Approved, "", false)
	w.wantUsage("USD", 2, 5000)
	_, err = db.AgentActionDecide(ctx, w.pool, app.ID, agent.Decision{Approve: true}, time.Now(), true)
	refusedWith(t, err, catalog.AgentActionNotPending)

	yes := true
	if _, err := db.AgentUpdate(ctx, w.pool, w.platform, w.agent.ID, db.AgentChange{IsPaused: &yes}); err != nil {
		t.Fatal(err)
	}
	if got, err = db.AgentActionDecide(ctx, w.pool, paused.ID, agent.Decision{Approve: true}, time.Now(), true); err != nil {
		t.Fatal(err)
	}
	wantAction(t, got, agent.Failed, agent.FailureAgentPaused, true)
	w.wantUsage("USD", 1, 2000)
	_, err = db.AgentActionDecide(ctx, w.pool, paused.ID, agent.Decision{Approve: true}, time.Now(), true)
	refusedWith(t, err, catalog.AgentActionNotPending)
	w.wantUsage("USD", 1, 2000)
}

// The transaction of an approved action ending FAILED ends the action FAILED in the same
// database transaction, its reservation given back once; a completed one leaves it
// APPROVED with its transaction.
func TestAgentActionTransactionFailedReleasesOnce(t *testing.T) {
	w := newActionWorld(t, actionPolicy)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond) // as Postgres stores it
	ok := w.submit(w.request(1000), now, false)
	bad := w.submit(w.request(1500), now, false)
	w.wantUsage("USD", 2, 2500)

	transferOf := func(a db.AgentActionFull) db.Transaction {
		t.Helper()
		r := transfer.Request{TransactionID: a.TransactionID, Kind: transfer.Out, PlatformID: w.platform, CustomerID: ids.Some(w.customer.ID),
			InternalAccountID: w.account, ExternalAccountID: w.external, Amount: a.Amount, AgentID: ids.Some(w.agent.ID)}
		tx, _, err := w.store.TransferCreate(ctx, r, time.Now(), func(acc transfer.Accounts) error { return transfer.Check(r, acc) })
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	okTx, badTx := transferOf(ok), transferOf(bad)
	if !okTx.AgentID.Valid || okTx.AgentID.UUID != w.agent.ID {
		t.Fatalf("the transaction does not name the agent: %+v", okTx)
	}
	if _, err := w.store.TransactionFinish(ctx, okTx.ID, sandbox.Outcome{Status: catalog.TxCompleted}, time.Now()); err != nil {
		t.Fatal(err)
	}
	got := w.read(ok.ID)
	wantAction(t, got, agent.Approved, "", false)
	if got.Transaction == nil || got.Transaction.Status != catalog.TxCompleted {
		t.Fatalf("completed action's transaction %+v", got.Transaction)
	}

	failed := sandbox.Outcome{Status: catalog.TxFailed, Code: catalog.InvalidInput, Message: "the bank refused the payment"}
	for range 2 {
		if _, err := w.store.TransactionFinish(ctx, badTx.ID, failed, time.Now()); err != nil {
			t.Fatal(err)
		}
		wantAction(t, w.read(bad.ID), agent.Failed, "TRANSACTION_FAILED", true)
		w.wantUsage("USD", 1, 1000)
	}
	// The execution step retried after the transaction failed changes nothing either.
	got, err := db.AgentActionFail(ctx, w.pool, bad.ID, string(catalog.InsufficientFunds), now, agent.Approved)
	if err != nil {
		t.Fatal(err)
	}
	wantAction(t, got, agent.Failed, "TRANSACTION_FAILED", true)
	w.wantUsage("USD", 1, 1000)
}

// When the policy currency changed (USD to EUR) the usage counts again from zero in the
// new one (the transaction count stays), and giving back a reservation taken in USD
// gives back only its transaction.
func TestAgentActionPolicyCurrencyChange(t *testing.T) {
	w := newActionWorld(t, actionPolicy)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond) // as Postgres stores it
	usd := w.submit(w.request(1000), now, true)
	w.wantUsage("USD", 1, 1000)

	eur := agentPolicy(t, `{"permissions": ["CREATE_TRANSFERS"], "defaultExecutionMode": "AUTO",
		"spendingLimits": {"currency": "EUR", "perTransactionLimit": 5000, "dailyLimit": 10000}}`)
	if _, err := w.q.AgentSetPolicy(ctx, db.AgentSetPolicyParams{ID: w.agent.ID, Policy: eur.Encode()}); err != nil {
		t.Fatal(err)
	}
	// The judge answers the reservation in EUR (here the same number).
	e := w.submit(w.request(900), now, false)
	if e.ReservedCurrency != "EUR" || e.ReservedAmount != 900 {
		t.Fatalf("reserved %d %s, want 900 EUR", e.ReservedAmount, e.ReservedCurrency)
	}
	w.wantUsage("EUR", 2, 900)

	got, err := db.AgentActionDecide(ctx, w.pool, usd.ID, agent.Decision{Reason: "no"}, time.Now(), true)
	if err != nil {
		t.Fatal(err)
	}
	wantAction(t, got, agent.Rejected, "", true)
	w.wantUsage("EUR", 1, 900)
	if _, err := db.AgentActionFail(ctx, w.pool, e.ID, "EXECUTION_REFUSED", now, agent.Approved); err != nil {
		t.Fatal(err)
	}
	w.wantUsage("EUR", 0, 0)

	// Back and forth: a USD reservation, EUR, then USD again. The USD amounts started again
	// with the switch back, so rejecting the first gives back only its transaction.
	back := agentPolicy(t, `{"permissions": ["CREATE_TRANSFERS"], "defaultExecutionMode": "AUTO",
		"spendingLimits": {"currency": "USD", "perTransactionLimit": 5000, "dailyLimit": 10000}}`)
	if _, err := w.q.AgentSetPolicy(ctx, db.AgentSetPolicyParams{ID: w.agent.ID, Policy: back.Encode()}); err != nil {
		t.Fatal(err)
	}
	first := w.submit(w.request(1000), now.Add(time.Second), true)
	w.wantUsage("USD", 1, 1000)
	for i, p := range []agentpolicy.Policy{eur, back} {
		if _, err := w.q.AgentSetPolicy(ctx, db.AgentSetPolicyParams{ID: w.agent.ID, Policy: p.Encode()}); err != nil {
			t.Fatal(err)
		}
		w.submit(w.request(100), now.Add(time.Duration(2+i)*time.Second), false)
	}
	w.wantUsage("USD", 3, 100)
	if _, err := db.AgentActionDecide(ctx, w.pool, first.ID, agent.Decision{}, time.Now(), true); err != nil {
		t.Fatal(err)
	}
	w.wantUsage("USD", 2, 100)
}

// 50 submissions at once never pass the daily limit: exactly floor(limit/amount) are
// written, the others are refused naming dailyLimit.
func TestAgentActionConcurrentSubmits(t *testing.T) {
	w := newActionWorld(t, actionPolicy)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond) // as Postgres stores it
	var (
		wg         sync.WaitGroup
		mu         sync.Mutex
		ok         int
		unexpected []error
	)
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := w.store.AgentActionSubmit(ctx, w.request(700), now, judge(now, false, nil))
			mu.Lock()
			defer mu.Unlock()
			var r *problem.Refusal
			switch {
			case err == nil:
				ok++
			case errors.As(err, &r) && r.Code == catalog.VelocityLimitExceeded && r.Details["limit"] == agentpolicy.LimitDaily:
			default:
				unexpected = append(unexpected, err)
			}
		}()
	}
	wg.Wait()
	if len(unexpected) > 0 {
		t.Fatalf("unexpected errors: %v", unexpected)
	}
	if ok != 14 {
		t.Fatalf("%d submissions passed, want 14 (10000 / 700)", ok)
	}
	w.wantUsage("USD", 14, 9800)
	if n := count(t, w.pool, "SELECT count(*) FROM agent_actions WHERE agent_id = $1", w.agent.ID); n != 14 {
		t.Fatalf("%d actions written, want 14", n)
	}
}

// Approving an action of an agent deleted meanwhile ends it FAILED (AGENT_DELETED), its
// reservation given back; its transaction is never made.
func TestAgentActionApproveDeletedAgent(t *testing.T) {
	w := newActionWorld(t, actionPolicy)
	ctx := context.Background()
	now := time.Now().UTC()
	p := w.submit(w.request(1200), now, true)
	w.wantUsage("USD", 1, 1200)
	if err := db.AgentDelete(ctx, w.pool, w.platform, w.agent.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	got, err := db.AgentActionDecide(ctx, w.pool, p.ID, agent.Decision{Approve: true}, time.Now(), true)
	if err != nil {
		t.Fatal(err)
	}
	wantAction(t, got, agent.Failed, agent.FailureAgentDeleted, true)
	if got.Transaction != nil {
		t.Fatalf("a transaction for an action of a deleted agent: %+v", got.Transaction)
	}
	w.wantUsage("USD", 0, 0)
}
