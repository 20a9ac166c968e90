package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"paycore/db/view"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/lnregtest/lntest"
)

// BenchmarkLightningPayouts measures USD payouts through the whole service (POST /quotes
// with immediatelyExecute, its workflow, the rail, the ledger) on the two rails side by
// side, in one run on one stack: the sandbox rail (a EUR payout completing at once) and
// the Lightning rail (a BTC payout of 1,000 sat paid to an invoice of the counterparty
// node of a regtest network). For each rail it first finds the ceiling (40 payouts, 16 at
// a time, each waited for until COMPLETED), then sends b.N payouts open loop at half that
// rate and reports the latency from each request's due time to its transaction's
// settledAt: p50 and p99. make bench-lightning runs it (PAYCORE_LIGHTNING_BIN).
func BenchmarkLightningPayouts(b *testing.B) {
	s, n, _ := lightningStack(b, 18750)
	w := lightningWorld(b, s, int64(b.N+100)*20_000)
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("BTC"), currencyItem("EUR")}}); r.Status != 200 {
		b.Fatalf("config: %d %s", r.Status, r.Body)
	}
	w.c.SkipValidation = true // the client's own checks would compete for the CPU
	peer := lntest.Dial(b, n.Peer)
	euro := w.euroAccount("001")
	rails := []struct {
		name string
		dest func(i int) (string, int64) // a destination account and the amount it receives
	}{
		{"sandbox", func(int) (string, int64) { return euro, 500 }},
		{"lightning", func(int) (string, int64) { return w.lightningAccount(peerInvoice(b, peer, 1_000)), 1_000 }},
	}
	b.ResetTimer()
	for _, r := range rails {
		// The destinations are made before the clock runs: the counterparty's invoices and
		// their external accounts are not what is measured.
		const ceilingN = 40
		dests := make([]string, ceilingN+b.N)
		amounts := make([]int64, len(dests))
		b.StopTimer()
		for i := range dests {
			dests[i], amounts[i] = r.dest(i)
		}
		b.StartTimer()
		ceiling := lightningCeiling(b, s, w, dests[:ceilingN], amounts[:ceilingN])
		lat := lightningOpenLoop(b, s, w, dests[ceilingN:], amounts[ceilingN:], ceiling/2)
		b.ReportMetric(ceiling, r.name+"-ceiling/s")
		b.ReportMetric(ceiling/2, r.name+"-rate/s")
		reportLatencyAs(b, lat, r.name+"-completed")
	}
	b.StopTimer()
	if got := reconcile(b, s, n); got["reconciliation"].(map[string]any)["agree"] != true {
		b.Fatalf("the node and the ledger differ after the run: %v", got)
	}
}

// BenchmarkLightningPayoutCosts is BenchmarkPaymentCosts for a Lightning payout: b.N USD
// payouts of 1,000 sat each (POST /quotes with immediatelyExecute) to invoices of the
// regtest network's counterparty node, 16 at a time from one customer, each waited for
// until COMPLETED; then per payout the CPU time of the test process, of each child process
// by name (the Temporal server, the Lightning nodes, the chain backend), of PostgreSQL,
// the WAL bytes and the database's transactions and rows, and one payout's workflow
// history. make bench-lightning runs it.
func BenchmarkLightningPayoutCosts(b *testing.B) {
	s, n, _ := lightningStack(b, 18790)
	w := lightningWorld(b, s, int64(b.N+100)*20_000)
	w.c.SkipValidation = true
	peer := lntest.Dial(b, n.Peer)
	dests := make([]string, b.N)
	for i := range dests {
		dests[i] = w.lightningAccount(peerInvoice(b, peer, 1_000))
	}
	m := startCosts(b, s)
	b.ResetTimer()
	start := time.Now()
	clientsDo(b, benchClients, b.N, func(i int) error {
		id, err := w.payout(dests[i], 1_000)
		if err == nil {
			settledAt(b, s, id)
		}
		return err
	})
	waitCompleted(s, "QUOTE")
	b.StopTimer()
	m.report(b, b.N, time.Since(start))
	countPaymentHistory(b, s, "QUOTE")
	if got := reconcile(b, s, n); got["reconciliation"].(map[string]any)["agree"] != true {
		b.Fatalf("the node and the ledger differ after the run: %v", got)
	}
}

// peerInvoice is a new invoice of sats of the counterparty node.
func peerInvoice(b *testing.B, peer *lnd.Client, sats int64) string {
	inv, err := peer.AddInvoice(context.Background(), lnd.NewInvoice{Sats: sats})
	if err != nil {
		b.Fatal(err)
	}
	return inv.PaymentRequest
}

// payout requests a payout receiving amount on dest, executed at once, and returns its
// transaction's id.
func (w *world) payout(dest string, amount int64) (string, error) {
	r := w.quote(dest, "RECEIVING", amount, map[string]any{"immediatelyExecute": true})
	if r.Status != 201 && r.Status != 200 {
		return "", fmt.Errorf("quote: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(w.t, &q)
	return q.TransactionID, nil
}

// settledAt waits until the transaction is COMPLETED and returns when it settled.
func settledAt(b *testing.B, s *stack, id string) time.Time {
	var at *time.Time
	eventually(b, 2*time.Minute, "transaction "+id+" to complete", func() bool {
		var status string
		err := s.app.pool.QueryRow(context.Background(), "SELECT status, settled_at FROM transactions WHERE id = $1", uuidOf(id)).Scan(&status, &at)
		if err == nil && status == "FAILED" {
			b.Fatalf("transaction %s failed", id)
		}
		return err == nil && status == "COMPLETED" && at != nil
	})
	return *at
}

// lightningCeiling pays the destinations 16 at a time, each waited for until COMPLETED,
// and returns the rate they completed at.
func lightningCeiling(b *testing.B, s *stack, w *world, dests []string, amounts []int64) float64 {
	next := make(chan int, len(dests))
	for i := range dests {
		next <- i
	}
	close(next)
	start := time.Now()
	var wg sync.WaitGroup
	for range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				id, err := w.payout(dests[i], amounts[i])
				if err != nil {
					b.Error(err)
					return
				}
				settledAt(b, s, id)
			}
		}()
	}
	wg.Wait()
	return float64(len(dests)) / time.Since(start).Seconds()
}

// lightningOpenLoop requests a payout to each destination at rate per second, whatever
// the answers' latency, and returns each one's latency from when it was due to when its
// transaction settled.
func lightningOpenLoop(b *testing.B, s *stack, w *world, dests []string, amounts []int64, rate float64) []time.Duration {
	interval := time.Duration(float64(time.Second) / rate)
	lat := make([]time.Duration, len(dests))
	var wg sync.WaitGroup
	start := time.Now()
	for i := range dests {
		due := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(due))
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := w.payout(dests[i], amounts[i])
			if err != nil {
				b.Error(err)
				return
			}
			lat[i] = settledAt(b, s, id).Sub(due)
		}()
	}
	wg.Wait()
	return lat
}
