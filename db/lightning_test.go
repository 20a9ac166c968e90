package db_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/lightning"
)

// btcAccount opens a BTC internal account of a new customer of platform p.
func btcAccount(t *testing.T, pool *pgxpool.Pool, p uuid.UUID) uuid.UUID {
	t.Helper()
	return internalAccountIn(t, pool, p, "BTC", "INTERNAL_CRYPTO")
}

// systemBalance is the platform's system account of kind in BTC (0 before its first use).
func systemBalance(t *testing.T, pool *pgxpool.Pool, p uuid.UUID, kind string) int64 {
	t.Helper()
	var b int64
	if err := pool.QueryRow(context.Background(), `SELECT coalesce(sum(balance), 0) FROM ledger_balances WHERE platform_id = $1 AND kind = $2 AND currency = 'BTC'`,
		p, kind).Scan(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

// A settled invoice's payment is received once: it credits its open account with one
// INCOMING transaction however often it is reported; the payment of an invoice whose
// account was closed since is held, once, on the platform's UNAPPLIED account, so the
// ledger still accounts for what the node received; neither is scanned for again.
func TestLightningReceive(t *testing.T) {
	t.Parallel()
	pool, p, _, _ := setup(t)
	ctx := context.Background()
	store := db.NewStore(pool, view.Resources{})
	now := time.Now().UTC().Truncate(time.Microsecond)
	invoice := func(account uuid.UUID) []byte {
		hash := make([]byte, 32)
		_, _ = rand.Read(hash)
		if err := store.LightningInvoiceAdd(ctx, lightning.FundingInvoice{Hash: hash, PlatformID: p, AccountID: account, PaymentRequest: "lnbcrt1" + ids.New().String(),
			ExpiresAt: now.Add(time.Hour), CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
		return hash
	}
	open, closing := btcAccount(t, pool, p), btcAccount(t, pool, p)
	credit, unapplied := invoice(open), invoice(closing)
	if err := closeAccount(pool, p, closing); err != nil {
		t.Fatal(err)
	}

	var first uuid.UUID
	for i := range 2 {
		r, err := store.LightningReceive(ctx, credit, 2_100, now)
		if err != nil {
			t.Fatal(err)
		}
		if r.Credited != (i == 0) || r.Unapplied || r.Transaction.Amount != 2_100 || (i > 0 && r.Transaction.ID != first) {
			t.Fatalf("report %d: %+v", i, r)
		}
		first = r.Transaction.ID
	}
	if _, balance, _ := accountState(t, pool, open); balance != 2_100 {
		t.Fatalf("the open account holds %d", balance)
	}
	for i := range 2 {
		r, err := store.LightningReceive(ctx, unapplied, 700, now)
		if err != nil {
			t.Fatal(err)
		}
		if r.Unapplied != (i == 0) || r.Credited || r.Transaction.ID != uuid.Nil {
			t.Fatalf("report %d for the closed account: %+v", i, r)
		}
	}
	if status, balance, _ := accountState(t, pool, closing); status != "CLOSED" || balance != 0 {
		t.Fatalf("the closed account: %s, %d", status, balance)
	}
	if got := systemBalance(t, pool, p, db.KindUnapplied); got != 700 {
		t.Fatalf("UNAPPLIED holds %d, want 700", got)
	}
	if got := systemBalance(t, pool, p, db.KindLightning); got != -2_800 {
		t.Fatalf("LIGHTNING is %d, want -2800: the node received both payments", got)
	}
	if held, err := store.LightningUnappliedSats(ctx); err != nil || held < 700 {
		t.Fatalf("unapplied sats %d (%v)", held, err)
	}
	left, err := store.LightningInvoicesUncredited(ctx, now, 1_000)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range left {
		if bytes.Equal(h, credit) || bytes.Equal(h, unapplied) {
			t.Fatalf("a received invoice is scanned for again: %x", h)
		}
	}
	if _, err := store.LightningReceive(ctx, invoice(open), 0, now); err == nil {
		t.Fatal("a payment of nothing was received")
	}
}
