package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/internal/catalog"
	"paycore/internal/incoming"
	"paycore/internal/kyc"
	"paycore/internal/paylimits"
	"paycore/internal/payment"
	"paycore/internal/quote"
	"paycore/internal/rail"
	"paycore/internal/sandbox"
)

// This file is every change to a created payment: the operations (a transfer's processing
// and finish, an incoming payment's finish, a quote's execution, deposit, expiry, finish,
// return and refund), each lock → decide → apply, and the three they share: lockPayment
// (the one locking entry point), lockedPayment.Snapshot (what the decisions of package
// payment read) and applyPlan (the one writer). Creating a payment is in transactions.go,
// quotes.go and incoming.go.

// TransactionMarkProcessing moves a PENDING transaction to PROCESSING, recording the
// OUTGOING_PAYMENT_PROCESSING event of an outgoing one (incoming payments have none)
// (lockPayment → payment.Snapshot.MarkProcessing → applyPlan). It returns the status the
// transaction has afterwards: not PROCESSING when an earlier run finished it.
func (s Store) TransactionMarkProcessing(ctx context.Context, id uuid.UUID, now time.Time) (catalog.TransactionStatus, error) {
	t, err := s.change(ctx, paymentKey{transaction: id}, now, func(_ *queries, p lockedPayment) (payment.Plan, bool, error) {
		plan, ok := p.Snapshot().MarkProcessing()
		return plan, ok, nil
	}, nil, nil)
	return t.Status, err
}

// TransactionPending records why the payment id, waiting at its rail, is pending
// (pendingReason); any later change of its status clears it. A payment that has ended is
// left as it is.
func (s Store) TransactionPending(ctx context.Context, id uuid.UUID, reason string) error {
	_, err := newQueries(s.pool).TransactionSetPendingReason(ctx, TransactionSetPendingReasonParams{ID: id, PendingReason: &reason})
	if err != nil && !IsNotFound(err) {
		return fmt.Errorf("record the pending reason of %s: %w", id, err)
	}
	return nil
}

// TransactionFinish ends a PENDING or PROCESSING transaction with out in one database
// transaction (lockPayment → payment.Snapshot.FinishTransfer → applyPlan). COMPLETED posts
// it: an outgoing transaction's hold is captured into the platform's settlement account,
// an incoming one credits its internal account from it. Any other end releases an outgoing
// transaction's hold. Then come the final status (settledAt, or failureDetails "<code>:
// <message>"), the balance event and the payment's final event. Finishing a finished
// transaction changes nothing and returns it. An incoming payment whose internal account
// was closed meanwhile is FAILED (ACCOUNT_CLOSED) whatever out says, crediting nothing
// (payment.Snapshot.CreditRefused): closing refuses an account with incoming money on the
// way, so this is defence in depth.
func (s Store) TransactionFinish(ctx context.Context, id uuid.UUID, out sandbox.Outcome, now time.Time) (Transaction, error) {
	return s.change(ctx, paymentKey{transaction: id}, now, func(_ *queries, p lockedPayment) (payment.Plan, bool, error) {
		return p.Snapshot().FinishTransfer(out)
	}, func(snap payment.Snapshot) (payment.Plan, bool, error) {
		return snap.CreditRefused(out, nil)
	}, nil)
}

// changeStatus applies event to t, locked and read by the caller: the status table
// (catalog.TransactionChange) decides t's next status, a *catalog.TransitionRefusal when
// it allows none, and the UPDATE, guarded by t's status, writes it with set's other
// columns (failure, settledAt).
func changeStatus(ctx context.Context, q *queries, t Transaction, event catalog.TransactionEvent, set TransactionSetStatusParams) (Transaction, error) {
	to, err := catalog.TransactionChange(t.Status, event)
	if err != nil {
		return t, err
	}
	set.ID, set.Status, set.FromStatuses = t.ID, to, []string{string(t.Status)}
	return q.TransactionSetStatus(ctx, set)
}

// IncomingFinish ends an incoming payment with the platform's decision, in one database
// transaction, as a transfer in ends (payment.Snapshot.FinishIncoming): approved, the
// receiver's details recorded and the account credited; otherwise REJECTED or FAILED with
// the reason, nothing credited. Finishing a finished payment changes nothing and returns
// it.
func (s Store) IncomingFinish(ctx context.Context, id uuid.UUID, d incoming.Decision, now time.Time) (Transaction, error) {
	var receiver map[string]string
	if d.Approved {
		receiver = d.ReceiverInfo
	}
	return s.change(ctx, paymentKey{transaction: id}, now, func(_ *queries, p lockedPayment) (payment.Plan, bool, error) {
		return p.Snapshot().FinishIncoming(d.Outcome(), receiver)
	}, func(snap payment.Snapshot) (payment.Plan, bool, error) {
		return snap.CreditRefused(d.Outcome(), receiver)
	}, func(q *queries) error {
		if d.Funds == "" {
			return nil
		}
		// A collected payment's invoice records the payment its money went to.
		if err := q.LightningInvoiceCollected(ctx, uuid.NullUUID{UUID: id, Valid: true}); err != nil {
			return fmt.Errorf("mark the payment's invoice collected: %w", err)
		}
		return nil
	})
}

// QuoteExecute executes a quote in one database transaction: under the quote's lock
// (lockPayment) the quote's state machine (quote.State.Execute) decides, and when it holds
// the quote the execution's plan (payment.Snapshot.ExecuteQuote) holds the sending amount
// on the source account (an embedded wallet only with the used signed retry
// walletSignature, bound to the quote's transaction), records who executed it (key) and
// moves the transaction to PROCESSING with its events. The same request again (its key)
// changes nothing and returns the quote; anything else the machine refuses (another
// request executed it, it expired or ended) is its refusal.
//
// open says whether the quote's workflow still runs: the API asks with open false when
// the workflow has ended, for the answer to a repeat or the refusal, never a hold.
//
// An execution by an agent's action (e.AgentID) records the agent on the transaction. The
// paying customer must still be APPROVED (locked, so an identity change that sends it back
// through verification is either before or after): a quote made before such a change is
// not executed for the new identity.
func (s Store) QuoteExecute(ctx context.Context, quoteID uuid.UUID, e quote.Execution, now time.Time, open bool) (QuoteWithTransaction, error) {
	return s.changeQuote(ctx, quoteID, now, func(q *queries, p lockedPayment) (payment.Plan, bool, error) {
		t := p.Transaction
		step, err := QuoteSnapshot(*p.Quote, t).Execute(e.Key, now, open)
		if err != nil || step != quote.StepHold {
			return payment.Plan{}, false, err
		}
		if t.CustomerID.Valid {
			payer, _, err := lockCustomer(ctx, q, t.PlatformID, t.CustomerID.UUID)
			if err != nil {
				return payment.Plan{}, false, err
			}
			if err := kyc.Ready(payer.ID, payer.KycStatus); err != nil {
				return payment.Plan{}, false, err
			}
		}
		plan, err := p.Snapshot().ExecuteQuote(e.Key, e.WalletSignature, e.AgentID)
		return plan, err == nil, err
	})
}

// Deposit is what a deposit for a quote did: Matches when it was the quote's total and
// started the payment, Late when it came after the quote expired (it was sent back at
// once).
type Deposit struct {
	Transaction Transaction
	Matches     bool
	Late        bool
}

// QuoteFund records deposit d for a REALTIME_FUNDING quote (the sandbox's simulated
// payment), in one database transaction. On time, the money comes in from the
// sandbox funding account to the platform's DEPOSITS account, held for the payment, and
// the quote is executed (PROCESSING). Late (the quote expired, or expires as it arrives),
// the money comes in and goes straight back, and the expired transaction records the
// refund (TIMEOUT). The quote's state machine (quote.State.Fund) decides which, under the
// quote's lock, and payment.Snapshot.FundQuote plans it: the same deposit again (its key)
// is answered as it was recorded; a second one is refused. open is as for QuoteExecute.
func (s Store) QuoteFund(ctx context.Context, quoteID uuid.UUID, d quote.Deposit, now time.Time, open bool) (Deposit, error) {
	var out Deposit
	t, err := s.change(ctx, paymentKey{quote: quoteID}, now, func(_ *queries, p lockedPayment) (payment.Plan, bool, error) {
		f, err := QuoteSnapshot(*p.Quote, p.Transaction).Fund(d, now, open)
		if err != nil {
			return payment.Plan{}, false, err
		}
		if f.Step == quote.StepRepeat { // recorded by an earlier run of this step
			out.Matches, out.Late = f.Matches, f.Late
			return payment.Plan{}, false, nil
		}
		late := f.Step == quote.StepSendBack
		out.Late, out.Matches = late, f.Matches && !late
		plan, err := p.Snapshot().FundQuote(d, late)
		return plan, err == nil, err
	}, nil, nil)
	out.Transaction = t
	return out, err
}

// QuoteExpire is a quote's timer firing (quote.State.Expire, under the quote's lock): a
// quote nobody executed in time ends, its transaction EXPIRED with QUOTE_EXPIRED and the
// OUTGOING_PAYMENT_EXPIRED event. An executed quote, or one a late deposit already ended,
// is left as it is. It returns the quote afterwards.
func (s Store) QuoteExpire(ctx context.Context, quoteID uuid.UUID, now time.Time) (QuoteWithTransaction, error) {
	return s.changeQuote(ctx, quoteID, now, func(_ *queries, p lockedPayment) (payment.Plan, bool, error) {
		if QuoteSnapshot(*p.Quote, p.Transaction).Expire() != quote.StepExpire {
			return payment.Plan{}, false, nil
		}
		c, ok := p.Snapshot().Expire()
		return payment.Plan{Status: c}, ok, nil
	})
}

// changeQuote is change for a quote, returning the quote afterwards (read in the same
// database transaction).
func (s Store) changeQuote(ctx context.Context, quoteID uuid.UUID, now time.Time, decide decision) (QuoteWithTransaction, error) {
	var out QuoteWithTransaction
	_, err := s.change(ctx, paymentKey{quote: quoteID}, now, decide, nil, func(q *queries) error {
		row, err := q.QuoteGetByID(ctx, quoteID)
		if err != nil {
			return fmt.Errorf("read quote: %w", err)
		}
		out = QuoteWithTransaction(row)
		return nil
	})
	return out, err
}

// QuoteFinish ends an executed quote's payment with its payout's outcome, in one database
// transaction (lockPayment → payment.Snapshot.FinishQuote → applyPlan). When the money
// left (the payout completed, or failed after the money had gone) the hold is captured and
// converted: the sending amount leaves the source, its net part for the FX account and its
// fees for the fees account of the sending currency, and the FX account of the receiving
// currency pays the receiving amount to the destination (an internal account, or the
// settlement account standing for the outside). A failure before the money left releases
// the hold, unless the outcome refunds it (the refund step then releases it). Then the
// final status, the final event, the counterpart of a payment between customers on this
// deployment ended with it, and for a refunded failure the refund opened
// (REFUND_PENDING). Finishing a finished payment changes nothing.
func (s Store) QuoteFinish(ctx context.Context, transactionID uuid.UUID, out sandbox.Outcome, now time.Time) (Transaction, error) {
	return s.change(ctx, paymentKey{transaction: transactionID, withCounterpart: true}, now, func(_ *queries, p lockedPayment) (payment.Plan, bool, error) {
		return p.Snapshot().FinishQuote(out)
	}, nil, nil)
}

// QuoteReturn fails a completed payment its receiving bank returned: FAILED with the
// return's cause, the refund opened. The refund step gives the money back.
func (s Store) QuoteReturn(ctx context.Context, transactionID uuid.UUID, out sandbox.Outcome, now time.Time) (Transaction, error) {
	return s.change(ctx, paymentKey{transaction: transactionID}, now, func(_ *queries, p lockedPayment) (payment.Plan, bool, error) {
		return p.Snapshot().Return(out)
	}, nil, nil)
}

// QuoteRefund ends a failed payment's pending refund (payment.Snapshot.Refund). When it
// fails (the sandbox's 007) the refund is FAILED and the money stays where the payout left
// it. Otherwise the sender gets the sending amount back, fees included: money that had left
// (paidOut) by reversing the conversion, money still held by releasing the hold; the
// refund is COMPLETED. A source closed since cannot take the money back: the refund fails
// and the money stays for operators. A refund that already ended changes nothing.
func (s Store) QuoteRefund(ctx context.Context, transactionID uuid.UUID, paidOut, fails bool, now time.Time) (Transaction, error) {
	return s.change(ctx, paymentKey{transaction: transactionID}, now, func(q *queries, p lockedPayment) (payment.Plan, bool, error) {
		snap := p.Snapshot()
		if c := snap.Conversion; paidOut && c != nil && c.PlatformFees > 0 {
			// What the platform can give back of its fee. Read before the ledger locks the
			// account: should it have spent more meanwhile, the ledger refuses and the step
			// is retried on what it then has.
			available, err := q.LedgerAvailable(ctx, c.PlatformAccount)
			if err != nil {
				return payment.Plan{}, false, fmt.Errorf("read the platform's fee account: %w", err)
			}
			c.PlatformAvailable = available
		}
		return snap.Refund(paidOut, fails)
	}, func(snap payment.Snapshot) (payment.Plan, bool, error) {
		return snap.RefundRefused(paidOut)
	}, nil)
}

// decision decides one change of the payment p, locked in q's database transaction (it
// may read more there): the plan, ok false when there is nothing to write (the change
// happened already), or the refusal.
type decision func(q *queries, p lockedPayment) (payment.Plan, bool, error)

// change is every change of a created payment, in one database transaction: lock the
// payment k (lockPayment), decide, apply the plan (applyPlan), then, still in the
// transaction, after (nil: nothing). When the ledger refuses the plan because an account
// was closed since (it refuses before anything is written), orClosed (nil: none) decides
// again from the snapshot; its ok false lets the refusal stand. It returns the payment's
// transaction afterwards (as locked when nothing was written).
func (s Store) change(ctx context.Context, k paymentKey, now time.Time, decide decision,
	orClosed func(payment.Snapshot) (payment.Plan, bool, error), after func(q *queries) error) (Transaction, error) {
	var out Transaction
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		p, err := lockPayment(ctx, q, k)
		if err != nil {
			return err
		}
		out = p.Transaction
		plan, ok, err := decide(q, p)
		if err != nil {
			return err
		}
		if ok {
			out, err = applyPlan(ctx, q, s.views, s.limits, p, plan, now)
			if errors.Is(err, ErrAccountClosed) && orClosed != nil {
				again, ok, derr := orClosed(p.Snapshot())
				if derr != nil {
					return derr
				}
				if ok {
					out, err = applyPlan(ctx, q, s.views, s.limits, p, again, now)
				}
			}
			if err != nil {
				return err
			}
		}
		if after != nil {
			return after(q)
		}
		return nil
	})
	return out, err
}

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
		s.Conversion = &payment.Conversion{ReceivingCurrency: *t.ReceivingCurrency, ReceivingAmount: *t.ReceivingAmount, Fees: *t.Fees,
			NetworkFee: Deref(t.NetworkFee), PlatformFees: Deref(t.PlatformFees), PlatformAccount: t.PlatformFeeAccountID.UUID}
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
	if t.SentCurrency != nil && t.SentAmount != nil {
		s.Sent = &payment.Sent{Currency: *t.SentCurrency, Amount: *t.SentAmount}
	}
	return s
}

// applyPlan applies what a decision planned for the locked payment p, in the caller's
// database transaction, in the plan's order (see payment.Plan), and returns the payment's
// transaction afterwards. The webhook events are rendered from the rows as they are after
// each change. A ledger refusal (ErrAccountClosed, ErrInsufficientFunds,
// ErrWalletSignatureRequired) comes before anything of the plan is written except the
// quote's record, the executing agent and the receiver's details (which a second decision
// writes again), so a caller may decide again.
func applyPlan(ctx context.Context, q *queries, v Views, limits paylimits.Limits, p lockedPayment, plan payment.Plan, now time.Time) (Transaction, error) {
	t := p.Transaction
	var o outbox // the plan's webhook events, recorded together at its end
	if c := plan.Quote; c != nil {
		if c.Deposit {
			if err := q.QuoteRecordDeposit(ctx, QuoteRecordDepositParams{ID: t.QuoteID.UUID, Amount: &c.DepositAmount, Key: &c.DepositKey}); err != nil {
				return t, fmt.Errorf("record deposit: %w", err)
			}
		}
		if c.Originator != nil {
			b, err := json.Marshal(c.Originator)
			if err != nil {
				return t, fmt.Errorf("encode the deposit's originator: %w", err)
			}
			if err := q.TransactionSetOriginator(ctx, TransactionSetOriginatorParams{ID: t.ID, Originator: b}); err != nil {
				return t, fmt.Errorf("record the deposit's originator: %w", err)
			}
		}
		if c.ExecuteKey != "" {
			if err := q.QuoteMarkExecuted(ctx, QuoteMarkExecutedParams{ID: t.QuoteID.UUID, ExecuteKey: &c.ExecuteKey, Now: now}); err != nil {
				return t, fmt.Errorf("mark quote executed: %w", err)
			}
		}
	}
	if len(plan.ReceiverInfo) > 0 {
		info, err := json.Marshal(plan.ReceiverInfo)
		if err != nil {
			return t, fmt.Errorf("encode receiver info: %w", err)
		}
		if err := q.TransactionSetReceiverInfo(ctx, TransactionSetReceiverInfoParams{ID: t.ID, Info: info}); err != nil {
			return t, fmt.Errorf("record receiver info: %w", err)
		}
	}
	if plan.Agent.Valid {
		if err := q.TransactionSetAgent(ctx, TransactionSetAgentParams{ID: t.ID, AgentID: plan.Agent.Null()}); err != nil {
			return t, fmt.Errorf("record the executing agent: %w", err)
		}
	}
	if h := plan.Hold; h != nil {
		req := holdRequest{TransactionID: t.ID, PlatformID: t.PlatformID, Account: h.Account, Currency: t.Currency, Amount: h.Amount,
			WalletSignature: h.WalletSignature, SignatureKind: h.SignatureKind, Now: now}
		if h.Payment {
			req.Limits = limits
		}
		if err := holdFunds(ctx, q, &o, req, v); err != nil {
			return t, err
		}
	}
	if err := applyLegs(ctx, q, &o, v, t, plan.Legs); err != nil {
		return t, err
	}
	var funding *rail.OnChain
	if plan.Quote != nil {
		funding = plan.Quote.OnChain
	}
	if plan.OnChain != nil || funding != nil {
		dest, err := encodeDocument(plan.OnChain, "on-chain transaction")
		if err != nil {
			return t, err
		}
		source, err := encodeDocument(funding, "on-chain deposit")
		if err != nil {
			return t, err
		}
		if err := q.TransactionSetOnChain(ctx, TransactionSetOnChainParams{ID: t.ID, Destination: dest, Source: source}); err != nil {
			return t, fmt.Errorf("record the on-chain transactions: %w", err)
		}
		if dest != nil {
			t.DestinationOnChain = dest
		}
		if source != nil {
			t.SourceOnChain = source
		}
	}
	if c := plan.Status; c != nil {
		var err error
		if t, err = applyStatus(ctx, q, &o, v, t, c, now); err != nil {
			return t, err
		}
	}
	if c := plan.Counterpart; c != nil {
		if p.Counterpart == nil {
			return t, fmt.Errorf("transaction %s: its counterpart was not locked", t.ID)
		}
		if _, err := applyStatus(ctx, q, &o, v, *p.Counterpart, c, now); err != nil {
			return t, fmt.Errorf("end counterpart: %w", err)
		}
	}
	for _, r := range plan.Refunds {
		var err error
		if r.Open != "" {
			t, err = q.TransactionRefundStart(ctx, TransactionRefundStartParams{ID: t.ID, Reason: &r.Open, PaymentRequest: optional(r.PaymentRequest), Now: now})
		} else {
			t, err = q.TransactionRefundEnd(ctx, TransactionRefundEndParams{ID: t.ID, Status: &r.End, Now: now})
		}
		if err != nil {
			return t, fmt.Errorf("change refund: %w", err)
		}
		if err := recordTransaction(ctx, q, &o, v, t, r.Webhook, now); err != nil {
			return t, err
		}
	}
	return t, o.flush(ctx, q)
}

// applyLegs posts a plan's legs for transaction t, all at once, with the system accounts
// they name resolved for t's platform, and adds to o the balance event of each internal
// account they touch, with its balance afterwards.
func applyLegs(ctx context.Context, q *queries, o *outbox, v Views, t Transaction, legs []payment.Leg) error {
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
	var after map[uuid.UUID]lockedAccount
	var err error
	if len(resolved) == 1 {
		after, err = ledgerApplyAccounts(ctx, q, t.ID, resolved[0].Currency, resolved[0].Moves, nil)
	} else {
		after, err = ledgerApplyLegs(ctx, q, t.ID, resolved, nil)
	}
	if err != nil {
		return fmt.Errorf("post transaction %s: %w", t.ID, err)
	}
	for _, id := range touched {
		if err := recordBalance(ctx, q, o, v, after[id].PlatformID, after[id]); err != nil {
			return err
		}
	}
	return nil
}

// applyStatus applies change c to t, locked by the caller, through the status table, and
// adds its webhook event to o.
func applyStatus(ctx context.Context, q *queries, o *outbox, v Views, t Transaction, c *payment.StatusChange, now time.Time) (Transaction, error) {
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
	return out, recordTransaction(ctx, q, o, v, out, c.Webhook, now)
}

// createOnce is the start every payment's creation shares, in one database transaction:
// earlier looks for what an earlier attempt of the same creation wrote (found: that is the
// answer, nothing more is written); otherwise create loads, checks and writes the payment.
func (s Store) createOnce(ctx context.Context, earlier func(q *queries) (found bool, err error), create func(q *queries) error) error {
	return withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		found, err := earlier(q)
		if err != nil || found {
			return err
		}
		return create(q)
	})
}

// earlierTransaction is the transaction id, when an earlier attempt created it (found).
func earlierTransaction(ctx context.Context, q *queries, id uuid.UUID) (t Transaction, found bool, err error) {
	t, err = q.TransactionGetByID(ctx, id)
	switch {
	case IsNotFound(err):
		return Transaction{}, false, nil
	case err != nil:
		return Transaction{}, false, fmt.Errorf("read transaction: %w", err)
	}
	return t, true, nil
}
