package db

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/lightning"
	"paycore/internal/payment"
	"paycore/internal/rail"
)

// KindLightning accounts stand for the deployment's Lightning node (see payment.Lightning).
const KindLightning = payment.Lightning

// KindUnapplied accounts hold, per platform and currency, money received for an internal
// account that could no longer take it (closed after its Lightning invoice was created),
// until an operator returns it.
const KindUnapplied = payment.Unapplied

// LightningReceipt is what receiving a settled invoice's payment did: Credited, the
// account's INCOMING transaction (Transaction) created now; Unapplied, the payment held on
// the platform's UNAPPLIED account now, its account being closed; neither, it was received
// before (Transaction is its credit, if it had one).
type LightningReceipt struct {
	Transaction Transaction
	Credited    bool
	Unapplied   bool
	// Collects is the pending incoming payment from another UMA provider the invoice
	// collects: its workflow finishes it (the caller tells it); nothing was written.
	Collects uuid.NullUUID
}

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

// LightningReceive receives the payment of a settled invoice (sats), once, as
// lightning.DecideReceipt decides, in one database transaction under the invoice's lock.
// Credited: a COMPLETED INCOMING transaction (LIGHTNING_IN, from REALTIME_FUNDING) moves
// the amount from the platform's LIGHTNING account (the node) to the account, announced
// with INCOMING_PAYMENT_COMPLETED and INTERNAL_ACCOUNT_BALANCE_UPDATED, and the invoice
// records it. Unapplied (the account was closed since): the amount moves from LIGHTNING to
// the platform's UNAPPLIED account, and the invoice records when. An invoice received
// already answers its transaction, if any, and changes nothing; an invoice the deployment
// did not create is ErrNotFound; a payment of nothing is lightning.ErrReceiptRefused.
func (s Store) LightningReceive(ctx context.Context, hash []byte, sats int64, now time.Time) (out LightningReceipt, err error) {
	err = withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		out = LightningReceipt{}
		inv, err := q.LightningInvoiceLock(ctx, hash)
		if err != nil {
			return fmt.Errorf("lock Lightning invoice: %w", err)
		}
		if inv.TransactionID.Valid {
			out.Transaction, err = q.TransactionGetByID(ctx, inv.TransactionID.UUID)
			if err != nil {
				return fmt.Errorf("read the invoice's transaction: %w", err)
			}
			return nil
		}
		if inv.UnappliedAt != nil {
			return nil
		}
		if inv.ForTransaction.Valid {
			return lightningCollected(ctx, q, inv, sats, now, &out)
		}
		a, err := internalAccountLock(ctx, q, inv.PlatformID, inv.AccountID)
		if err != nil {
			return err
		}
		acct := a.InternalAccount
		receipt, err := lightning.DecideReceipt(acct.Currency, acct.Status, sats)
		if err != nil {
			return fmt.Errorf("receive into account %s: %w", acct.ID, err)
		}
		if receipt == lightning.Unapplied {
			out.Unapplied = true
			return lightningHoldUnapplied(ctx, q, inv, acct.Currency, sats, now)
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
		t, err := q.TransactionCreate(ctx, TransactionCreateParams{
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
		var o outbox
		if err := recordTransaction(ctx, q, &o, s.views, t, events.IncomingPaymentCompleted, now); err != nil {
			return err
		}
		out = LightningReceipt{Transaction: t, Credited: true}
		if err := recordBalanceOf(&o, s.views, inv.PlatformID, acct, after.LedgerAccount); err != nil {
			return err
		}
		return o.flush(ctx, q)
	})
	if err != nil {
		return LightningReceipt{}, err
	}
	return out, nil
}

// lightningHoldUnapplied moves a settled invoice's payment that its closed account cannot
// take from the platform's LIGHTNING account to its UNAPPLIED account, under a ledger
// transaction id derived from the payment hash, and records it on the invoice.
func lightningHoldUnapplied(ctx context.Context, q *queries, inv LightningInvoice, currency string, sats int64, now time.Time) error {
	node, err := ledgerSystemAccount(ctx, q, inv.PlatformID, currency, KindLightning)
	if err != nil {
		return err
	}
	held, err := ledgerSystemAccount(ctx, q, inv.PlatformID, currency, KindUnapplied)
	if err != nil {
		return err
	}
	if _, err := ledgerPost(ctx, q, uuid.NewSHA1(unappliedSpace, inv.PaymentHash), currency, node.ID, held.ID, sats); err != nil {
		return fmt.Errorf("hold unapplied Lightning receipt: %w", err)
	}
	if err := q.LightningInvoiceUnapplied(ctx, LightningInvoiceUnappliedParams{PaymentHash: inv.PaymentHash, UnappliedAt: &now}); err != nil {
		return fmt.Errorf("mark Lightning invoice unapplied: %w", err)
	}
	return nil
}

// lightningCollected receives the settled invoice inv that collects an incoming payment from
// another UMA provider: a pending payment is its workflow's to finish (out.Collects); one
// that failed unpaid before its payment came (which the node's expiry prevents) cannot take
// it: it is held as unapplied, once.
func lightningCollected(ctx context.Context, q *queries, inv LightningInvoice, sats int64, now time.Time, out *LightningReceipt) error {
	t, err := q.TransactionGetByID(ctx, inv.ForTransaction.UUID)
	if err != nil {
		return fmt.Errorf("read the invoice's payment: %w", err)
	}
	switch t.Status {
	case catalog.TxPending:
		out.Collects = inv.ForTransaction
		return nil
	case catalog.TxCompleted:
		return nil
	}
	if sats <= 0 {
		return fmt.Errorf("receive for payment %s: %w", t.ID, lightning.ErrReceiptRefused)
	}
	out.Unapplied = true
	return lightningHoldUnapplied(ctx, q, inv, "BTC", sats, now)
}

// IncomingPaymentRequest is the payment request recorded for the incoming payment id from
// another UMA provider; false when none is.
func (s Store) IncomingPaymentRequest(ctx context.Context, id uuid.UUID) (rail.PaymentRequest, bool, error) {
	inv, err := newQueries(s.pool).LightningInvoiceFor(ctx, uuid.NullUUID{UUID: id, Valid: true})
	if IsNotFound(err) {
		return rail.PaymentRequest{}, false, nil
	}
	if err != nil {
		return rail.PaymentRequest{}, false, fmt.Errorf("read the payment's invoice: %w", err)
	}
	return rail.PaymentRequest{Request: inv.PaymentRequest, Hash: hex.EncodeToString(inv.PaymentHash), ExpiresAt: inv.ExpiresAt}, true, nil
}

// IncomingPaymentRequestRecord records pr, for sats, as the payment request of the
// incoming payment id, for its destination account.
func (s Store) IncomingPaymentRequestRecord(ctx context.Context, id uuid.UUID, pr rail.PaymentRequest, sats int64, now time.Time) error {
	hash, err := hex.DecodeString(pr.Hash)
	if err != nil {
		return fmt.Errorf("payment hash %q: %w", pr.Hash, err)
	}
	if err := newQueries(s.pool).LightningInvoiceAddFor(ctx, LightningInvoiceAddForParams{PaymentHash: hash, PaymentRequest: pr.Request,
		Amount: &sats, ExpiresAt: pr.ExpiresAt, CreatedAt: now, ForTransaction: id}); err != nil {
		return fmt.Errorf("record the payment's invoice: %w", err)
	}
	return nil
}

// unappliedSpace names the ledger transactions of unapplied Lightning receipts.
var unappliedSpace = uuid.MustParse("6f1e9a52-3c1d-4b8e-9f5a-2d7c0b4e8a61")

// LightningUnappliedSats is what every platform's UNAPPLIED accounts hold in BTC.
func (s Store) LightningUnappliedSats(ctx context.Context) (int64, error) {
	n, err := newQueries(s.pool).LightningUnappliedSats(ctx)
	if err != nil {
		return 0, fmt.Errorf("read unapplied Lightning receipts: %w", err)
	}
	return n, nil
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
