package main

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"paycore/api"
	"paycore/db/view"
	"paycore/internal/infra/config"
)

// A randomized concurrent workload (32 clients mixing funding, transfers in and out and
// USD → EUR quotes, locked on either side, with every suffix: refunds, returns and failed
// refunds included) never lets an internal account go below zero, keeps the sum of every
// currency's ledger at zero at all times, and ends with every transaction final, no hold
// left, and the FX and fees accounts holding exactly what the conversions moved.
func TestConservationUnderConcurrentLoad(t *testing.T) {
	// Not parallel: it loads the machine, and runs before the timing-sensitive parallel tests.
	s := newStack(t, func(c *config.Config) {
		c.SandboxSlowDelay, c.WorkerPollers, c.QuoteLifetime = time.Second, 8, 5*time.Second
		quoteFast(c)
	})
	base := newWorld(t, s)
	if r := base.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	worlds := []*world{base}
	for range 3 {
		r := base.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US", "currencies": []string{"USD"}})
		var cust api.Customer
		r.Decode(t, &cust)
		var accts api.List[view.InternalAccount]
		base.c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
		worlds = append(worlds, &world{t: t, s: s, c: base.c, customer: cust.ID, account: accts.Data[0].ID})
	}
	exts, euros := make([][]string, len(worlds)), make([][]string, len(worlds))
	var returning []string // the EUR accounts whose bank returns a completed payment (005)
	suffixes := []string{"001", "002", "003", "004", "005", "009"}
	quoteSuffixes := []string{"001", "002", "003", "004", "005", "006", "007", "009"}
	for i, w := range worlds {
		for _, sfx := range suffixes {
			exts[i] = append(exts[i], w.external(sfx))
		}
		for _, sfx := range quoteSuffixes {
			euros[i] = append(euros[i], w.euroAccount(sfx))
			if sfx == "005" {
				returning = append(returning, uuidOf(euros[i][len(euros[i])-1]))
			}
		}
	}
	// The monitor checks the invariants on committed data while the load runs.
	stop := make(chan struct{})
	var violations atomic.Int64
	var samples atomic.Int64
	monitorDone := make(chan struct{})
	go func() {
		defer close(monitorDone)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			var negative, unbalanced int
			err := s.app.pool.QueryRow(context.Background(), `
				SELECT (SELECT count(*) FROM ledger_balances WHERE kind = 'INTERNAL' AND (balance - held < 0 OR balance < 0 OR held < 0)),
				       (SELECT count(*) FROM (SELECT currency FROM ledger_balances GROUP BY currency HAVING sum(balance) <> 0) x)`).Scan(&negative, &unbalanced)
			if err == nil {
				samples.Add(1)
				if negative > 0 || unbalanced > 0 {
					violations.Add(1)
				}
			}
		}
	}()
	var wg sync.WaitGroup
	var created atomic.Int64
	var refused atomic.Int64
	var quotes atomic.Int64
	for client := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(client), 7))
			for range 12 {
				i := rng.IntN(len(worlds))
				w := worlds[i]
				e := exts[i][rng.IntN(len(suffixes))]
				amount := int64(1 + rng.IntN(5000))
				if rng.IntN(2) == 0 {
					amount *= 4 // large enough that holds compete for the balance
				}
				switch op := rng.IntN(4); op {
				case 0:
					w.fund(amount)
				case 1:
					r := w.transferOut(e, amount)
					if r.Status == 201 {
						created.Add(1)
					} else if r.Status == 400 && r.Code(t) == "INSUFFICIENT_FUNDS" {
						refused.Add(1)
					} else {
						t.Errorf("transfer-out: %d %s", r.Status, r.Body)
					}
				case 2:
					if r := w.transferIn(e, amount); r.Status == 201 {
						created.Add(1)
					} else {
						t.Errorf("transfer-in: %d %s", r.Status, r.Body)
					}
				case 3:
					side := []string{"SENDING", "RECEIVING"}[rng.IntN(2)]
					r := w.quote(euros[i][rng.IntN(len(quoteSuffixes))], side, 100+amount)
					if r.Status != 201 {
						t.Errorf("quote: %d %s", r.Status, r.Body)
						continue
					}
					var q view.Quote
					r.Decode(t, &q)
					switch x := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil); {
					case x.Status == 200:
						created.Add(1)
						quotes.Add(1)
					case x.Status == 400 && x.Code(t) == "INSUFFICIENT_FUNDS":
						refused.Add(1)
					case x.Status == 409 && x.Code(t) == "QUOTE_NOT_PENDING":
						// expired before its turn came: a loaded machine
						refused.Add(1)
					default:
						t.Errorf("execute: %d %s", x.Status, x.Body)
					}
				}
			}
		}()
	}
	wg.Wait()
	// Settled: no payment open, no refund pending, and no payment to a 005 account still
	// COMPLETED (its bank returns it a moment later: it turns FAILED with its refund
	// PENDING), and every account's balance equals its completed movements (checked again
	// below, with the details).
	eventually(t, 60*time.Second, "every transaction and refund to settle", func() bool {
		var open int
		if err := s.app.pool.QueryRow(context.Background(), `SELECT count(*) FROM transactions
			WHERE status IN ('CREATED','PENDING','PROCESSING') OR refund_status = 'PENDING'
			   OR (status = 'COMPLETED' AND destination_account_id = ANY($1::uuid[]))`, returning).Scan(&open); err != nil {
			t.Fatal(err)
		}
		if open != 0 {
			return false
		}
		for _, w := range worlds {
			if w.balance() != completedMovements(t, s, w.account) {
				return false
			}
		}
		return true
	})
	close(stop)
	<-monitorDone
	if violations.Load() > 0 {
		t.Fatalf("%d of %d samples saw a negative balance or an unbalanced currency", violations.Load(), samples.Load())
	}
	if samples.Load() < 10 || created.Load() < 50 || quotes.Load() < 10 {
		t.Fatalf("workload too small: %d samples, %d payments, %d quotes", samples.Load(), created.Load(), quotes.Load())
	}
	// Final state: balanced, no holds, every balance equal to its postings and to the
	// sum of its completed movements.
	var held, sum int64
	if err := s.app.pool.QueryRow(context.Background(), "SELECT coalesce(sum(held),0), coalesce(sum(balance),0) FROM ledger_balances").Scan(&held, &sum); err != nil {
		t.Fatal(err)
	}
	if held != 0 || sum != 0 {
		t.Fatalf("after the load: held %d, ledger sum %d", held, sum)
	}
	var mismatched int
	if err := s.app.pool.QueryRow(context.Background(), `
		SELECT count(*) FROM ledger_balances a
		WHERE a.balance <> coalesce((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id), 0)`).Scan(&mismatched); err != nil {
		t.Fatal(err)
	}
	if mismatched != 0 {
		t.Fatalf("%d accounts whose balance differs from their postings", mismatched)
	}
	for _, w := range worlds {
		if got, expected := w.balance(), completedMovements(t, s, w.account); got != expected {
			t.Fatalf("%s: balance %d, completed movements add up to %d", w.account, got, expected)
		}
	}
	// The conversions: what the money that left took into the USD FX and fees accounts is
	// what they hold, and the EUR FX account paid out exactly what was received.
	var usdIn, usdHeld, eurOut, eurPaid int64
	if err := s.app.pool.QueryRow(context.Background(), `
		SELECT (SELECT coalesce(sum(amount), 0) FROM transactions WHERE kind = 'QUOTE' AND (status = 'COMPLETED' OR refund_status = 'FAILED')),
		       (SELECT coalesce(sum(balance), 0) FROM ledger_balances WHERE kind IN ('FX', 'FEES') AND currency = 'USD'),
		       (SELECT coalesce(sum(receiving_amount), 0) FROM transactions WHERE kind = 'QUOTE' AND (status = 'COMPLETED' OR refund_status = 'FAILED')),
		       (SELECT coalesce(-sum(balance), 0) FROM ledger_balances WHERE kind = 'FX' AND currency = 'EUR')`).Scan(&usdIn, &usdHeld, &eurOut, &eurPaid); err != nil {
		t.Fatal(err)
	}
	if usdIn != usdHeld || eurOut != eurPaid || usdIn == 0 {
		t.Fatalf("conversions took %d USD (FX and fees hold %d) and paid %d EUR (FX paid %d)", usdIn, usdHeld, eurOut, eurPaid)
	}
	t.Logf("%d quotes executed; %d payments created, %d refused for insufficient funds, %d invariant samples", quotes.Load(), created.Load(), refused.Load(), samples.Load())
}

func uuidOf(id string) string {
	_, rest, _ := strings.Cut(id, ":")
	return rest
}

// completedMovements is what the completed movements of an account add up to: money in,
// less money out, counting a payment whose refund failed as out.
func completedMovements(t *testing.T, s *stack, account string) int64 {
	t.Helper()
	var sum int64
	err := s.app.pool.QueryRow(context.Background(), `
		SELECT coalesce(sum(CASE WHEN type = 'INCOMING' THEN amount ELSE -amount END), 0) FROM transactions
		WHERE (status = 'COMPLETED' OR refund_status = 'FAILED') AND (destination_account_id = $1 OR source_account_id = $1)`, uuidOf(account)).Scan(&sum)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}
