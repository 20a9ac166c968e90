package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/internal/banking"
	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/platformconfig"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

// Views are how the API presents rows: the resources webhook events carry and a
// transaction's reconciliation reference. Package db/view implements them; it imports db,
// so the operations here are given them once, as part of a Store's Renderer.
type Views interface {
	Transaction(t Transaction) any
	// IncomingPending is the event of an incoming payment awaiting approval.
	IncomingPending(t Transaction, requestedFields []string) any
	InternalAccount(a InternalAccount, balance, held int64) any
	ExternalAccount(e ExternalAccount) any
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
	a := transfer.Accounts{CustomerDeleted: row.CustomerDeleted, TermsMissing: row.CustomerTermsMissing, CustomerKyc: catalog.KycStatus(row.CustomerKyc), PlatformCustomerID: row.PlatformCustomerID,
		Currencies: cur, Environment: row.Environment}
	if row.InternalID.Valid {
		a.Internal = &transfer.InternalAccount{ID: row.InternalID.UUID, Type: catalog.AccountType(row.InternalType), Status: catalog.AccountStatus(row.InternalStatus),
			Currency: row.InternalCurrency, CustomerID: row.InternalCustomerID, Available: row.InternalAvailable}
	}
	if row.ExternalID.Valid {
		a.External = &transfer.ExternalAccount{ID: row.ExternalID.UUID, Status: catalog.ExternalAccountStatus(row.ExternalStatus),
			Currency: row.ExternalCurrency, CustomerID: row.ExternalCustomerID, Identifier: row.ExternalIdentifier, Type: row.ExternalAccountType}
		if err := json.Unmarshal([]byte(row.ExternalPaymentRails), &a.External.PaymentRails); err != nil {
			return transfer.Accounts{}, fmt.Errorf("decode the external account's payment rails: %w", err)
		}
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
// returns it. Beside the transaction it returns what the rail step needs. A transfer out
// records the payment rail it travels on and, from now, when it is expected to settle.
func (s Store) TransferCreate(ctx context.Context, r transfer.Request, now time.Time, check func(transfer.Accounts) error) (Transaction, transfer.Rail, error) {
	var out Transaction
	var rail transfer.Rail
	var locked []LedgerAccount // the internal account's row, locked first (the hold locks it no more)
	var o outbox               // the hold's balance event and the transaction's, recorded together
	err := s.createOnce(ctx, func(q *queries) (bool, error) {
		// The account's ledger row lock, held until this transaction commits, orders the
		// creation against a close of the account (either the close comes first and the
		// status read next is CLOSED, or it comes after and sees this transaction) and
		// against another attempt at the same transfer, which is looked for under it.
		var err error
		if locked, err = q.LedgerAccountsLock(ctx, LedgerAccountsLockParams{Ids: []uuid.UUID{r.InternalAccountID}}); err != nil {
			return false, fmt.Errorf("lock ledger account: %w", err)
		}
		t, found, err := earlierTransaction(ctx, q, r.TransactionID)
		if found {
			out = t
			rail, err = railOf(ctx, q, t)
		}
		return found, err
	}, func(q *queries) error {
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
		choice, err := r.ChooseRail(acc)
		if err != nil {
			return err
		}
		rail = acc.Rail(r.PlatformID)
		rail.PaymentRail, rail.Remittance, rail.Purpose = choice.Rail, r.RemittanceInformation, r.PurposeOfPayment
		p := TransactionCreateParams{ID: r.TransactionID, PlatformID: r.PlatformID, CustomerID: acc.Internal.CustomerID, PlatformCustomerID: acc.PlatformCustomerID,
			Kind: string(r.Kind), Type: r.Kind.Type(), Status: catalog.TxPending, Currency: acc.Internal.Currency, Amount: r.Amount, Reference: s.views.Reference(r.TransactionID),
			AgentID: r.AgentID.Null(), RemittanceInformation: optional(r.RemittanceInformation), PurposeOfPayment: optional(r.PurposeOfPayment)}
		setRailChoice(&p, choice, now)
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
				Amount: r.Amount, WalletSignature: r.WalletSignature, SignatureKind: string(transfer.Out), Limits: s.limits, Now: now, Locked: locked}
			if err := holdFunds(ctx, q, &o, h, s.views); err != nil {
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
		if err := recordTransaction(ctx, q, &o, s.views, t, event, now); err != nil {
			return err
		}
		return o.flush(ctx, q)
	})
	return out, rail, err
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
	return transfer.Rail{ExternalIdentifier: ext.Identifier, AccountType: ext.AccountType, Environment: p.Environment, Platform: t.PlatformID, Currency: t.Currency,
		Kind: transfer.Kind(t.Kind), Amount: t.Amount, PaymentRail: Deref(t.PaymentRail), Remittance: Deref(t.RemittanceInformation),
		Purpose: Deref(t.PurposeOfPayment)}, nil
}

// setRailChoice records on a transaction to create the payment rail chosen for it, how,
// and when it is expected to settle when sent at sent (nothing for no rail).
func setRailChoice(p *TransactionCreateParams, c banking.RailChoice, sent time.Time) {
	if c.Rail == "" {
		return
	}
	seconds := int64(c.Timeline / time.Second)
	p.PaymentRail, p.RailSelectionMode, p.SettlementTimelineSeconds = &c.Rail, &c.Mode, &seconds
	p.ExpectedSettlementAt = c.ExpectedAt(sent)
}

// SandboxFund credits an internal account of the platform with amount from the platform's
// sandbox funding account, in one database transaction: under the account's ledger lock it
// reads the account and its customer and lets check refuse them (nil: the platform has no
// such account), then posts the credit, records it as a completed incoming transaction,
// and records the INTERNAL_ACCOUNT_BALANCE_UPDATED event. It returns the account
// afterwards.
func (s Store) SandboxFund(ctx context.Context, platformID, accountID uuid.UUID, amount int64, now time.Time, check func(*sandbox.FundingTarget) error) (InternalAccountGetRow, error) {
	var out InternalAccountGetRow
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
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
			Currency: acct.Currency, Amount: amount, Reference: s.views.Reference(txID), SettledAt: &now, Description: &description,
		}); err != nil {
			return fmt.Errorf("record funding transaction: %w", err)
		}
		out = InternalAccountGetRow{InternalAccount: acct, Balance: after.Balance, Held: after.Held}
		var o outbox
		if err := recordBalanceOf(&o, s.views, platformID, acct, after.LedgerAccount); err != nil {
			return err
		}
		return o.flush(ctx, q)
	})
	return out, err
}

// recordTransaction adds the webhook event of a transaction's new state to o. Every change
// of a transaction's status comes through here, in the database transaction that makes
// it: a transaction an agent action made that ended without moving money also ends the
// action FAILED and gives its reservation back, at now.
func recordTransaction(ctx context.Context, q *queries, o *outbox, v Views, t Transaction, eventType string, now time.Time) error {
	if err := agentActionTransactionEnded(ctx, q, t, now); err != nil {
		return err
	}
	return o.add(t.PlatformID, eventType, v.Transaction(t))
}

// recordBalance adds INTERNAL_ACCOUNT_BALANCE_UPDATED to o for the internal account of the
// platform platformID whose ledger account is now l: as the posting read it under its lock,
// else (not read, or of another platform) as it is now.
func recordBalance(ctx context.Context, q *queries, o *outbox, v Views, platformID uuid.UUID, l lockedAccount) error {
	if l.Internal != nil && l.Internal.PlatformID == platformID {
		return recordBalanceOf(o, v, platformID, *l.Internal, l.LedgerAccount)
	}
	a, err := q.InternalAccountGet(ctx, InternalAccountGetParams{PlatformID: platformID, ID: l.ID})
	if err != nil {
		return fmt.Errorf("load internal account: %w", err)
	}
	return recordBalanceOf(o, v, platformID, a.InternalAccount, l.LedgerAccount)
}

// recordBalanceOf is recordBalance for an account the caller has already read.
func recordBalanceOf(o *outbox, v Views, platformID uuid.UUID, a InternalAccount, l LedgerAccount) error {
	return o.add(platformID, events.InternalAccountBalanceUpdated, v.InternalAccount(a, l.Balance, l.Held))
}
