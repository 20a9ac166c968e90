package db

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/payment"
)

// paymentKey names the payment a change locks: by its transaction, or by its quote (whose
// row is locked first, then its transaction's). withCounterpart also locks the receiving
// side's transaction of a payment between customers on this deployment.
type paymentKey struct {
	transaction     uuid.UUID
	quote           uuid.UUID
	withCounterpart bool
}

// lockedPayment is a payment as read under its locks: its transaction, its quote (when it
// has one; locked only when the payment was locked by its quote), and its counterpart's
// transaction when asked for.
type lockedPayment struct {
	Transaction Transaction
	Quote       *Quote
	Counterpart *Transaction
}

// lockPayment is the one locking entry point of every change to a created payment
// (transfers, quotes, incoming payments, and agent actions through them). Locks are always
// taken in the same order: quote, transaction, counterpart, then (when the plan is applied)
// ledger accounts in id order. Locking by transaction reads the quote of a deposit-funded
// payment without locking it: its deposit is set once, before the payment starts, and
// locking it there would take the two locks in the opposite order.
func lockPayment(ctx context.Context, q *queries, k paymentKey) (lockedPayment, error) {
	var p lockedPayment
	id := k.transaction
	if k.quote != uuid.Nil {
		qt, err := q.QuoteLock(ctx, k.quote)
		if err != nil {
			return p, fmt.Errorf("lock quote: %w", err)
		}
		p.Quote, id = &qt, qt.TransactionID
	}
	t, err := q.TransactionGetForUpdate(ctx, id)
	if err != nil {
		return p, fmt.Errorf("lock transaction: %w", err)
	}
	p.Transaction = t
	if p.Quote == nil && t.QuoteID.Valid && t.SourceKind == string(catalog.EndpointRealtimeFunding) {
		row, err := q.QuoteGetByID(ctx, t.QuoteID.UUID)
		if err != nil {
			return p, fmt.Errorf("read quote: %w", err)
		}
		p.Quote = &row.Quote
	}
	if k.withCounterpart && t.CounterpartTransactionID.Valid {
		c, err := q.TransactionGetForUpdate(ctx, t.CounterpartTransactionID.UUID)
		if err != nil {
			return p, fmt.Errorf("lock counterpart: %w", err)
		}
		p.Counterpart = &c
	}
	return p, nil
}

// Snapshot is the payment as its decisions (package payment) read it.
func (p lockedPayment) Snapshot() payment.Snapshot {
	t := p.Transaction
	s := payment.Snapshot{ID: t.ID, Type: t.Type, Status: t.Status, Currency: t.Currency, Amount: t.Amount,
		RefundStatus: Deref(t.RefundStatus), Counterpart: t.CounterpartTransactionID}
	if t.SourceKind == string(catalog.EndpointInternal) {
		s.Source = t.SourceAccountID
	}
	if t.DestinationKind != string(catalog.EndpointExternal) {
		s.Destination = t.DestinationAccountID // an internal account, here or on another platform
	}
	if t.ReceivingCurrency != nil && t.ReceivingAmount != nil && t.Fees != nil {
		s.Conversion = &payment.Conversion{ReceivingCurrency: *t.ReceivingCurrency, ReceivingAmount: *t.ReceivingAmount, Fees: *t.Fees}
	}
	if t.SourceKind == string(catalog.EndpointRealtimeFunding) {
		s.Deposit = &payment.Deposit{}
		if p.Quote != nil && p.Quote.DepositAmount != nil {
			s.Deposit.Received, s.Deposit.Amount = true, *p.Quote.DepositAmount
		}
	}
	if p.Counterpart != nil {
		s.CounterpartStatus = p.Counterpart.Status
	}
	return s
}

// applyPlan applies what a decision planned for the locked payment p, in the caller's
// database transaction, in the plan's order (see payment.Plan), and returns the payment's
// transaction afterwards. The webhook events are rendered from the rows as they are after
// each change. A ledger refusal (ErrAccountClosed, ErrInsufficientFunds,
// ErrWalletSignatureRequired) comes before anything of the plan is written except the
// quote's record and the executing agent, so a caller may decide again.
func applyPlan(ctx context.Context, q *queries, v Views, p lockedPayment, plan payment.Plan, now time.Time) (Transaction, error) {
	t := p.Transaction
	if c := plan.Quote; c != nil {
		if c.Deposit {
			if err := q.QuoteRecordDeposit(ctx, QuoteRecordDepositParams{ID: t.QuoteID.UUID, Amount: &c.DepositAmount, Key: &c.DepositKey}); err != nil {
				return t, fmt.Errorf("record deposit: %w", err)
			}
		}
		if c.ExecuteKey != "" {
			if err := q.QuoteMarkExecuted(ctx, QuoteMarkExecutedParams{ID: t.QuoteID.UUID, ExecuteKey: &c.ExecuteKey}); err != nil {
				return t, fmt.Errorf("mark quote executed: %w", err)
			}
		}
	}
	if plan.Agent.Valid {
		if err := q.TransactionSetAgent(ctx, TransactionSetAgentParams{ID: t.ID, AgentID: plan.Agent.Null()}); err != nil {
			return t, fmt.Errorf("record the executing agent: %w", err)
		}
	}
	if h := plan.Hold; h != nil {
		req := holdRequest{TransactionID: t.ID, PlatformID: t.PlatformID, Account: h.Account, Currency: t.Currency, Amount: h.Amount,
			WalletSignature: h.WalletSignature, SignatureKind: h.SignatureKind}
		if err := holdFunds(ctx, q, req, v); err != nil {
			return t, err
		}
	}
	if err := applyLegs(ctx, q, v, t, plan.Legs); err != nil {
		return t, err
	}
	if c := plan.Status; c != nil {
		var err error
		if t, err = applyStatus(ctx, q, v, t, c, now); err != nil {
			return t, err
		}
	}
	if c := plan.Counterpart; c != nil {
		if p.Counterpart == nil {
			return t, fmt.Errorf("transaction %s: its counterpart was not locked", t.ID)
		}
		if _, err := applyStatus(ctx, q, v, *p.Counterpart, c, now); err != nil {
			return t, fmt.Errorf("end counterpart: %w", err)
		}
	}
	for _, r := range plan.Refunds {
		var err error
		if r.Open != "" {
			t, err = q.TransactionRefundStart(ctx, TransactionRefundStartParams{ID: t.ID, Reason: &r.Open})
		} else {
			t, err = q.TransactionRefundEnd(ctx, TransactionRefundEndParams{ID: t.ID, Status: &r.End})
		}
		if err != nil {
			return t, fmt.Errorf("change refund: %w", err)
		}
		if err := recordTransaction(ctx, q, v, t, r.Webhook); err != nil {
			return t, err
		}
	}
	return t, nil
}

// applyLegs posts a plan's legs for transaction t, all at once, with the system accounts
// they name resolved for t's platform, and announces each internal account they touch
// with its balance afterwards.
func applyLegs(ctx context.Context, q *queries, v Views, t Transaction, legs []payment.Leg) error {
	if len(legs) == 0 {
		return nil
	}
	resolved := make([]Leg, len(legs))
	var touched []uuid.UUID
	for i, l := range legs {
		resolved[i].Currency = l.Currency
		for _, m := range l.Moves {
			id := m.Account.ID
			if !m.Account.IsInternal() {
				a, err := ledgerSystemAccount(ctx, q, t.PlatformID, l.Currency, m.Account.System)
				if err != nil {
					return err
				}
				id = a.ID
			} else if !slices.Contains(touched, id) {
				touched = append(touched, id)
			}
			resolved[i].Moves = append(resolved[i].Moves, Move{Account: id, Amount: m.Amount, Held: m.Held})
		}
	}
	var after map[uuid.UUID]LedgerAccount
	var err error
	if len(resolved) == 1 {
		after, err = ledgerApplyAccounts(ctx, q, t.ID, resolved[0].Currency, resolved[0].Moves)
	} else {
		after, err = ledgerApplyLegs(ctx, q, t.ID, resolved)
	}
	if err != nil {
		return fmt.Errorf("post transaction %s: %w", t.ID, err)
	}
	for _, id := range touched {
		if err := recordBalance(ctx, q, v, after[id].PlatformID, after[id]); err != nil {
			return err
		}
	}
	return nil
}

// applyStatus applies change c to t, locked by the caller, through the status table, and
// records its webhook event.
func applyStatus(ctx context.Context, q *queries, v Views, t Transaction, c *payment.StatusChange, now time.Time) (Transaction, error) {
	var set TransactionSetStatusParams
	if c.Settled {
		set.SettledAt = &now
	}
	set.FailureReason, set.FailureDetail = optional(c.FailureReason), optional(c.FailureDetail)
	out, err := changeStatus(ctx, q, t, c.Event, set)
	if err != nil {
		return out, fmt.Errorf("change transaction %s status: %w", t.ID, err)
	}
	if out.Status != c.To {
		return out, fmt.Errorf("transaction %s: %s moved it to %s, not %s", t.ID, c.Event, out.Status, c.To)
	}
	if c.Webhook == "" {
		return out, nil
	}
	return out, recordTransaction(ctx, q, v, out, c.Webhook)
}
