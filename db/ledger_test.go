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
	src, err := db.LedgerSystemAccount(ctx, pool, p.ID, "USD", db.KindSandboxFunding)
	if err != nil {
		t.Fatal(err)
	}
	return pool, p.ID, a.ID, src
}

func apply(pool *pgxpool.Pool, currency string, moves ...db.Move) error {
	return db.WithTx(context.Background(), pool, func(_ *db.Queries, tx pgx.Tx) error {
		return db.LedgerApply(context.Background(), tx, ids.New(), currency, moves)
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

// A transaction that posts in two currencies (a conversion) balances in each currency
// on its own: entries that sum to zero only across currencies are refused at commit by the
// database, and LedgerApplyLegs refuses an unbalanced leg before writing.
func TestLedgerLegsBalancePerCurrency(t *testing.T) {
	t.Parallel()
	pool, pid, _, src := setup(t)
	ctx := context.Background()
	eurSrc, err := db.LedgerSystemAccount(ctx, pool, pid, "EUR", db.KindSandboxFunding)
	if err != nil {
		t.Fatal(err)
	}
	eurFX, err := db.LedgerSystemAccount(ctx, pool, pid, "EUR", db.KindFX)
	if err != nil {
		t.Fatal(err)
	}
	usdFX, err := db.LedgerSystemAccount(ctx, pool, pid, "USD", db.KindFX)
	if err != nil {
		t.Fatal(err)
	}
	legs := func(tx uuid.UUID, usd, eur int64) error {
		return db.WithTx(ctx, pool, func(q *db.Queries, _ pgx.Tx) error {
			_, err := db.LedgerApplyLegs(ctx, q, tx, []db.Leg{
				{Currency: "USD", Moves: []db.Move{{Account: src.ID, Amount: -usd}, {Account: usdFX.ID, Amount: usd}}},
				{Currency: "EUR", Moves: []db.Move{{Account: eurFX.ID, Amount: -eur}, {Account: eurSrc.ID, Amount: eur}}},
			})
			return err
		})
	}
	if err := legs(ids.New(), 100, 92); err != nil {
		t.Fatalf("a balanced conversion: %v", err)
	}
	// Raw entries: USD +7 and EUR -7 sum to zero overall but balance in neither currency.
	err = db.WithTx(ctx, pool, func(q *db.Queries, _ pgx.Tx) error {
		tx := ids.New()
		if err := q.LedgerEntryCreate(ctx, db.LedgerEntryCreateParams{TransactionID: tx, AccountID: src.ID, Amount: 7, Currency: "USD"}); err != nil {
			return err
		}
		return q.LedgerEntryCreate(ctx, db.LedgerEntryCreateParams{TransactionID: tx, AccountID: eurSrc.ID, Amount: -7, Currency: "EUR"})
	})
	if err == nil {
		t.Fatal("the database accepted entries balanced only across currencies")
	}
	var sums int
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM (SELECT currency FROM ledger_accounts GROUP BY currency HAVING sum(balance) <> 0) x").Scan(&sums)
	if sums != 0 {
		t.Fatalf("%d currencies out of balance", sums)
	}
}
