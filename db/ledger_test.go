package db_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/internal/ids"
)

func setup(t *testing.T) (*pgxpool.Pool, uuid.UUID, uuid.UUID, db.LedgerAccount) {
	pool, _ := dbtest.NewPool(t)
	q := db.New(pool)
	ctx := context.Background()
	p, err := q.PlatformCreate(ctx, db.PlatformCreateParams{ID: ids.New(), Name: "p", Environment: "SANDBOX", ConfigID: ids.New(), UmaDomain: "p.example.com", SupportedCurrencies: json.RawMessage(`[]`)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := q.LedgerAccountCreate(ctx, db.LedgerAccountCreateParams{ID: ids.New(), PlatformID: p.ID, Currency: "USD", Kind: db.KindInternal})
	if err != nil {
		t.Fatal(err)
	}
	src, err := db.LedgerSystemAccount(ctx, q, p.ID, "USD", db.KindSandboxFunding)
	if err != nil {
		t.Fatal(err)
	}
	return pool, p.ID, a.ID, src
}

func apply(pool *pgxpool.Pool, currency string, moves ...db.Move) error {
	return db.WithTx(context.Background(), pool, func(q *db.Queries, _ pgx.Tx) error {
		return db.LedgerApply(context.Background(), q, ids.New(), currency, moves)
	})
}

func TestLedgerRules(t *testing.T) {
	t.Parallel()
	pool, _, acct, src := setup(t)
	if err := apply(pool, "USD", db.Move{Account: src.ID, Amount: -1000}, db.Move{Account: acct, Amount: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := apply(pool, "USD", db.Move{Account: src.ID, Amount: -10}, db.Move{Account: acct, Amount: 5}); err == nil {
		t.Fatal("unbalanced postings accepted")
	}
	if err := apply(pool, "EUR", db.Move{Account: src.ID, Amount: -10}, db.Move{Account: acct, Amount: 10}); err == nil {
		t.Fatal("currency mismatch accepted")
	}
	if err := apply(pool, "USD", db.Move{Account: acct, Held: 1001}); !errors.Is(err, db.ErrInsufficientFunds) {
		t.Fatalf("hold above balance: %v", err)
	}
	if err := apply(pool, "USD", db.Move{Account: acct, Held: 600}); err != nil {
		t.Fatal(err)
	}
	if err := apply(pool, "USD", db.Move{Account: acct, Amount: -500}, db.Move{Account: src.ID, Amount: 500}); !errors.Is(err, db.ErrInsufficientFunds) {
		t.Fatalf("spending held funds: %v", err)
	}
	if err := apply(pool, "USD", db.Move{Account: acct, Held: -700}); err == nil {
		t.Fatal("released more than held")
	}
	// The database itself refuses unbalanced postings at commit, whatever the code does.
	err := db.WithTx(context.Background(), pool, func(q *db.Queries, _ pgx.Tx) error {
		return q.LedgerEntryCreate(context.Background(), db.LedgerEntryCreateParams{TransactionID: ids.New(), AccountID: acct, Amount: 5, Currency: "USD"})
	})
	if err == nil {
		t.Fatal("the database accepted an unbalanced posting")
	}
	var bal, held int64
	_ = pool.QueryRow(context.Background(), "SELECT balance, held FROM ledger_accounts WHERE id = $1", acct).Scan(&bal, &held)
	if bal != 1000 || held != 600 {
		t.Fatalf("balance %d held %d", bal, held)
	}
}

// Concurrent holds never over-commit an account.
func TestLedgerConcurrentHolds(t *testing.T) {
	t.Parallel()
	pool, _, acct, src := setup(t)
	if err := apply(pool, "USD", db.Move{Account: src.ID, Amount: -1000}, db.Move{Account: acct, Amount: 1000}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := apply(pool, "USD", db.Move{Account: acct, Held: 100}); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			} else if !errors.Is(err, db.ErrInsufficientFunds) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok != 10 {
		t.Fatalf("%d holds of 100 succeeded on a balance of 1000", ok)
	}
}
