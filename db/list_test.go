package db_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/internal/events"
	"paycore/internal/ids"
)

// countDrift returns how many (platform, key, day) of list differ between list_counts and
// the rows themselves (each row counted under the keys its table's keys function gives),
// read in one snapshot of q.
func countDrift(t *testing.T, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, table string) int {
	t.Helper()
	var n int
	err := q.QueryRow(context.Background(), fmt.Sprintf(`
		WITH want AS (SELECT r.platform_id, k.key, k.day, count(*) AS n
		              FROM %[1]s r CROSS JOIN LATERAL %[1]s_count_keys(r) k GROUP BY 1, 2, 3),
		     got AS (SELECT platform_id, key, day, sum(n)::bigint AS n FROM list_counts WHERE list = '%[1]s'
		             GROUP BY 1, 2, 3 HAVING sum(n) <> 0)
		SELECT count(*) FROM want FULL JOIN got USING (platform_id, key, day) WHERE want.n IS DISTINCT FROM got.n`, table)).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func newPlatform(t *testing.T, pool *pgxpool.Pool) uuid.UUID {
	t.Helper()
	id := ids.New()
	p, err := db.New(pool).PlatformCreate(context.Background(), db.PlatformCreateParams{ID: id, Name: "p", Environment: "SANDBOX",
		ConfigID: ids.New(), UmaDomain: "p-" + id.String() + ".example.com", SupportedCurrencies: json.RawMessage(`[]`)})
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// transactionWriter makes random changes to the transactions of platforms: single and
// multi-row inserts, status changes of one or many rows, and deletes.
type transactionWriter struct {
	pool      *pgxpool.Pool
	platforms []uuid.UUID
	accounts  []uuid.UUID
}

func (w *transactionWriter) step(ctx context.Context, rng *rand.Rand) error {
	p := w.platforms[rng.IntN(len(w.platforms))]
	switch op := rng.IntN(10); {
	case op < 5:
		rows := 1 + rng.IntN(3)*rng.IntN(4)
		_, err := w.pool.Exec(ctx, `
			INSERT INTO transactions (id, platform_id, platform_customer_id, kind, type, status, source_kind, source_account_id,
			                          destination_kind, destination_account_id, currency, amount, reference, created_at)
			SELECT gen_random_uuid(), $1, CASE WHEN random() < 0.5 THEN 'pc-' || (random() * 3)::int ELSE '' END,
			       'TRANSFER_IN', 'INCOMING', (ARRAY['CREATED', 'PENDING', 'COMPLETED'])[1 + (random() * 2)::int], 'EXTERNAL',
			       CASE WHEN random() < 0.8 THEN ($2::uuid[])[1 + (random() * 3)::int] END, 'INTERNAL', ($2::uuid[])[1 + (random() * 3)::int],
			       'USD', 1, gen_random_uuid()::text, now() - random() * interval '14 days'
			FROM generate_series(1, $3)`, p, w.accounts, rows)
		return err
	case op < 9:
		_, err := w.pool.Exec(ctx, `
			UPDATE transactions SET status = (ARRAY['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REFUNDED'])[1 + (random() * 4)::int],
			       updated_at = now()
			WHERE id IN (SELECT id FROM transactions WHERE platform_id = $1 ORDER BY random() LIMIT $2)`, p, 1+rng.IntN(3))
		return err
	default:
		_, err := w.pool.Exec(ctx, `DELETE FROM transactions WHERE id IN (SELECT id FROM transactions WHERE platform_id = $1 ORDER BY random() LIMIT 1)`, p)
		return err
	}
}

// The deltas written by the triggers always add up to the rows, in every snapshot, while
// writers insert, update and delete concurrently and compactions fold the deltas; after a
// last compaction each key and day is one row.
func TestListCountsStayExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.NewPool(t)
	ctx := context.Background()
	w := &transactionWriter{pool: pool, platforms: []uuid.UUID{newPlatform(t, pool), newPlatform(t, pool)},
		accounts: []uuid.UUID{ids.New(), ids.New(), ids.New(), ids.New()}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var steps, compactions atomic.Int64
	var failed atomic.Value
	for i := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := w.step(ctx, rng); err != nil {
					failed.Store(err)
					return
				}
				steps.Add(1)
			}
		})
	}
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := db.ListCountsCompact(ctx, pool); err != nil {
				failed.Store(err)
				return
			}
			compactions.Add(1)
		}
	})
	deadline := time.Now().Add(3 * time.Second)
	snapshots := 0
	for time.Now().Before(deadline) {
		// A snapshot sees the rows and their deltas together: no drift at any moment.
		err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			if n := countDrift(t, tx, "transactions"); n != 0 {
				t.Errorf("snapshot %d: %d keys differ from the rows", snapshots, n)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		snapshots++
	}
	close(stop)
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatal(err)
	}
	if steps.Load() < 50 || compactions.Load() < 5 {
		t.Fatalf("too little happened: %d changes, %d compactions", steps.Load(), compactions.Load())
	}
	if _, err := db.ListCountsCompact(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if n := countDrift(t, pool, "transactions"); n != 0 {
		t.Fatalf("%d keys differ from the rows after compaction", n)
	}
	var fresh, dup int
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM list_counts WHERE NOT compacted").Scan(&fresh)
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM list_counts GROUP BY platform_id, list, key, day HAVING count(*) > 1) d").Scan(&dup)
	if fresh != 0 || dup != 0 {
		t.Fatalf("after compaction: %d uncompacted rows, %d keys with several rows", fresh, dup)
	}
	t.Logf("%d changes, %d compactions, %d snapshots checked", steps.Load(), compactions.Load(), snapshots)
}

// Rows written before migration 0007 are counted when it runs.
func TestListCountsMigrationCountsExistingRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url, _, provider := migratedDownTo(t, 6)
	pool, err := db.Connect(ctx, url, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// Every row is written as the schema of that version takes it: the service's queries
	// name the columns of the current schema.
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	plat := ids.New()
	exec(`INSERT INTO platforms (id, name, environment, config_id, uma_domain) VALUES ($1, 'p', 'SANDBOX', $2, $3)`,
		plat, ids.New(), "p-"+plat.String()+".example.com")
	w := &transactionWriter{pool: pool, platforms: []uuid.UUID{plat}, accounts: []uuid.UUID{ids.New(), ids.New(), ids.New(), ids.New()}}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 40 {
		if err := w.step(ctx, rng); err != nil {
			t.Fatal(err)
		}
	}
	// Customers, one of them deleted, with an internal account and an external account, and
	// an event, so that every counted table has rows to count.
	customer := ids.New()
	exec(`INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, region, currencies, uma_address, is_deleted)
		VALUES ($1, $2, 'a', 'INDIVIDUAL', 'US', '{USD,USDC}', '$a@x.example', false), ($3, $2, 'b', 'BUSINESS', 'MX', '{MXN}', '$b@x.example', true)`,
		customer, plat, ids.New())
	account := ids.New()
	exec(`INSERT INTO ledger_accounts (id, platform_id, currency, kind) VALUES ($1, $2, 'USD', 'INTERNAL')`, account, plat)
	exec(`INSERT INTO internal_accounts (id, platform_id, customer_id, type, currency) VALUES ($1, $2, $3, 'INTERNAL_FIAT', 'USD')`, account, plat, customer)
	exec(`INSERT INTO external_accounts (id, platform_id, customer_id, currency, account_type, account_info, identifier)
		VALUES ($1, $2, $3, 'USD', 'USD_ACCOUNT', '{"accountType":"USD_ACCOUNT"}', '123456789001')`, ids.New(), plat, customer)
	exec("INSERT INTO webhook_events (id, platform_id, type, data, dispatched_at) VALUES ($1, $2, $3, '{}', now())",
		ids.New(), plat, events.InternalAccountBalanceUpdated)
	if _, err := provider.Up(ctx); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"transactions", "customers", "webhook_events", "internal_accounts", "external_accounts"} {
		var rows, counted int64
		_ = pool.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&rows)
		_ = pool.QueryRow(ctx, "SELECT coalesce(sum(n), 0) FROM list_counts WHERE list = $1", table).Scan(&counted)
		if rows == 0 || counted == 0 {
			t.Errorf("%s: %d rows, %d counted: the backfill has nothing to show", table, rows, counted)
		}
		if n := countDrift(t, pool, table); n != 0 {
			t.Errorf("%s: %d keys differ from the rows", table, n)
		}
	}
	var rows int
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM transactions").Scan(&rows)
	var all int64
	_ = pool.QueryRow(ctx, "SELECT sum(n) FROM list_counts WHERE list = 'transactions' AND key = ''").Scan(&all)
	if all != int64(rows) {
		t.Fatalf("counted %d transactions of %d", all, rows)
	}
}

// A first page that fails on the server (its batch stops inside the read-only transaction)
// leaves no broken connection behind: the pool discards it and the next read works.
func TestListErrorLeavesPoolUsable(t *testing.T) {
	t.Parallel()
	url := dbtest.New(t)
	pool, err := db.Connect(context.Background(), url, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()
	w := &transactionWriter{pool: pool, platforms: []uuid.UUID{newPlatform(t, pool)}, accounts: []uuid.UUID{ids.New(), ids.New(), ids.New(), ids.New()}}
	if err := w.step(ctx, rand.New(rand.NewPCG(1, 1))); err != nil { // an insert
		t.Fatal(err)
	}
	bad := "a\x00b" // Postgres refuses NUL in text while binding the parameters
	before := pool.Stat().NewConnsCount()
	for range 3 {
		if _, err := db.TransactionPage(ctx, pool, db.TransactionFilter{PlatformID: w.platforms[0], Reference: &bad}, db.Page[db.TransactionPos]{Limit: 5}); err == nil {
			t.Fatal("a NUL character went unnoticed")
		}
		res, err := db.TransactionPage(ctx, pool, db.TransactionFilter{PlatformID: w.platforms[0]}, db.Page[db.TransactionPos]{Limit: 5})
		if err != nil || res.Total == 0 || int64(len(res.Rows)) != res.Total {
			t.Fatalf("after a failed read: %+v, %v", res, err)
		}
	}
	if n := pool.Stat().NewConnsCount() - before; n < 3 {
		t.Fatalf("the failed reads' connections were kept (%d new connections)", n)
	}
}

// Every counted list's trigger function is the one template's output for its table
// (migration 0029), with the triggers the template installs: insert, delete, truncate, and
// update where the function handles updates. A hand-written copy that drifts from the
// template, or a counted table missing one of its triggers, fails here.
func TestListCountTriggersComeFromOneTemplate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := dbtest.NewPool(t)
	rows, err := pool.Query(ctx, `
		SELECT c.relname,
		       p.prosrc = list_counts_source(c.relname, EXISTS (SELECT 1 FROM pg_trigger u WHERE u.tgrelid = c.oid AND u.tgname = c.relname || '_count_update')),
		       (SELECT count(*) FROM pg_trigger d WHERE d.tgrelid = c.oid AND d.tgname IN (c.relname || '_count_delete', c.relname || '_count_truncate'))
		FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
		WHERE t.tgname = c.relname || '_count_insert' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var table string
		var fromTemplate bool
		var others int
		if err := rows.Scan(&table, &fromTemplate, &others); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, table)
		if !fromTemplate {
			t.Errorf("%s_count is not list_counts_source(%q): reinstall it with list_counts_install", table, table)
		}
		if others != 2 {
			t.Errorf("%s has %d of its delete and truncate count triggers, want 2", table, others)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"customers", "documents", "external_accounts", "internal_accounts", "transactions", "verifications", "webhook_events"}
	if fmt.Sprint(tables) != fmt.Sprint(want) {
		t.Errorf("counted tables %v, want %v", tables, want)
	}
}
