package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/agent"
	"paycore/internal/agentpolicy"
	"paycore/internal/events"
	"paycore/internal/transfer"
)

// ActionJudge applies the agent's policy to an action of amount in currency from (or, for
// a transfer in, to) the internal account accountID, the agent's usage being u (locked, as
// it stands now, in the policy currency): it returns the amount to reserve in the policy
// currency and whether the action waits for approval, or the refusal.
type ActionJudge func(p agentpolicy.Policy, u agentpolicy.Usage, amount int64, currency string, accountID uuid.UUID) (int64, agentpolicy.Decision, error)

// AgentActionFull is an action with what it is rendered with: its quote (EXECUTE_QUOTE)
// and its transaction once it exists and the action was executed.
type AgentActionFull struct {
	AgentAction
	Quote       *QuoteWithTransaction
	Transaction *Transaction
	// PlatformCustomerID is the platform's own id of the action's customer.
	PlatformCustomerID string
}

// AgentActionViews renders an action for its webhook event.
type AgentActionViews interface {
	AgentAction(a AgentActionFull) any
}

// AgentActionSubmit writes a new agent action with the reservation of its amount in the
// agent's usage, in one database transaction, and returns it. Under the agent's row
// (shared: a policy change waits) and the usage row's lock it checks that the agent is
// live and not paused, that the quote or accounts belong to its customer and can move
// money now (the quote rule's and the transfer rule's own checks), then judge applies the
// policy; a refusal writes nothing. An action that waits for approval is PENDING_APPROVAL
// with its expiry and records the AGENT_ACTION_PENDING_APPROVAL event; any other is
// APPROVED, to be executed at once. Submitting again for a workflow that submitted an
// action returns that action unchanged.
func (s Store) AgentActionSubmit(ctx context.Context, n agent.Request, now time.Time, judge ActionJudge) (AgentActionFull, error) {
	var out AgentActionFull
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		// An action its workflow submitted already (a retried step, or a request repeating
		// an Idempotency-Key whose first workflow is gone) is answered as it is.
		if a, err := q.AgentActionGetByWorkflow(ctx, AgentActionGetByWorkflowParams{PlatformID: n.PlatformID, WorkflowID: n.WorkflowID}); err == nil {
			if a.AgentID != n.AgentID {
				return agent.ErrActionNotFound()
			}
			out, err = agentActionFull(ctx, q, a)
			return err
		} else if !IsNotFound(err) {
			return fmt.Errorf("read agent action: %w", err)
		}
		ag, err := q.AgentShareLive(ctx, AgentShareLiveParams{PlatformID: n.PlatformID, ID: n.AgentID})
		if err != nil && !IsNotFound(err) {
			return fmt.Errorf("lock agent: %w", err)
		}
		if err := (agent.Actor{Deleted: IsNotFound(err), Paused: ag.IsPaused}).CheckSubmit(); err != nil {
			return err
		}
		policy, err := agentpolicy.Decode(ag.Policy)
		if err != nil {
			return err
		}
		p, err := actionPayment(ctx, q, ag, n, now)
		if err != nil {
			return err
		}
		u, err := lockUsage(ctx, q, ag.ID, now, policy.SpendingLimits.Currency)
		if err != nil {
			return err
		}
		u = u.At(now).In(policy.SpendingLimits.Currency, now)
		reserved, decision, err := judge(policy, u, p.amount, p.currency, p.account)
		if err != nil {
			return err
		}
		if _, err := reserveUsage(ctx, q, ag.ID, u, now, reserved, policy.Limits()); err != nil {
			return err
		}
		params := AgentActionInsertParams{ID: n.ActionID, WorkflowID: n.WorkflowID, PlatformID: n.PlatformID, AgentID: ag.ID, CustomerID: ag.CustomerID, Type: n.Type,
			Status: agent.Approved, QuoteID: n.QuoteID, TransactionID: p.transaction, InternalAccountID: p.account,
			ExternalAccountID: n.ExternalAccountID, Amount: p.amount, Currency: p.currency, Description: optional(n.Description),
			ReservedAmount: reserved, ReservedCurrency: policy.SpendingLimits.Currency, ReservedAt: now}
		if decision.NeedsApproval {
			expires := now.Add(n.ApprovalLifetime)
			params.Status, params.ApprovalExpiresAt = agent.PendingApproval, &expires
		}
		a, err := q.AgentActionInsert(ctx, params)
		if ConstraintViolated(err, "agent_actions_live_transaction_idx") {
			return agent.QuoteTaken()
		}
		if err != nil {
			return fmt.Errorf("create agent action: %w", err)
		}
		if out, err = agentActionFull(ctx, q, a); err != nil {
			return err
		}
		if a.Status == agent.PendingApproval {
			if _, err := eventRecord(ctx, q, a.PlatformID, events.AgentActionPendingApproval, s.views.AgentAction(out), nil); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// actionPayment is what an action moves, as its quote or accounts say under their locks.
type actionPaymentOf struct {
	transaction uuid.UUID
	account     uuid.UUID
	amount      int64
	currency    string
}

// actionPayment reads the quote or the accounts an action names, under their locks, and
// lets the agent's rules check them against its customer (agent.Owner: another customer's
// is 404, money leaving an embedded wallet 403) and the quote rule or the transfer rule
// (balance included) check what it moves; it returns what the action moves.
func actionPayment(ctx context.Context, q *queries, ag Agent, n agent.Request, now time.Time) (actionPaymentOf, error) {
	owner := agent.Owner{PlatformID: ag.PlatformID, CustomerID: ag.CustomerID}
	if n.Type == agent.ExecuteQuote {
		p, err := lockPayment(ctx, q, paymentKey{quote: n.QuoteID.UUID})
		if err != nil && !IsNotFound(err) {
			return actionPaymentOf{}, err
		}
		var qt Quote
		if p.Quote != nil {
			qt = *p.Quote
		}
		t := p.Transaction
		if err := owner.CheckQuote(agent.QuoteOwner{Found: err == nil, PlatformID: qt.PlatformID, CustomerID: qt.CustomerID}); err != nil {
			return actionPaymentOf{}, err
		}
		if _, err := QuoteSnapshot(qt, t).Execute("", now, true); err != nil {
			return actionPaymentOf{}, err
		}
		source, err := q.InternalAccountOwner(ctx, InternalAccountOwnerParams{PlatformID: ag.PlatformID, ID: qt.SourceAccountID.UUID})
		if err != nil {
			return actionPaymentOf{}, fmt.Errorf("read internal account: %w", err)
		}
		if err := agent.CheckDebit(source.Type, qt.SourceAccountID.UUID); err != nil {
			return actionPaymentOf{}, err
		}
		return actionPaymentOf{transaction: t.ID, account: qt.SourceAccountID.UUID, amount: t.Amount, currency: t.Currency}, nil
	}
	kind := transfer.Out
	if n.Type == agent.TransferIn {
		kind = transfer.In
	}
	acc, err := transferAccountsGet(ctx, q, ag.PlatformID, n.InternalAccountID, n.ExternalAccountID.UUID)
	if err != nil {
		return actionPaymentOf{}, err
	}
	if err := owner.CheckTransfer(kind, acc); err != nil {
		return actionPaymentOf{}, err
	}
	r := transfer.Request{Kind: kind, PlatformID: ag.PlatformID, InternalAccountID: n.InternalAccountID, ExternalAccountID: n.ExternalAccountID.UUID, Amount: n.Amount,
		PaymentRail: n.PaymentRail}
	if err := transfer.Check(r, acc); err != nil {
		return actionPaymentOf{}, err
	}
	return actionPaymentOf{transaction: agent.TransferTransactionID(n.ActionID), account: n.InternalAccountID, amount: n.Amount, currency: acc.Internal.Currency}, nil
}

// AgentActionDecide applies the platform's decision to an action (changeAction →
// agent.Action.Decide): approval makes a pending action APPROVED (to be executed), or
// FAILED when its agent was paused or deleted meanwhile; rejection makes it REJECTED with
// the reason, its reservation given back. The machine's refusal (409
// AGENT_ACTION_NOT_PENDING: decided already, or at or after its approvalExpiresAt, or with
// open false, the action's workflow having ended) is returned as it is, with nothing
// written.
func AgentActionDecide(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID, d agent.Decision, now time.Time, open bool) (AgentActionFull, error) {
	return changeAction(ctx, pool, id, now, func(q *queries, a AgentAction) (agent.Next, bool, error) {
		var actor agent.Actor
		if d.Approve && a.Status == agent.PendingApproval {
			var err error
			if actor, err = agentActionActor(ctx, q, a.AgentID); err != nil {
				return agent.Next{}, false, err
			}
		}
		next, err := ActionState(a).Decide(d, actor, now, open)
		return next, err == nil, err
	})
}

// AgentActionFail ends an action that is in one of from FAILED with reason (its approval
// expired, its execution was refused), its reservation given back at now (changeAction →
// agent.Action.Fail). An action in another status is returned as it is.
func AgentActionFail(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID, reason string, now time.Time, from ...agent.ActionStatus) (AgentActionFull, error) {
	return changeAction(ctx, pool, id, now, failAction(reason, from...))
}

// actionDecision decides one change of the agent action a, locked in q's database
// transaction (it may read more there): the next state, ok false when there is nothing to
// write, or the machine's refusal.
type actionDecision func(q *queries, a AgentAction) (agent.Next, bool, error)

// failAction is the decision that ends an action in one of from FAILED with reason.
func failAction(reason string, from ...agent.ActionStatus) actionDecision {
	return func(_ *queries, a AgentAction) (agent.Next, bool, error) {
		next, ok := ActionState(a).Fail(reason, from...)
		return next, ok, nil
	}
}

// changeAction is every change of an agent action after its submission, in one database
// transaction: lock the action, decide and apply (decideAction) at now, and return it with
// what it is rendered with. (The money an action moves is a payment's, changed through
// lockPayment like any other.)
func changeAction(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID, now time.Time, decide actionDecision) (AgentActionFull, error) {
	var out AgentActionFull
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		a, err := q.AgentActionLock(ctx, id)
		if err != nil {
			return fmt.Errorf("lock agent action: %w", err)
		}
		if a, err = decideAction(ctx, q, a, now, decide); err != nil {
			return err
		}
		out, err = agentActionFull(ctx, q, a)
		return err
	})
	return out, err
}

// decideAction lets decide (the action's state machine) judge the locked action a and
// applies what it returned at now (applyAction); it returns the action afterwards.
func decideAction(ctx context.Context, q *queries, a AgentAction, now time.Time, decide actionDecision) (AgentAction, error) {
	next, ok, err := decide(q, a)
	if err != nil || !ok {
		return a, err
	}
	return applyAction(ctx, q, a, next, now)
}

// ActionState is what the agent action's state machine reads of a stored action.
func ActionState(a AgentAction) agent.Action {
	return agent.Action{Status: a.Status, FailureReason: Deref(a.FailureReason), ApprovalExpiresAt: a.ApprovalExpiresAt}
}

// AgentActionRead reads an action with what it is rendered with.
func AgentActionRead(ctx context.Context, d DBTX, id uuid.UUID) (AgentActionFull, error) {
	q := newQueries(d)
	a, err := q.AgentActionGetByID(ctx, id)
	if IsNotFound(err) {
		return AgentActionFull{}, agent.ErrActionNotFound()
	}
	if err != nil {
		return AgentActionFull{}, fmt.Errorf("read agent action: %w", err)
	}
	return agentActionFull(ctx, q, a)
}

// AgentActionGetFull reads an action of the platform's agent (404 AGENT_ACTION_NOT_FOUND
// for any other) with what it is rendered with.
func AgentActionGetFull(ctx context.Context, d DBTX, platformID, agentID, id uuid.UUID) (AgentActionFull, error) {
	q := newQueries(d)
	a, err := q.AgentActionGet(ctx, AgentActionGetParams{PlatformID: platformID, AgentID: agentID, ID: id})
	if IsNotFound(err) {
		return AgentActionFull{}, agent.ErrActionNotFound()
	}
	if err != nil {
		return AgentActionFull{}, fmt.Errorf("read agent action: %w", err)
	}
	return agentActionFull(ctx, q, a)
}

// applyAction moves locked action a as the state machine decided (next), from the status
// it was read in: a reservation to give back is given back once, with the move, marked
// given back at now.
func applyAction(ctx context.Context, q *queries, a AgentAction, next agent.Next, now time.Time) (AgentAction, error) {
	if next.Release && a.ReleasedAt == nil {
		if _, err := releaseUsage(ctx, q, a.AgentID, a.ReservedAt, a.ReservedAmount, a.ReservedCurrency); err != nil {
			return a, err
		}
	}
	out, err := q.AgentActionSetStatus(ctx, AgentActionSetStatusParams{ID: a.ID, Status: next.Status, RejectionReason: optional(next.Rejection),
		FailureReason: optional(next.Failure), Release: next.Release, Now: now, FromStatuses: []string{string(a.Status)}})
	if err != nil {
		return a, fmt.Errorf("set agent action %s: %w", next.Status, err)
	}
	return out, nil
}

// agentActionTransactionEnded ends FAILED the approved agent action whose transaction t
// is, when t ended without moving money (agent.TransactionEnded), giving its reservation
// back at now (decideAction, as changeAction does); it runs in the transaction that ends t,
// under t's lock.
func agentActionTransactionEnded(ctx context.Context, q *queries, t Transaction, now time.Time) error {
	if !t.AgentID.Valid {
		return nil
	}
	reason, ok := agent.TransactionEnded(t.Status, Deref(t.FailureReason))
	if !ok {
		return nil
	}
	a, err := q.AgentActionLockLiveByTransaction(ctx, t.ID)
	if IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("lock agent action of transaction: %w", err)
	}
	_, err = decideAction(ctx, q, a, now, failAction(reason, agent.Approved))
	return err
}

// agentActionFull adds to an action its quote and, once executed, its transaction.
func agentActionFull(ctx context.Context, q *queries, a AgentAction) (AgentActionFull, error) {
	out, err := agentActionsFull(ctx, q, []AgentAction{a})
	if err != nil {
		return AgentActionFull{}, err
	}
	return out[0], nil
}

// agentActionsFull adds to actions what they are rendered with, in three reads whatever
// their number: their customers' platform ids, their quotes, and the transactions they
// made (a transaction shows once the action executed it: never while it waits or after a
// rejection, and a quote's transaction, which exists before, only once the action's agent
// executed it).
func agentActionsFull(ctx context.Context, q *queries, actions []AgentAction) ([]AgentActionFull, error) {
	var customers, quotes, txs []uuid.UUID
	for _, a := range actions {
		customers = append(customers, a.CustomerID)
		if a.QuoteID.Valid {
			quotes = append(quotes, a.QuoteID.UUID)
		}
		if a.Status == agent.Approved || a.Status == agent.Failed {
			txs = append(txs, a.TransactionID)
		}
	}
	refs, err := q.AgentActionCustomerRefs(ctx, customers)
	if err != nil {
		return nil, fmt.Errorf("read action customers: %w", err)
	}
	refOf := make(map[uuid.UUID]string, len(refs))
	for _, r := range refs {
		refOf[r.ID] = r.PlatformCustomerID
	}
	quoteOf := map[uuid.UUID]QuoteWithTransaction{}
	if len(quotes) > 0 {
		rows, err := q.AgentActionQuotes(ctx, quotes)
		if err != nil {
			return nil, fmt.Errorf("read action quotes: %w", err)
		}
		for _, r := range rows {
			quoteOf[r.Quote.ID] = QuoteWithTransaction(r)
		}
	}
	txOf := map[uuid.UUID]Transaction{}
	if len(txs) > 0 {
		rows, err := q.AgentActionTransactions(ctx, txs)
		if err != nil {
			return nil, fmt.Errorf("read action transactions: %w", err)
		}
		for _, t := range rows {
			txOf[t.ID] = t
		}
	}
	out := make([]AgentActionFull, len(actions))
	for i, a := range actions {
		out[i] = AgentActionFull{AgentAction: a, PlatformCustomerID: refOf[a.CustomerID]}
		if qt, ok := quoteOf[a.QuoteID.UUID]; ok && a.QuoteID.Valid {
			out[i].Quote = &qt
		}
		if t, ok := txOf[a.TransactionID]; ok && t.AgentID == (uuid.NullUUID{UUID: a.AgentID, Valid: true}) && (a.Status == agent.Approved || a.Status == agent.Failed) {
			out[i].Transaction = &t
		}
	}
	return out, nil
}

// Deref is *p, or the zero value for nil (a nullable column: "" for text, 0 for a number).
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// AgentActionFilter selects agent actions of one platform; zero fields do not filter.
type AgentActionFilter struct {
	PlatformID uuid.UUID
	AgentID    uuid.NullUUID
	CustomerID uuid.NullUUID
	Status     *agent.ActionStatus
	// CreatedAfter and CreatedBefore bound createdAt (inclusive).
	CreatedAfter, CreatedBefore *time.Time
}

// AgentActionPage reads one page of agent actions, newest first unless p.Asc, counted row
// by row, each with what it is rendered with.
func AgentActionPage(ctx context.Context, conn ListDB, f AgentActionFilter, p Page[IDPos]) (Result[AgentActionFull], error) {
	lq := listQuery{from: "agent_actions a", alias: "a", columns: "a.*",
		dates: dateRange{column: "created_at", from: f.CreatedAfter, to: f.CreatedBefore}}
	lq.and("a.platform_id = ?", f.PlatformID)
	if f.AgentID.Valid {
		lq.and("a.agent_id = ?", f.AgentID.UUID)
	}
	if f.CustomerID.Valid {
		lq.and("a.customer_id = ?", f.CustomerID.UUID)
	}
	if f.Status != nil {
		lq.and("a.status = ?", string(*f.Status))
	}
	res, err := listByID(ctx, conn, lq, p, pgx.RowToStructByPos[AgentAction])
	if err != nil {
		return Result[AgentActionFull]{}, err
	}
	rows, err := agentActionsFull(ctx, newQueries(conn), res.Rows)
	return Result[AgentActionFull]{Rows: rows, HasMore: res.HasMore, Total: res.Total}, err
}
