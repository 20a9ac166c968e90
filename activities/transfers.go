package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.temporal.io/sdk/temporal"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/events"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

// ErrTransferClosed reports a step asked of a transaction that has moved on.
const ErrTransferClosed = "TRANSFER_CLOSED"

func parseUUID(s string) uuid.NullUUID {
	if s == "" {
		return uuid.NullUUID{}
	}
	id, err := uuid.Parse(s)
	return uuid.NullUUID{UUID: id, Valid: err == nil}
}

// CreateTransfer persists a transfer in one database transaction: the transaction row,
// for a transfer out the hold on the funds, and the PENDING webhook event. Running it
// again for the same transaction id changes nothing. Business refusals (insufficient
// funds, closed account, deleted customer) are non-retryable errors with a stable type.
//
// It returns the Transaction resource (JSON) as committed, for the API to answer with.
func (a *Activities) CreateTransfer(ctx context.Context, in transfer.Request) (json.RawMessage, error) {
	txID := uuid.MustParse(in.TransactionID)
	var out db.Transaction
	err := db.WithTx(ctx, a.pool, func(q *db.Queries, _ pgx.Tx) error {
		if t, err := q.TransactionGetByID(ctx, txID); err == nil {
			out = t
			return nil // created by an earlier attempt
		} else if !db.IsNotFound(err) {
			return err
		}
		platformID := uuid.MustParse(in.PlatformID)
		// The account's ledger row lock, held until this transaction commits, orders the
		// creation against a close of the account: either the close comes first and the
		// status read here is CLOSED, or it comes after and sees this transaction.
		acct, err := db.InternalAccountLock(ctx, q, platformID, uuid.MustParse(in.InternalAccountID))
		if err != nil {
			return err
		}
		if acct.InternalAccount.Status != db.AccountActive {
			return temporal.NewNonRetryableApplicationError("the internal account is "+acct.InternalAccount.Status, transfer.ErrAccountInactive, nil)
		}
		platformCustomerID := ""
		if acct.InternalAccount.CustomerID.Valid {
			c, err := q.CustomerGet(ctx, db.CustomerGetParams{PlatformID: platformID, ID: acct.InternalAccount.CustomerID.UUID})
			if err != nil {
				return fmt.Errorf("load customer: %w", err)
			}
			if c.IsDeleted {
				return temporal.NewNonRetryableApplicationError("the account's customer is deleted", transfer.ErrCustomerDeleted, nil)
			}
			platformCustomerID = c.PlatformCustomerID
		}
		p := db.TransactionCreateParams{ID: txID, PlatformID: platformID, CustomerID: parseUUID(in.CustomerID), PlatformCustomerID: platformCustomerID, Kind: in.Kind,
			Status: "PENDING", Currency: in.Currency, Amount: in.Amount, Reference: view.TransactionReference(txID)}
		if in.Description != "" {
			p.Description = &in.Description
		}
		ext := uuid.NullUUID{UUID: uuid.MustParse(in.ExternalAccountID), Valid: true}
		eventType := events.IncomingPaymentPending
		if in.Kind == transfer.Out {
			p.Type, p.SourceKind, p.SourceAccountID, p.DestinationKind, p.DestinationAccountID = "OUTGOING", "INTERNAL", uuid.NullUUID{UUID: acct.InternalAccount.ID, Valid: true}, "EXTERNAL", ext.UUID
			eventType = events.OutgoingPaymentPending
			if in.WalletSignature != "" {
				sig, err := uuid.Parse(in.WalletSignature)
				if err == nil {
					err = db.AuthorizeWalletDebit(ctx, q, sig, acct.InternalAccount.ID, txID, transfer.Out)
				}
				if err != nil && !errors.Is(err, db.ErrWalletSignatureRequired) {
					return err
				}
			}
			after, err := db.LedgerApplyAccounts(ctx, q, txID, in.Currency, []db.Move{{Account: acct.InternalAccount.ID, Held: in.Amount}})
			if errors.Is(err, db.ErrWalletSignatureRequired) {
				return temporal.NewNonRetryableApplicationError("moving money out of an embedded wallet needs the customer's wallet signature", transfer.ErrWalletSignatureRequired, nil)
			}
			if errors.Is(err, db.ErrInsufficientFunds) {
				return temporal.NewNonRetryableApplicationError(fmt.Sprintf("the account's available balance is below %d", in.Amount), transfer.ErrInsufficientFunds, nil)
			}
			if err != nil {
				return err
			}
			if err := a.emitBalance(ctx, q, acct.InternalAccount, after[acct.InternalAccount.ID]); err != nil {
				return err
			}
		} else {
			p.Type, p.SourceKind, p.SourceAccountID, p.DestinationKind, p.DestinationAccountID = "INCOMING", "EXTERNAL", ext, "INTERNAL", acct.InternalAccount.ID
		}
		t, err := q.TransactionCreate(ctx, p)
		if err != nil {
			return fmt.Errorf("create transaction: %w", err)
		}
		out = t
		return a.emit(ctx, q, t, eventType)
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(view.TransactionOf(out))
}

// emitBalance records INTERNAL_ACCOUNT_BALANCE_UPDATED with the account's new balance.
func (a *Activities) emitBalance(ctx context.Context, q *db.Queries, acct db.InternalAccount, ledger db.LedgerAccount) error {
	_, err := db.EventRecord(ctx, q, acct.PlatformID, events.InternalAccountBalanceUpdated, view.InternalAccountOf(acct, ledger.Balance, ledger.Held), false)
	return err
}

// emit records the webhook event of a transaction's new state.
func (a *Activities) emit(ctx context.Context, q *db.Queries, t db.Transaction, eventType string) error {
	_, err := db.EventRecord(ctx, q, t.PlatformID, eventType, view.TransactionOf(t), false)
	return err
}

// MarkTransferProcessing moves a PENDING transfer to PROCESSING. It returns the status the
// transaction has afterwards, so a workflow re-run on a finished transaction stops.
func (a *Activities) MarkTransferProcessing(ctx context.Context, transactionID string) (string, error) {
	id := uuid.MustParse(transactionID)
	status := ""
	err := db.WithTx(ctx, a.pool, func(q *db.Queries, _ pgx.Tx) error {
		t, err := q.TransactionSetStatus(ctx, db.TransactionSetStatusParams{ID: id, Status: "PROCESSING", FromStatuses: []string{"PENDING"}})
		if db.IsNotFound(err) {
			cur, gerr := q.TransactionGetByID(ctx, id)
			status = cur.Status
			return gerr
		}
		if err != nil {
			return err
		}
		status = t.Status
		if t.Type != "OUTGOING" {
			return nil // incoming payments have no PROCESSING event
		}
		return a.emit(ctx, q, t, events.OutgoingPaymentProcessing)
	})
	return status, err
}

// SubmitTransfer hands the transfer to the payment rail and reports how it ends. Sandbox
// platforms get the outcome their external account's magic suffix selects; production
// platforms have no rail connected in this deployment, so their transfers fail.
func (a *Activities) SubmitTransfer(ctx context.Context, transactionID string) (sandbox.Outcome, error) {
	t, err := a.q.TransactionGetByID(ctx, uuid.MustParse(transactionID))
	if err != nil {
		return sandbox.Outcome{}, fmt.Errorf("load transaction: %w", err)
	}
	p, err := a.q.PlatformGet(ctx, t.PlatformID)
	if err != nil {
		return sandbox.Outcome{}, fmt.Errorf("load platform: %w", err)
	}
	extID := t.DestinationAccountID
	if t.Type == "INCOMING" {
		extID = t.SourceAccountID.UUID
	}
	ext, err := a.q.ExternalAccountGetByID(ctx, extID)
	if err != nil {
		return sandbox.Outcome{}, fmt.Errorf("load external account: %w", err)
	}
	if p.Environment != "SANDBOX" {
		return sandbox.Outcome{Status: "FAILED", Code: "RAIL_UNAVAILABLE", Message: "no payment rail is connected for production transfers"}, nil
	}
	return sandbox.TransferOutcome(ext.Identifier), nil
}

// FinishTransfer settles a transfer with its outcome in one database transaction: on
// success the ledger postings (for a transfer out, capturing the hold), on failure the
// release of the hold; the final status, settledAt and the webhook event. Finishing an
// already finished transfer changes nothing. It returns the status the transaction ends
// with, which differs from the rail's outcome when money cannot be delivered: a transfer
// in whose internal account was closed meanwhile is FAILED (ACCOUNT_CLOSED) and credits
// nothing, rather than retrying forever or stranding money in a closed account.
func (a *Activities) FinishTransfer(ctx context.Context, transactionID string, out sandbox.Outcome) (string, error) {
	id := uuid.MustParse(transactionID)
	final := ""
	err := db.WithTx(ctx, a.pool, func(q *db.Queries, _ pgx.Tx) error {
		cur, err := q.TransactionGetForUpdate(ctx, id)
		if err != nil {
			return fmt.Errorf("lock transaction: %w", err)
		}
		if cur.Status != "PROCESSING" && cur.Status != "PENDING" {
			final = cur.Status
			return nil // already finished
		}
		out := finalOutcome(cur.Type, out)
		settlement, err := db.LedgerSystemAccount(ctx, q, cur.PlatformID, cur.Currency, db.KindSettlement)
		if err != nil {
			return err
		}
		var moves []db.Move
		switch {
		case out.Status == "COMPLETED" && cur.Type == "OUTGOING":
			moves = []db.Move{{Account: cur.SourceAccountID.UUID, Amount: -cur.Amount, Held: -cur.Amount}, {Account: settlement.ID, Amount: cur.Amount}}
		case out.Status == "COMPLETED":
			moves = []db.Move{{Account: settlement.ID, Amount: -cur.Amount}, {Account: cur.DestinationAccountID, Amount: cur.Amount}}
		case cur.Type == "OUTGOING":
			moves = []db.Move{{Account: cur.SourceAccountID.UUID, Held: -cur.Amount}}
		}
		if moves != nil {
			after, err := db.LedgerApplyAccounts(ctx, q, id, cur.Currency, moves)
			switch {
			case errors.Is(err, db.ErrAccountClosed) && cur.Type == "INCOMING":
				// Closing refuses an account with incoming money on the way, so this is
				// defence in depth: the payment fails and nothing is posted (the ledger
				// refused before writing anything).
				out = sandbox.Outcome{Status: "FAILED", Code: "ACCOUNT_CLOSED", Message: "the destination internal account was closed before the payment settled"}
			case err != nil:
				return fmt.Errorf("post transfer: %w", err)
			default:
				internal := cur.DestinationAccountID
				if cur.Type == "OUTGOING" {
					internal = cur.SourceAccountID.UUID
				}
				acct, err := q.InternalAccountGet(ctx, db.InternalAccountGetParams{PlatformID: cur.PlatformID, ID: internal})
				if err != nil {
					return fmt.Errorf("load internal account: %w", err)
				}
				if err := a.emitBalance(ctx, q, acct.InternalAccount, after[internal]); err != nil {
					return err
				}
			}
		}
		params := db.TransactionSetStatusParams{ID: id, Status: out.Status, FromStatuses: []string{"PENDING", "PROCESSING"}}
		now := time.Now()
		if out.Status == "COMPLETED" {
			params.SettledAt = &now
		} else {
			// The precise cause travels in failureDetails. No failureReason: the outgoing
			// reasons (quote and lightning failures) describe none of a bank transfer's
			// failures, and the incoming ones are for payments received over UMA.
			detail := out.Code + ": " + out.Message
			params.FailureDetail = &detail
		}
		t, err := q.TransactionSetStatus(ctx, params)
		if err != nil {
			return fmt.Errorf("finish transaction: %w", err)
		}
		final = t.Status
		return a.emit(ctx, q, t, finishEvent(t))
	})
	if err != nil {
		return "", err
	}
	return final, nil
}

// finalOutcome keeps an outcome within the statuses a transaction of this type can end
// with. A transfer out ends COMPLETED or FAILED (the peer's outgoing statuses have no
// REJECTED): a bank rejection is FAILED with the rejection in failureDetails. Outcomes
// recorded by workflows that started before this rule still say REJECTED.
func finalOutcome(txType string, out sandbox.Outcome) sandbox.Outcome {
	if out.Status == "COMPLETED" {
		return out
	}
	if txType == "OUTGOING" || out.Status != "REJECTED" {
		out.Status = "FAILED"
	}
	return out
}

func finishEvent(t db.Transaction) string {
	switch {
	case t.Type == "OUTGOING" && t.Status == "COMPLETED":
		return events.OutgoingPaymentCompleted
	case t.Type == "OUTGOING":
		return events.OutgoingPaymentFailed
	case t.Status == "COMPLETED":
		return events.IncomingPaymentCompleted
	}
	return events.IncomingPaymentFailed
}
