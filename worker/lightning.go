package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/lnd/lndrpc"
	"paycore/internal/infra/metrics"
	"paycore/internal/lightning"
)

// LightningWatcher credits the internal accounts whose funding invoices the deployment's
// node reports settled (db.Store.LightningReceive: once per invoice, whatever the number
// of watchers or replays). Each time it starts following the node's settled invoices (at
// start, and again after the subscription broke) it subscribes from the settle index it
// recorded last (LND replays those settled since), then asks the node about each invoice
// not yet credited that was payable in the last day: together they miss no settlement made
// while no watcher listened, nor one made between the subscription and the scan. While the
// subscription holds it reports every settlement, so nothing is scanned meanwhile.
type LightningWatcher struct {
	Store  db.Store
	Node   *lnd.Client
	Logger *slog.Logger
	// Now is the clock receipts are dated by (time.Now when nil).
	Now func() time.Time
	// Metrics counts what was received (none when nil).
	Metrics *metrics.Metrics
	// Retry is the wait before following again after the subscription broke (default 2 s).
	Retry time.Duration
	// Collected tells the workflow of a pending incoming payment from another UMA provider
	// that the invoice collecting it settled (start.Starter.Collected); without it such an
	// invoice is found when it expires.
	Collected func(ctx context.Context, transactionID uuid.UUID) error
}

// Run watches until ctx ends.
func (l *LightningWatcher) Run(ctx context.Context) {
	if l.Retry <= 0 {
		l.Retry = 2 * time.Second
	}
	if l.Now == nil {
		l.Now = time.Now
	}
	for {
		err := l.watch(ctx)
		if ctx.Err() != nil {
			return
		}
		l.Logger.Warn("lightning: following settled invoices stopped; following them again", "error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(l.Retry):
		}
	}
}

// watch subscribes from the recorded settle index, scans, then credits what the
// subscription reports until it breaks.
func (l *LightningWatcher) watch(ctx context.Context) error {
	info, err := l.Node.Info(ctx)
	if err != nil {
		return err
	}
	node := info.IdentityPubkey
	cursor, err := l.Store.LightningSettleCursor(ctx, node)
	if err != nil {
		return err
	}
	// The subscription is opened before the scan, so a settlement between the two is
	// reported by one or the other (crediting is idempotent: seen twice, credited once).
	settlements := make(chan *lndrpc.Invoice, 64)
	subscription := make(chan error, 1)
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		subscription <- l.Node.SubscribeInvoices(subCtx, 0, cursor, func(inv *lndrpc.Invoice) error {
			select {
			case settlements <- inv:
				return nil
			case <-subCtx.Done():
				return subCtx.Err()
			}
		})
	}()
	if err := l.scan(ctx); err != nil {
		return err
	}
	for {
		select {
		case err := <-subscription:
			return err
		case inv := <-settlements:
			if inv.State != lndrpc.Invoice_SETTLED {
				continue
			}
			if err := l.receive(ctx, inv.RHash, inv.AmtPaidSat); err != nil {
				return err
			}
			if err := l.Store.LightningSettleCursorAdvance(ctx, node, inv.SettleIndex); err != nil {
				return err
			}
		}
	}
}

// scan asks the node about every invoice not yet credited that was payable in the last
// day and credits those it settled.
func (l *LightningWatcher) scan(ctx context.Context) error {
	hashes, err := l.Store.LightningInvoicesUncredited(ctx, l.Now().Add(-24*time.Hour), 10_000)
	if err != nil {
		return err
	}
	for _, h := range hashes {
		inv, err := l.Node.LookupInvoice(ctx, h)
		if errors.Is(err, lnd.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if inv.State == lndrpc.Invoice_SETTLED {
			if err := l.receive(ctx, h, inv.AmtPaidSat); err != nil {
				return err
			}
		}
	}
	return nil
}

// receive credits the account of a settled invoice with what was paid to it. An invoice
// the service did not create for an account is none of its business; the payment of one
// whose account was closed since is held on the platform's UNAPPLIED account and logged for
// an operator (reconciliation shows what is held).
func (l *LightningWatcher) receive(ctx context.Context, hash []byte, sats int64) error {
	r, err := l.Store.LightningReceive(ctx, hash, sats, l.Now())
	switch {
	case db.IsNotFound(err):
		return nil
	case errors.Is(err, lightning.ErrReceiptRefused):
		l.Logger.Error("lightning: a settled invoice paid nothing", "payment_hash", fmt.Sprintf("%x", hash), "sats", sats, "error", err)
		return nil
	case err != nil:
		return fmt.Errorf("credit invoice %x: %w", hash, err)
	case r.Collects.Valid:
		if l.Collected == nil {
			return nil
		}
		// Not told, the payment's workflow finds the settlement when the invoice expires;
		// an error follows the settlements again from the same cursor, telling it again.
		if err := l.Collected(ctx, r.Collects.UUID); err != nil {
			return fmt.Errorf("tell payment %s its invoice %x settled: %w", r.Collects.UUID, hash, err)
		}
		l.Logger.Info("lightning: an incoming UMA payment's invoice settled", "payment_hash", fmt.Sprintf("%x", hash), "sats", sats, "transaction", r.Collects.UUID)
		return nil
	case r.Unapplied:
		l.Logger.Warn("lightning: a settled invoice's account is closed: its payment is held as unapplied for an operator to return",
			"payment_hash", fmt.Sprintf("%x", hash), "sats", sats)
		return nil
	case !r.Credited:
		return nil // received before
	}
	t := r.Transaction
	if l.Metrics != nil {
		l.Metrics.LightningReceivedSats.Add(float64(sats))
	}
	l.Logger.Info("lightning: received", "payment_hash", fmt.Sprintf("%x", hash), "sats", sats, "transaction", t.ID)
	return nil
}
