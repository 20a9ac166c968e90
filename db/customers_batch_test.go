package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/internal/customer"
	"paycore/internal/ids"
)

// verdicts describes what opening a batch came to, entry by entry: "opened", "exists" or
// the identifier that clashed and the platformCustomerId of its holder.
func verdicts(out []db.CustomerOpened) []string {
	s := make([]string, len(out))
	for i, o := range out {
		switch v := o.Verdict; {
		case v.Exists:
			s[i] = "exists"
		case v.Clash != nil:
			s[i] = fmt.Sprintf("%s of %s", v.Clash.Identifier, v.Clash.Holder.PlatformCustomerID)
		default:
			s[i] = "opened"
		}
	}
	return s
}

// customersAndCounts are the platform's customers and customer accounts as stored, and the
// customers as its list counts (kept by triggers) count them.
func customersAndCounts(t *testing.T, pool *pgxpool.Pool, platformID any) string {
	t.Helper()
	return fmt.Sprintf("%d customers, %d accounts, counted %d",
		count(t, pool, "SELECT count(*) FROM customers WHERE platform_id = $1", platformID),
		count(t, pool, "SELECT count(*) FROM internal_accounts a JOIN ledger_accounts l USING (id) WHERE a.platform_id = $1 AND a.customer_id IS NOT NULL", platformID),
		count(t, pool, "SELECT coalesce(sum(n), 0) FROM list_counts WHERE platform_id = $1 AND list = 'customers' AND key = 'live'", platformID))
}

// A batch is opened as its customers would be one at a time, in its order: an entry whose
// platformCustomerId or umaAddress a stored customer or an earlier entry holds is refused
// naming it (the umaAddress without regard to case), an entry refused holds nothing for
// those after it, and every other entry is opened with its accounts, its ledger accounts
// and its list counts. The same batch opened again opens nothing twice: every entry that
// was opened exists.
func TestCustomersOpenBatch(t *testing.T) {
	t.Parallel()
	w := newBulkWorld(t)
	pool, box, p, s, uma, ctx := w.pool, w.box, w.platform, w.settings, w.uma, context.Background()
	if _, err := db.CustomerOpen(ctx, pool, box, p.ID, newCustomer(t, s, "stored", uma("stored"))); err != nil {
		t.Fatal(err)
	}
	// The stored customer's address in capitals (a legacy row): addresses clash without
	// regard to case.
	if _, err := pool.Exec(ctx, "UPDATE customers SET uma_address = upper(uma_address) WHERE platform_id = $1", p.ID); err != nil {
		t.Fatal(err)
	}
	batch := []customer.New{
		newCustomer(t, s, "p-1", uma("one")),    // opened
		newCustomer(t, s, "stored", uma("two")), // the stored customer's platformCustomerId
		newCustomer(t, s, "p-3", uma("stored")), // the stored customer's umaAddress
		newCustomer(t, s, "p-1", uma("four")),   // entry 0's platformCustomerId
		newCustomer(t, s, "p-5", uma("one")),    // entry 0's umaAddress
		newCustomer(t, s, "p-6", uma("two")),    // entry 1's umaAddress: entry 1 was refused
		newCustomer(t, s, "p-6", uma("seven")),  // entry 5's platformCustomerId
	}
	out, err := db.CustomersOpen(ctx, pool, box, p.ID, batch)
	if err != nil {
		t.Fatal(err)
	}
	want := "[opened platformCustomerId of stored umaAddress of stored platformCustomerId of p-1 umaAddress of p-1 opened platformCustomerId of p-6]"
	if got := fmt.Sprint(verdicts(out)); got != want {
		t.Fatalf("verdicts %s\nwant %s", got, want)
	}
	for _, i := range []int{0, 5} {
		c := out[i].Customer
		if c.ID != batch[i].Record.ID || c.PlatformCustomerID != batch[i].Record.PlatformCustomerID || c.UmaAddress != batch[i].Record.UmaAddress {
			t.Fatalf("entry %d opened %+v", i, c)
		}
		if n := count(t, pool, "SELECT count(*) FROM internal_accounts a JOIN ledger_accounts l USING (id) WHERE a.customer_id = $1 AND a.currency = 'USD' AND l.kind = 'INTERNAL' AND a.funding_instructions <> '[]'", c.ID); n != 1 {
			t.Fatalf("entry %d: %d USD accounts with ledger accounts and funding instructions", i, n)
		}
	}
	if out[1].Customer.ID != uuid.Nil || out[3].Customer.ID != uuid.Nil {
		t.Fatalf("a refused entry carries a customer: %+v", out[1].Customer)
	}
	stored := customersAndCounts(t, pool, p.ID)
	if stored != "3 customers, 3 accounts, counted 3" {
		t.Fatalf("stored: %s", stored)
	}

	// Run again (a batch retried after it committed): the opened entries exist, as they
	// were, and nothing more is written.
	again, err := db.CustomersOpen(ctx, pool, box, p.ID, batch)
	if err != nil {
		t.Fatal(err)
	}
	want = "[exists platformCustomerId of stored umaAddress of stored platformCustomerId of p-1 umaAddress of p-1 exists platformCustomerId of p-6]"
	if got := fmt.Sprint(verdicts(again)); got != want {
		t.Fatalf("verdicts run again %s\nwant %s", got, want)
	}
	if again[0].Customer.ID != out[0].Customer.ID || !again[0].Customer.CreatedAt.Equal(out[0].Customer.CreatedAt) {
		t.Fatalf("run again, entry 0 is %+v, want %+v", again[0].Customer, out[0].Customer)
	}
	if got := customersAndCounts(t, pool, p.ID); got != stored {
		t.Fatalf("run again: %s, want %s", got, stored)
	}
}

// A customer a concurrent transaction opens after the batch read who holds its
// identifiers takes them: the batch is judged again with it, so the entry it clashes with
// is refused and the entry that clashed with that one is opened after all, as one at a
// time would have it.
func TestCustomersOpenBatchJudgedAgainAfterAConcurrentCustomer(t *testing.T) {
	t.Parallel()
	w := newBulkWorld(t)
	pool, box, p, s, uma, ctx := w.pool, w.box, w.platform, w.settings, w.uma, context.Background()
	// The concurrent customer, inserted and not yet committed.
	other, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Rollback(ctx) }()
	if _, err := other.Exec(ctx, `INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, region, currencies, uma_address)
		VALUES ($1, $2, 'racer', 'INDIVIDUAL', 'US', '{USD}', $3)`, ids.New(), p.ID, uma("racer")); err != nil {
		t.Fatal(err)
	}
	batch := []customer.New{
		newCustomer(t, s, "racer", uma("shared")), // the concurrent customer's platformCustomerId
		newCustomer(t, s, "p-2", uma("shared")),   // entry 0's umaAddress, until entry 0 is refused
		newCustomer(t, s, "p-3", uma("three")),
	}
	type result struct {
		out []db.CustomerOpened
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := db.CustomersOpen(ctx, pool, box, p.ID, batch)
		done <- result{out, err}
	}()
	// The batch read before the concurrent customer committed: its insert waits for it.
	deadline := time.Now().Add(30 * time.Second)
	for count(t, pool, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO customers%' AND datname = current_database()") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the batch's insert never waited for the concurrent customer")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := "[platformCustomerId of racer opened opened]"
	if got := fmt.Sprint(verdicts(r.out)); got != want {
		t.Fatalf("verdicts %s\nwant %s", got, want)
	}
	if got := customersAndCounts(t, pool, p.ID); got != "3 customers, 2 accounts, counted 3" {
		t.Fatalf("stored: %s", got)
	}
}
