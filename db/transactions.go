package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/platformconfig"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

// Views are how the API presents rows: the resources webhook events carry and a
// transaction's reconciliation reference. Package db/view implements them; it imports db,
// so the operations here take them as a value.
type Views interface {
	Transaction(t Transaction) any
	// IncomingPending is the event of an incoming payment awaiting approval.
	IncomingPending(t Transaction, requestedFields []string) any
	InternalAccount(a InternalAccount, balance, held int64) any
	Reference(transactionID uuid.UUID) string
}

// TransferOwner is what starting a transfer reads of its internal account before the
// transfer rule runs: the account's type (money leaving an embedded wallet needs the
// customer's signature) and its customer. An account the platform does not have reads as
// the zero TransferOwner; the create step refuses it.
type TransferOwner struct {
	Type       catalog.AccountType
	CustomerID ids.Optional
}

// TransferOwnerGet reads the TransferOwner of a platform's internal account.
func TransferOwnerGet(ctx context.Context, d DBTX, platformID, internalID uuid.UUID) (TransferOwner, error) {
	q := newQueries(d)
	row, err := q.InternalAccountOwner(ctx, InternalAccountOwnerParams{PlatformID: platformID, ID: internalID})
	if IsNotFound(err) {
		return TransferOwner{}, nil
	}
	if err != nil {
		return TransferOwner{}, fmt.Errorf("read internal account: %w", err)
	}
	return TransferOwner{Type: row.Type, CustomerID: ids.Optional(row.CustomerID)}, nil
}

// transferAccountsGet loads, in one statement, everything the transfer rule reads: the
// internal and external accounts of the platform (nil when it has no such account), the
// internal account's customer and the platform's currencies and environment.
func transferAccountsGet(ctx context.Context, q *queries, platformID, internalID, externalID uuid.UUID) (transfer.Accounts, error) {
	row, err := q.TransferContext(ctx, TransferContextParams{PlatformID: platformID, InternalID: internalID, ExternalID: externalID})
	if err != nil {
		return transfer.Accounts{}, fmt.Errorf("load transfer accounts: %w", err)
	}
	cur, err := platformconfig.DecodeCurrencies(row.SupportedCurrencies)
	if err != nil {
		return transfer.Accounts{}, err
	}
	a := transfer.Accounts{CustomerDeleted: row.CustomerDeleted, CustomerKyc: catalog.KycStatus(row.CustomerKyc), PlatformCustomerID: row.PlatformCustomerID,
		Currencies: cur, Environment: row.Environment}
	if row.InternalID.Valid {
		a.Internal = &transfer.InternalAccount{ID: row.InternalID.UUID, Type: catalog.AccountType(row.InternalType), Status: catalog.AccountStatus(row.InternalStatus),
			Currency: row.InternalCurrency, CustomerID: row.InternalCustomerID, Available: row.InternalAvailable}
	}
	if row.ExternalID.Valid {
		a.External = &transfer.ExternalAccount{ID: row.ExternalID.UUID, Status: catalog.ExternalAccountStatus(row.ExternalStatus),
			Currency: row.ExternalCurrency, CustomerID: row.ExternalCustomerID, Identifier: row.ExternalIdentifier, Type: row.ExternalAccountType}
	}
	return a, nil
}

// TransferCreate creates a transfer in one database transaction: under the internal
// account's ledger lock it loads the accounts (transferAccountsGet) and lets check refuse
// them, then writes, for a transfer out, the hold on the funds (bound to the wallet
// signature of an embedded wallet) with its balance event, the PENDING transaction and
// its webhook event. A refusal of check is returned as it is, with nothing written; a
// transfer out of an embedded wallet that no signed retry authorised is refused with
// ErrWalletSignatureRequired. Creating an existing transaction again changes nothing and
// returns it. Beside the transaction it returns what the rail step needs.
func TransferCreate(ctx context.Context, pool *pgxpool.Pool, r transfer.Request, v Views, check func(transfer.Accounts) error) (Transaction, transfer.Rail, error) {
	var out Transaction
	var rail transfer.Rail
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		// The account's ledger row lock, held until this transaction commits, orders the
		// creation against a close of the account (either the close comes first and the
		// status read next is CLOSED, or it comes after and sees this transaction) and
		// against another attempt at the same transfer, which is looked for under it.
		if _, err := q.LedgerAccountsLock(ctx, []uuid.UUID{r.InternalAccountID}); err != nil {
			return fmt.Errorf("lock ledger account: %w", err)
		}
		if t, err := q.TransactionGetByID(ctx, r.TransactionID); err == nil {
			out = t // created by an earlier attempt
			rail, err = railOf(ctx, q, t)
			return err
		} else if !IsNotFound(err) {
			return fmt.Errorf("read transaction: %w", err)
		}
		acc, err := transferAccountsGet(ctx, q, r.PlatformID, r.InternalAccountID, r.ExternalAccountID)
		if err != nil {
			return err
		}
		if err := check(acc); err != nil {
			return err
		}
		if acc.Internal == nil || acc.External == nil {
			return fmt.Errorf("transfer accounts: %w", ErrNotFound) // a check that let missing accounts through
		}
		rail = acc.Rail()
		p := TransactionCreateParams{ID: r.TransactionID, PlatformID: r.PlatformID, CustomerID: acc.Internal.CustomerID, PlatformCustomerID: acc.PlatformCustomerID,
			Kind: string(r.Kind), Type: r.Kind.Type(), Status: catalog.TxPending, Currency: acc.Internal.Currency, Amount: r.Amount, Reference: v.Reference(r.TransactionID),
			AgentID: r.AgentID.Null()}
		if r.Description != "" {
			p.Description = &r.Description
		}
		internal, external := acc.Internal.ID, acc.External.ID
		event := events.IncomingPaymentPending
		if r.Kind == transfer.Out {
			p.SourceKind, p.SourceAccountID = string(catalog.EndpointInternal), uuid.NullUUID{UUID: internal, Valid: true}
			p.DestinationKind, p.DestinationAccountID = string(catalog.EndpointExternal), uuid.NullUUID{UUID: external, Valid: true}
			event = events.OutgoingPaymentPending
			h := holdRequest{TransactionID: r.TransactionID, PlatformID: r.PlatformID, Account: acc.Internal.ID, Currency: acc.Internal.Currency,
				Amount: r.Amount, WalletSignature: r.WalletSignature, SignatureKind: string(transfer.Out)}
			if err := holdFunds(ctx, q, h, v); err != nil {
				return err
			}
		} else {
			p.SourceKind, p.SourceAccountID = string(catalog.EndpointExternal), uuid.NullUUID{UUID: external, Valid: true}
			p.DestinationKind, p.DestinationAccountID = string(catalog.EndpointInternal), uuid.NullUUID{UUID: internal, Valid: true}
		}
		t, err := q.TransactionCreate(ctx, p)
		if err != nil {
			return fmt.Errorf("create transaction: %w", err)
		}
		out = t
		return recordTransaction(ctx, q, v, t, event)
	})
	return out, rail, err
}

// TransactionMarkProcessing moves a PENDING transaction to PROCESSING, recording the
// OUTGOING_PAYMENT_PROCESSING event of an outgoing one (incoming payments have none). It
// returns the status the transaction has afterwards: not PROCESSING when an earlier run
// finished it.
func TransactionMarkProcessing(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID, v Views) (catalog.TransactionStatus, error) {
	var status catalog.TransactionStatus
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		t, err := changeStatusUnlocked(ctx, q, id, catalog.TxEventProcess, TransactionSetStatusParams{})
		if IsNotFound(err) {
			cur, err := q.TransactionGetByID(ctx, id)
			if err != nil {
				return fmt.Errorf("read transaction: %w", err)
			}
			status = cur.Status
			return nil
		}
		if err != nil {
			return fmt.Errorf("mark transaction processing: %w", err)
		}
		status = t.Status
		if t.Type != catalog.Outgoing {
			return nil
		}
		return recordTransaction(ctx, q, v, t, events.OutgoingPaymentProcessing)
	})
	return status, err
}

// TransactionFinish ends a PENDING or PROCESSING transaction with out in one database
// transaction. COMPLETED posts it: an outgoing transaction's hold is captured into the
// platform's settlement account, an incoming one credits its internal account from it.
// Any other end releases an outgoing transaction's hold. Then come the final status
// (settledAt, or failureDetails "<code>: <message>"), the balance event and the payment's
// final event. Finishing a finished transaction changes nothing and returns it. An
// incoming payment whose internal account was closed meanwhile is FAILED (ACCOUNT_CLOSED)
// whatever out says, crediting nothing: closing refuses an account with incoming money on
// the way, so this is defence in depth.
func TransactionFinish(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID, out sandbox.Outcome, now time.Time, v Views) (Transaction, error) {
	var final Transaction
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		var err error
		final, _, err = finishPayment(ctx, q, id, out, now, v, settleTransfer)
		return err
	})
	return final, err
}

// moveMoney is how one kind of payment's finish moves its money for the outcome out, in
// the finish's database transaction, under the transaction's lock: it returns the outcome
// the payment ends with (out, unless the ledger refused what out asked for and the payment
// ends otherwise).
type moveMoney func(ctx context.Context, q *queries, t Transaction, out sandbox.Outcome, v Views) (sandbox.Outcome, error)

// finishPayment is the one finish of every payment (transfers, quotes, incoming payments),
// in the caller's database transaction: it locks transaction id, lets the status table
// decide whether out's end (catalog.TransactionEndEvent) may still be applied, moves the
// money (move), sets the final status and records the payment's final event. A payment
// the table no longer lets end (it ended already: this is a step run again) is returned
// as it is, with ended false and nothing written.
func finishPayment(ctx context.Context, q *queries, id uuid.UUID, out sandbox.Outcome, now time.Time, v Views, move moveMoney) (t Transaction, ended bool, err error) {
	cur, err := q.TransactionGetForUpdate(ctx, id)
	if err != nil {
		return cur, false, fmt.Errorf("lock transaction: %w", err)
	}
	event, ok := catalog.TransactionEndEvent(out.Status)
	if !ok {
		return cur, false, fmt.Errorf("finish transaction %s: %s ends no payment", id, out.Status)
	}
	if _, refused := catalog.TransactionChange(cur.Status, event); refused != nil {
		return cur, false, nil // ended already
	}
	if out, err = move(ctx, q, cur, out, v); err != nil {
		return cur, false, err
	}
	t, err = endStatus(ctx, q, cur, out, now, v)
	return t, err == nil, err
}

// endStatus ends t, locked by the caller, with out's status and records the payment's
// final event. The precise cause travels in failureDetails. A bank transfer's outcome
// carries no failureReason: the outgoing reasons (quote and lightning failures) describe
// none of its failures, and the incoming ones are for payments received over UMA.
func endStatus(ctx context.Context, q *queries, t Transaction, out sandbox.Outcome, now time.Time, v Views) (Transaction, error) {
	event, ok := catalog.TransactionEndEvent(out.Status)
	if !ok {
		return t, fmt.Errorf("finish transaction %s: %s ends no payment", t.ID, out.Status)
	}
	final, err := setFinalStatus(ctx, q, t, out, event, now)
	if err != nil {
		return final, err
	}
	return final, recordTransaction(ctx, q, v, final, finishEvent(final))
}

// settleTransfer is the money of a transfer's or an incoming payment's finish (settle). An
// incoming payment whose account the ledger refuses to credit (closed since) fails
// instead, crediting nothing (an incoming payment holds nothing to release).
func settleTransfer(ctx context.Context, q *queries, t Transaction, out sandbox.Outcome, v Views) (sandbox.Outcome, error) {
	err := settle(ctx, q, t, out.Status == catalog.TxCompleted, v)
	if errors.Is(err, ErrAccountClosed) && t.Type == catalog.Incoming {
		return transfer.ClosedBeforeSettlement(), nil
	}
	return out, err
}

// setFinalStatus applies event to t, locked by the caller, moving it to out's status, with
// settledAt (now) when it completed and the failure's reason and details otherwise.
func setFinalStatus(ctx context.Context, q *queries, t Transaction, out sandbox.Outcome, event catalog.TransactionEvent, now time.Time) (Transaction, error) {
	var params TransactionSetStatusParams
	if out.Status == catalog.TxCompleted {
		params.SettledAt = &now
	} else {
		detail := string(out.Code) + ": " + out.Message
		params.FailureDetail = &detail
		params.FailureReason = optional(out.FailureReason)
	}
	final, err := changeStatus(ctx, q, t, event, params)
	if err != nil {
		return final, fmt.Errorf("finish transaction: %w", err)
	}
	if final.Status != out.Status {
		return final, fmt.Errorf("finish transaction %s: %s ends it %s, not %s", t.ID, event, final.Status, out.Status)
	}
	return final, nil
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

// changeStatusUnlocked applies event to transaction id without reading it first: the
// UPDATE moves it from any status the table moves on event to the one it moves them to
// (catalog.TransactionUnlockedChange decides both). No row (IsNotFound): the transaction is in none of them, the
// change happened already or is not allowed.
func changeStatusUnlocked(ctx context.Context, q *queries, id uuid.UUID, event catalog.TransactionEvent, set TransactionSetStatusParams) (Transaction, error) {
	from, to, err := catalog.TransactionUnlockedChange(event)
	var refusal *catalog.TransitionRefusal
	if errors.As(err, &refusal) {
		return Transaction{}, err
	}
	if err != nil {
		return Transaction{}, fmt.Errorf("transaction %s: %w", id, err)
	}
	set.ID, set.Status, set.FromStatuses = id, to, catalog.Names(from)
	return q.TransactionSetStatus(ctx, set)
}

// settle moves a finishing transaction's money: the capture of an outgoing one's hold or
// the credit of an incoming one when it completed, the release of an outgoing one's hold
// when it did not, with the balance event of the internal account.
func settle(ctx context.Context, q *queries, t Transaction, completed bool, v Views) error {
	if !completed && t.Type != catalog.Outgoing {
		return nil // nothing was held for an incoming payment
	}
	settlement, err := ledgerSystemAccount(ctx, q, t.PlatformID, t.Currency, KindSettlement)
	if err != nil {
		return err
	}
	var after LedgerAccount
	switch {
	case completed && t.Type == catalog.Outgoing:
		after, err = ledgerCapture(ctx, q, t.ID, t.Currency, t.SourceAccountID.UUID, settlement.ID, t.Amount)
	case completed:
		after, err = ledgerPost(ctx, q, t.ID, t.Currency, settlement.ID, t.DestinationAccountID.UUID, t.Amount)
	default:
		after, err = ledgerRelease(ctx, q, t.ID, t.Currency, t.SourceAccountID.UUID, t.Amount)
	}
	if err != nil {
		return fmt.Errorf("post transaction: %w", err)
	}
	return recordBalance(ctx, q, v, t.PlatformID, after)
}

func finishEvent(t Transaction) string {
	switch {
	case t.Type == catalog.Outgoing && t.Status == catalog.TxCompleted:
		return events.OutgoingPaymentCompleted
	case t.Type == catalog.Outgoing:
		return events.OutgoingPaymentFailed
	case t.Status == catalog.TxCompleted:
		return events.IncomingPaymentCompleted
	}
	return events.IncomingPaymentFailed
}

// TransferRail reads what the rail step needs of a created transfer from the database,
// for workflows recorded before the create step answered it.
func TransferRail(ctx context.Context, d DBTX, id uuid.UUID) (transfer.Rail, error) {
	q := newQueries(d)
	t, err := q.TransactionGetByID(ctx, id)
	if err != nil {
		return transfer.Rail{}, fmt.Errorf("load transaction: %w", err)
	}
	return railOf(ctx, q, t)
}

// railOf is what the rail step needs of a created transfer: its external account's
// identifier and its platform's environment.
func railOf(ctx context.Context, q *queries, t Transaction) (transfer.Rail, error) {
	p, err := q.PlatformGet(ctx, t.PlatformID)
	if err != nil {
		return transfer.Rail{}, fmt.Errorf("load platform: %w", err)
	}
	extID := t.DestinationAccountID.UUID
	if t.Type == catalog.Incoming {
		extID = t.SourceAccountID.UUID
	}
	ext, err := q.ExternalAccountGetByID(ctx, extID)
	if err != nil {
		return transfer.Rail{}, fmt.Errorf("load external account: %w", err)
	}
	return transfer.Rail{ExternalIdentifier: ext.Identifier, AccountType: ext.AccountType, Environment: p.Environment, Currency: t.Currency,
		Kind: transfer.Kind(t.Kind), Amount: t.Amount}, nil
}

// SandboxFund credits an internal account of the platform with amount from the platform's
// sandbox funding account, in one database transaction: under the account's ledger lock it
// reads the account and its customer and lets check refuse them (nil: the platform has no
// such account), then posts the credit, records it as a completed incoming transaction,
// and records the INTERNAL_ACCOUNT_BALANCE_UPDATED event. It returns the account
// afterwards.
func SandboxFund(ctx context.Context, pool *pgxpool.Pool, platformID, accountID uuid.UUID, amount int64, now time.Time, v Views, check func(*sandbox.FundingTarget) error) (InternalAccountGetRow, error) {
	var out InternalAccountGetRow
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		a, err := internalAccountLock(ctx, q, platformID, accountID)
		if IsNotFound(err) {
			return check(nil)
		}
		if err != nil {
			return err
		}
		target := sandbox.FundingTarget{Status: a.InternalAccount.Status}
		platformCustomerID := ""
		if a.InternalAccount.CustomerID.Valid {
			c, err := q.CustomerGet(ctx, CustomerGetParams{PlatformID: platformID, ID: a.InternalAccount.CustomerID.UUID})
			if err != nil {
				return fmt.Errorf("load customer: %w", err)
			}
			target.CustomerDeleted, platformCustomerID = c.IsDeleted, c.PlatformCustomerID
		}
		if err := check(&target); err != nil {
			return err
		}
		acct := a.InternalAccount
		src, err := ledgerSystemAccount(ctx, q, platformID, acct.Currency, KindSandboxFunding)
		if err != nil {
			return err
		}
		txID := ids.New()
		after, err := ledgerPost(ctx, q, txID, acct.Currency, src.ID, acct.ID, amount)
		if err != nil {
			return fmt.Errorf("post funding: %w", err)
		}
		description := sandbox.FundingDescription
		if _, err := q.TransactionCreate(ctx, TransactionCreateParams{
			ID: txID, PlatformID: platformID, CustomerID: acct.CustomerID, PlatformCustomerID: platformCustomerID,
			Kind: sandbox.FundingKind, Type: catalog.Incoming, Status: catalog.TxCompleted,
			SourceKind: string(catalog.EndpointRealtimeFunding), DestinationKind: string(catalog.EndpointInternal), DestinationAccountID: uuid.NullUUID{UUID: acct.ID, Valid: true},
			Currency: acct.Currency, Amount: amount, Reference: v.Reference(txID), SettledAt: &now, Description: &description,
		}); err != nil {
			return fmt.Errorf("record funding transaction: %w", err)
		}
		out = InternalAccountGetRow{InternalAccount: acct, Balance: after.Balance, Held: after.Held}
		return recordBalanceOf(ctx, q, v, platformID, acct, after)
	})
	return out, err
}

// recordTransaction records the webhook event of a transaction's new state. Every change
// of a transaction's status comes through here, in the database transaction that makes
// it: a transaction an agent action made that ended without moving money also ends the
// action FAILED and gives its reservation back.
func recordTransaction(ctx context.Context, q *queries, v Views, t Transaction, eventType string) error {
	if err := agentActionTransactionEnded(ctx, q, t); err != nil {
		return err
	}
	_, err := eventRecord(ctx, q, t.PlatformID, eventType, v.Transaction(t), nil)
	return err
}

// recordBalance records INTERNAL_ACCOUNT_BALANCE_UPDATED for the internal account whose
// ledger account is now l.
func recordBalance(ctx context.Context, q *queries, v Views, platformID uuid.UUID, l LedgerAccount) error {
	a, err := q.InternalAccountGet(ctx, InternalAccountGetParams{PlatformID: platformID, ID: l.ID})
	if err != nil {
		return fmt.Errorf("load internal account: %w", err)
	}
	return recordBalanceOf(ctx, q, v, platformID, a.InternalAccount, l)
}

// recordBalanceOf is recordBalance for an account the caller has already read.
func recordBalanceOf(ctx context.Context, q *queries, v Views, platformID uuid.UUID, a InternalAccount, l LedgerAccount) error {
	_, err := eventRecord(ctx, q, platformID, events.InternalAccountBalanceUpdated, v.InternalAccount(a, l.Balance, l.Held), nil)
	return err
}
