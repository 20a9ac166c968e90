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
		return q.LedgerEntriesCreate(context.Background(), db.LedgerEntriesCreateParams{TransactionID: ids.New(), Currency: "USD", AccountIds: []uuid.UUID{acct}, Amounts: []int64{5}})
	})
	if err == nil {
		t.Fatal("the database accepted an unbalanced posting")
	}
	var bal, held int64
	_ = pool.QueryRow(context.Background(), "SELECT balance, held FROM ledger_balances WHERE id = $1", acct).Scan(&bal, &held)
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
	eurSrc, eurFX, usdFX := systemAccount(t, pool, pid, "EUR", db.KindSandboxFunding), systemAccount(t, pool, pid, "EUR", db.KindFX), systemAccount(t, pool, pid, "USD", db.KindFX)
	legs := func(tx uuid.UUID, usd, eur int64) error {
		return db.WithTx(ctx, pool, func(q *db.Queries, _ pgx.Tx) error {
			_, err := db.LedgerApplyLegs(ctx, q, tx, []db.Leg{
				{Currency: "USD", Moves: []db.Move{{Account: src.ID, Amount: -usd}, {Account: usdFX, Amount: usd}}},
				{Currency: "EUR", Moves: []db.Move{{Account: eurFX, Amount: -eur}, {Account: eurSrc, Amount: eur}}},
			}, nil)
			return err
		})
	}
	if err := legs(ids.New(), 100, 92); err != nil {
		t.Fatalf("a balanced conversion: %v", err)
	}
	// Raw entries: USD +7 and EUR -7 sum to zero overall but balance in neither currency.
	err := db.WithTx(ctx, pool, func(q *db.Queries, _ pgx.Tx) error {
		tx := ids.New()
		if err := q.LedgerEntriesCreate(ctx, db.LedgerEntriesCreateParams{TransactionID: tx, Currency: "USD", AccountIds: []uuid.UUID{src.ID}, Amounts: []int64{7}}); err != nil {
			return err
		}
		return q.LedgerEntriesCreate(ctx, db.LedgerEntriesCreateParams{TransactionID: tx, Currency: "EUR", AccountIds: []uuid.UUID{eurSrc}, Amounts: []int64{-7}})
	})
	if err == nil {
		t.Fatal("the database accepted entries balanced only across currencies")
	}
	var sums int
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM (SELECT currency FROM ledger_balances GROUP BY currency HAVING sum(balance) <> 0) x").Scan(&sums)
	if sums != 0 {
		t.Fatalf("%d currencies out of balance", sums)
	}
}

// A posting that changes only a house account's balance takes no lock on it: while one
// transaction's posting to the platform's SETTLEMENT account is still open, another
// customer's posting to the same account commits at once (under a lock_timeout it would
// fail if it waited for the first's lock), and both land in the account's balance.
func TestLedgerHousePostingsTakeNoLock(t *testing.T) {
	t.Parallel()
	pool, pid, a, src := setup(t)
	ctx := context.Background()
	b, settlement := internalAccount(t, pool, pid), systemAccount(t, pool, pid, "USD", db.KindSettlement)
	for _, acct := range []uuid.UUID{a, b} {
		if err := apply(pool, "USD", db.Move{Account: src.ID, Amount: -100}, db.Move{Account: acct, Amount: 100}); err != nil {
			t.Fatal(err)
		}
	}
	first, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = first.Rollback(ctx) }()
	if err := db.LedgerApply(ctx, first, ids.New(), "USD", []db.Move{{Account: a, Amount: -30}, {Account: settlement, Amount: 30}}); err != nil {
		t.Fatal(err)
	}
	err = db.WithTx(ctx, pool, func(_ *db.Queries, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '2s'"); err != nil {
			return err
		}
		return db.LedgerApply(ctx, tx, ids.New(), "USD", []db.Move{{Account: b, Amount: -40}, {Account: settlement, Amount: 40}})
	})
	if err != nil {
		t.Fatalf("a posting to the house account waited for another's: %v", err)
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := balanceOf(t, pool, settlement); got != 70 {
		t.Fatalf("settlement balance %d, want 70", got)
	}
	// A house account of another currency, or no account at all, is refused.
	eur := systemAccount(t, pool, pid, "EUR", db.KindSettlement)
	if err := apply(pool, "USD", db.Move{Account: a, Amount: -1}, db.Move{Account: eur, Amount: 1}); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("a EUR house account in a USD posting: %v", err)
	}
	if err := apply(pool, "USD", db.Move{Account: a, Amount: -1}, db.Move{Account: ids.New(), Amount: 1}); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("a posting to no account: %v", err)
	}
	if got := balanceOf(t, pool, a); got != 70 {
		t.Fatalf("a refused posting moved money: balance %d", got)
	}
}

// Rolling the house postings up changes no balance in any snapshot: while postings run
// concurrently with roll-ups, every currency sums to zero through ledger_balances at every
// read, and at the end each account's balance is the sum of its entries and nothing is
// left to roll up.
func TestLedgerHouseRollUp(t *testing.T) {
	t.Parallel()
	pool, pid, _, src := setup(t)
	ctx := context.Background()
	fees := systemAccount(t, pool, pid, "USD", db.KindFees)
	accounts := make([]uuid.UUID, 8)
	for i := range accounts {
		accounts[i] = internalAccount(t, pool, pid)
	}
	stop := make(chan struct{})
	var readers, writers sync.WaitGroup
	// Until the writers are done, fn runs again and again; an error stops it.
	repeat := func(fn func() error) {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := fn(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	repeat(func() error { // roll up all along
		_, err := db.LedgerHouseRollUp(ctx, pool)
		return err
	})
	repeat(func() error { // and read the sums
		var off int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM (SELECT currency FROM ledger_balances GROUP BY currency HAVING sum(balance) <> 0) x").Scan(&off); err != nil {
			return err
		}
		if off != 0 {
			return errors.New("a reader saw a currency that does not sum to zero")
		}
		return nil
	})
	for _, acct := range accounts {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for range 25 {
				if err := apply(pool, "USD", db.Move{Account: src.ID, Amount: -10}, db.Move{Account: acct, Amount: 10}); err != nil {
					t.Error(err)
					return
				}
				if err := apply(pool, "USD", db.Move{Account: acct, Amount: -3}, db.Move{Account: fees, Amount: 1}, db.Move{Account: src.ID, Amount: 2}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	writers.Wait()
	close(stop)
	readers.Wait()
	if _, err := db.LedgerHouseRollUp(ctx, pool); err != nil {
		t.Fatal(err)
	}
	var pending, mismatched int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM ledger_house_postings),
		(SELECT count(*) FROM ledger_accounts a WHERE a.balance <> coalesce((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id), 0))`).Scan(&pending, &mismatched); err != nil {
		t.Fatal(err)
	}
	if pending != 0 || mismatched != 0 {
		t.Fatalf("%d postings left to roll up, %d accounts whose balance differs from their entries", pending, mismatched)
	}
	if got := balanceOf(t, pool, fees); got != 8*25 {
		t.Fatalf("fees %d, want %d", got, 8*25)
	}
	if got := balanceOf(t, pool, src.ID); got != -8*25*8 {
		t.Fatalf("funding %d, want %d", got, -8*25*8)
	}
}

// systemAccount is the platform's house account of kind in currency.
func systemAccount(t *testing.T, pool *pgxpool.Pool, platform uuid.UUID, currency, kind string) uuid.UUID {
	t.Helper()
	a, err := db.LedgerSystemAccount(context.Background(), pool, platform, currency, kind)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// balanceOf is an account's whole balance (ledger_balances).
func balanceOf(t *testing.T, pool *pgxpool.Pool, id uuid.UUID) int64 {
	t.Helper()
	var b int64
	if err := pool.QueryRow(context.Background(), "SELECT balance FROM ledger_balances WHERE id = $1", id).Scan(&b); err != nil {
		t.Fatal(err)
	}
	return b
}
