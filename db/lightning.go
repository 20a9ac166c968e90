package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/lightning"
	"paycore/internal/payment"
)

// KindLightning accounts stand for the deployment's Lightning node (see payment.Lightning).
const KindLightning = payment.Lightning

// LightningFundingInvoice is the account's amountless invoice not yet paid that stays open
// after validAfter; false when it has none.
func (s Store) LightningFundingInvoice(ctx context.Context, accountID uuid.UUID, validAfter time.Time) (string, bool, error) {
	pr, err := newQueries(s.pool).LightningInvoiceOpen(ctx, LightningInvoiceOpenParams{AccountID: accountID, ValidAfter: validAfter})
	if IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read the account's Lightning invoice: %w", err)
	}
	return pr, true, nil
}

// LightningInvoiceAdd records an invoice the node created for an account.
func (s Store) LightningInvoiceAdd(ctx context.Context, inv lightning.FundingInvoice) error {
	if err := newQueries(s.pool).LightningInvoiceAdd(ctx, LightningInvoiceAddParams{PaymentHash: inv.Hash, PlatformID: inv.PlatformID,
		AccountID: inv.AccountID, PaymentRequest: inv.PaymentRequest, Amount: inv.Amount, ExpiresAt: inv.ExpiresAt, CreatedAt: inv.CreatedAt}); err != nil {
		return fmt.Errorf("record Lightning invoice: %w", err)
	}
	return nil
}

// LightningReceive credits the account of a settled invoice with what was paid to it
// (sats), once: in one database transaction, under the invoice's lock, a COMPLETED
// INCOMING transaction (LIGHTNING_IN, from REALTIME_FUNDING) moves the amount from the
// platform's LIGHTNING account (the node) to the account, announced with
// INCOMING_PAYMENT_COMPLETED and INTERNAL_ACCOUNT_BALANCE_UPDATED, and the invoice records
// it; credited is true. An invoice credited already answers its transaction and changes
// nothing; an invoice the deployment did not create is ErrNotFound; an account that can no
// longer be credited (closed) is lightning.ErrReceiptRefused, with nothing written.
func (s Store) LightningReceive(ctx context.Context, hash []byte, sats int64, now time.Time) (out Transaction, credited bool, err error) {
	err = withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		credited = false
		inv, err := q.LightningInvoiceLock(ctx, hash)
		if err != nil {
			return fmt.Errorf("lock Lightning invoice: %w", err)
		}
		if inv.TransactionID.Valid {
			out, err = q.TransactionGetByID(ctx, inv.TransactionID.UUID)
			if err != nil {
				return fmt.Errorf("read the invoice's transaction: %w", err)
			}
			return nil
		}
		a, err := internalAccountLock(ctx, q, inv.PlatformID, inv.AccountID)
		if err != nil {
			return err
		}
		acct := a.InternalAccount
		if err := lightning.CheckReceipt(acct.Currency, acct.Status, sats); err != nil {
			return fmt.Errorf("credit account %s: %w", acct.ID, err)
		}
		platformCustomerID := ""
		if acct.CustomerID.Valid {
			c, err := q.CustomerGet(ctx, CustomerGetParams{PlatformID: inv.PlatformID, ID: acct.CustomerID.UUID})
			if err != nil {
				return fmt.Errorf("load customer: %w", err)
			}
			platformCustomerID = c.PlatformCustomerID
		}
		node, err := ledgerSystemAccount(ctx, q, inv.PlatformID, acct.Currency, KindLightning)
		if err != nil {
			return err
		}
		txID := ids.New()
		after, err := ledgerPost(ctx, q, txID, acct.Currency, node.ID, acct.ID, sats)
		if err != nil {
			return fmt.Errorf("post Lightning receipt: %w", err)
		}
		description := lightning.ReceiptDescription
		out, err = q.TransactionCreate(ctx, TransactionCreateParams{
			ID: txID, PlatformID: inv.PlatformID, CustomerID: acct.CustomerID, PlatformCustomerID: platformCustomerID,
			Kind: lightning.ReceiptKind, Type: catalog.Incoming, Status: catalog.TxCompleted,
			SourceKind: string(catalog.EndpointRealtimeFunding), DestinationKind: string(catalog.EndpointInternal),
			DestinationAccountID: uuid.NullUUID{UUID: acct.ID, Valid: true},
			Currency:             acct.Currency, Amount: sats, Reference: s.views.Reference(txID), SettledAt: &now, Description: &description,
		})
		if err != nil {
			return fmt.Errorf("record Lightning receipt: %w", err)
		}
		if err := q.LightningInvoiceCredited(ctx, LightningInvoiceCreditedParams{PaymentHash: hash, TransactionID: uuid.NullUUID{UUID: txID, Valid: true}}); err != nil {
			return fmt.Errorf("mark Lightning invoice credited: %w", err)
		}
		if err := recordTransaction(ctx, q, s.views, out, events.IncomingPaymentCompleted); err != nil {
			return err
		}
		credited = true
		return recordBalanceOf(ctx, q, s.views, inv.PlatformID, acct, after)
	})
	return out, credited && err == nil, err
}

// LightningSettleCursor is how far the watcher of the node (its public key) has read its
// settled invoices (0: from the first).
func (s Store) LightningSettleCursor(ctx context.Context, nodePubkey string) (uint64, error) {
	n, err := newQueries(s.pool).LightningSettleCursor(ctx, nodePubkey)
	if err != nil {
		return 0, fmt.Errorf("read the Lightning settle cursor: %w", err)
	}
	return uint64(n), nil
}

// LightningSettleCursorAdvance records that the watcher read the node's settled invoices up
// to index (never moving back).
func (s Store) LightningSettleCursorAdvance(ctx context.Context, nodePubkey string, index uint64) error {
	if err := newQueries(s.pool).LightningSettleCursorAdvance(ctx, LightningSettleCursorAdvanceParams{NodePubkey: nodePubkey, SettleIndex: int64(index)}); err != nil {
		return fmt.Errorf("advance the Lightning settle cursor: %w", err)
	}
	return nil
}

// LightningInvoicesUncredited are the hashes of up to limit invoices not yet credited that
// were payable after since, oldest first.
func (s Store) LightningInvoicesUncredited(ctx context.Context, since time.Time, limit int32) ([][]byte, error) {
	hashes, err := newQueries(s.pool).LightningInvoicesUncredited(ctx, LightningInvoicesUncreditedParams{Since: since, RowLimit: limit})
	if err != nil {
		return nil, fmt.Errorf("list uncredited Lightning invoices: %w", err)
	}
	return hashes, nil
}

// LightningLedger is what the ledger says of the node: the LIGHTNING accounts' sum now
// (satoshis), the reconciliation baseline recorded for the node (false: none yet) and how
// many route fees were posted since it.
func (s Store) LightningLedger(ctx context.Context, nodePubkey string) (ledgerSats int64, b lightning.Baseline, ok bool, feesSince int64, err error) {
	q := newQueries(s.pool)
	if ledgerSats, err = q.LightningLedgerBalance(ctx); err != nil {
		return 0, b, false, 0, fmt.Errorf("sum the LIGHTNING accounts: %w", err)
	}
	row, err := q.LightningBaseline(ctx, nodePubkey)
	if IsNotFound(err) {
		return ledgerSats, b, false, 0, nil
	}
	if err != nil {
		return 0, b, false, 0, fmt.Errorf("read the reconciliation baseline: %w", err)
	}
	b = lightning.Baseline{NodeSats: row.NodeSats, LedgerSats: row.LedgerSats, RecordedAt: row.RecordedAt}
	if feesSince, err = q.LightningFeePostingsSince(ctx, row.RecordedAt); err != nil {
		return 0, b, false, 0, fmt.Errorf("count route fees: %w", err)
	}
	return ledgerSats, b, true, feesSince, nil
}

// LightningBaselineSet records the node's reconciliation baseline.
func (s Store) LightningBaselineSet(ctx context.Context, nodePubkey string, b lightning.Baseline) error {
	if err := newQueries(s.pool).LightningBaselineSet(ctx, LightningBaselineSetParams{NodePubkey: nodePubkey, NodeSats: b.NodeSats,
		LedgerSats: b.LedgerSats, RecordedAt: b.RecordedAt}); err != nil {
		return fmt.Errorf("record the reconciliation baseline: %w", err)
	}
	return nil
}

// LightningPayoutInvoice is the invoice recorded for the payout under key (a Lightning
// address's, resolved once); false when none is.
func (s Store) LightningPayoutInvoice(ctx context.Context, key string) (string, bool, error) {
	pr, err := newQueries(s.pool).LightningPayoutInvoice(ctx, key)
	if IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read the payout's invoice: %w", err)
	}
	return pr, true, nil
}

// LightningPayoutInvoiceRecord records invoice for the payout under key unless one is
// recorded already, and returns the one recorded (the first).
func (s Store) LightningPayoutInvoiceRecord(ctx context.Context, key, invoice string, now time.Time) (string, error) {
	q := newQueries(s.pool)
	if err := q.LightningPayoutInvoiceRecord(ctx, LightningPayoutInvoiceRecordParams{Key: key, PaymentRequest: invoice, CreatedAt: now}); err != nil {
		return "", fmt.Errorf("record the payout's invoice: %w", err)
	}
	pr, err := q.LightningPayoutInvoice(ctx, key)
	if err != nil {
		return "", fmt.Errorf("read the payout's invoice: %w", err)
	}
	return pr, nil
}

// LightningAddressAccount is the platform, its environment and the open BTC account of the
// customer whose UMA address is umaAddress on the platform whose UMA domain is domain;
// ErrNotFound when there is none.
func (s Store) LightningAddressAccount(ctx context.Context, domain, umaAddress string) (LightningAddressAccountRow, error) {
	row, err := newQueries(s.pool).LightningAddressAccount(ctx, LightningAddressAccountParams{Domain: domain, UmaAddress: umaAddress})
	if err != nil {
		return row, fmt.Errorf("find the Lightning address's account: %w", err)
	}
	return row, nil
}

// LightningAddressInvoicesOpen is how many invoices the account's Lightning address made
// that are unpaid and still payable at now.
func (s Store) LightningAddressInvoicesOpen(ctx context.Context, accountID uuid.UUID, now time.Time) (int64, error) {
	n, err := newQueries(s.pool).LightningAddressInvoicesOpen(ctx, LightningAddressInvoicesOpenParams{AccountID: accountID, Now: now})
	if err != nil {
		return 0, fmt.Errorf("count the Lightning address's open invoices: %w", err)
	}
	return n, nil
}
