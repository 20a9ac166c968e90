package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkPaymentCosts measures what one payment costs, for the capacity model
// (docs/performance/capacity.md): b.N payments by 16 clients, each of its own customer on
// one platform, from the request to COMPLETED, then per payment the CPU time of the test
// process (API, worker and the load generator), of its child processes (the Temporal
// server) and of PostgreSQL's processes, the WAL bytes written, and the database's
// transactions and rows inserted, updated and deleted. Machine-wide counters (PostgreSQL's
// CPU, WAL) count everything on the server: run it with nothing else on the machine.
func BenchmarkPaymentCosts(b *testing.B) {
	b.Run("transfer", func(b *testing.B) {
		k := transferCorridor(b, benchClients, b.N/benchClients+1)
		m := startCosts(b, k.s)
		b.ResetTimer()
		clientsDo(b, benchClients, b.N, func(i int) error {
			w := k.worlds[i%len(k.worlds)]
			if r := w.transferOut(k.payees[i%len(k.worlds)], 10); r.Status != 201 {
				return fmt.Errorf("transfer: %d %s", r.Status, r.Body)
			}
			return nil
		})
		waitCompleted(k.s, "TRANSFER_OUT")
		b.StopTimer()
		m.report(b, b.N)
	})
	b.Run("quote", func(b *testing.B) {
		k := quoteBench(b, benchClients, b.N/benchClients+1)
		ids := make([]string, b.N)
		parallel(b, b.N, func(i int) error {
			q, err := k.quote(i)
			ids[i] = q.ID
			return err
		})
		m := startCosts(b, k.s)
		b.ResetTimer()
		clientsDo(b, benchClients, b.N, func(i int) error {
			if r := k.worlds[0].c.Do("POST", "/quotes/"+ids[i]+"/execute", nil); r.Status != 200 {
				return fmt.Errorf("execute: %d %s", r.Status, r.Body)
			}
			return nil
		})
		waitCompleted(k.s, "QUOTE")
		b.StopTimer()
		m.report(b, b.N)
	})
}

// transferCorridor is a corridor for transfers out: customers funded USD customers of one
// platform, each with a USD external account of its own.
func transferCorridor(b *testing.B, customers, perCustomer int) corridor {
	return openCorridor(b, customers, func(*world) {}, func(w *world) string {
		w.fund(int64(perCustomer)*10 + 10)
		return w.external("001")
	})
}

// clientsDo runs op(i) for i in [0, n) on clients goroutines, client c taking i = c, c +
// clients, … one after another (each client is one customer's), failing b on an error.
func clientsDo(b *testing.B, clients, n int, op func(i int) error) {
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < n; i += clients {
				if err := op(i); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// waitCompleted waits until no payment of kind is open on s's database.
func waitCompleted(s *stack, kind string) {
	for {
		var open int
		_ = s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM transactions WHERE kind = $1 AND status <> 'COMPLETED'", kind).Scan(&open)
		if open == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// costs is a reading of the counters a costMeter compares.
type costs struct {
	self, children, postgres            time.Duration
	wal                                 string // pg_current_wal_lsn
	commits, inserted, updated, deleted int64
}

// costMeter reads the counters when a measured run starts and again at its end.
type costMeter struct {
	s      *stack
	before costs
}

func startCosts(b *testing.B, s *stack) *costMeter {
	flushStats()
	return &costMeter{s: s, before: readCosts(b, s)}
}

// flushStats waits for the database's backends to flush their statistics: an idle
// backend flushes what it counted at the latest 10 seconds after its last flush.
func flushStats() { time.Sleep(11 * time.Second) }

// report reports the counters' growth since startCosts divided by n payments.
func (m *costMeter) report(b *testing.B, n int) {
	flushStats()
	after := readCosts(b, m.s)
	var wal int64
	if err := m.s.app.pool.QueryRow(context.Background(), "SELECT pg_wal_lsn_diff($1, $2)::bigint", after.wal, m.before.wal).Scan(&wal); err != nil {
		b.Fatal(err)
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	b.ReportMetric(per(after.self-m.before.self), "cpu-ms-service/op")
	b.ReportMetric(per(after.children-m.before.children), "cpu-ms-temporal/op")
	b.ReportMetric(per(after.postgres-m.before.postgres), "cpu-ms-postgres/op")
	b.ReportMetric(float64(wal)/float64(n), "wal-bytes/op")
	b.ReportMetric(float64(after.commits-m.before.commits)/float64(n), "db-commits/op")
	b.ReportMetric(float64(after.inserted-m.before.inserted)/float64(n), "rows-inserted/op")
	b.ReportMetric(float64(after.updated-m.before.updated)/float64(n), "rows-updated/op")
	b.ReportMetric(float64(after.deleted-m.before.deleted)/float64(n), "rows-deleted/op")
}

func readCosts(b *testing.B, s *stack) costs {
	var c costs
	c.self = procCPU("self", false)
	for _, pid := range childPIDs() {
		c.children += procCPU(pid, false)
	}
	c.postgres = postgresCPU()
	err := s.app.pool.QueryRow(context.Background(), `SELECT pg_current_wal_lsn()::text, xact_commit, tup_inserted, tup_updated, tup_deleted
		FROM pg_stat_database WHERE datname = current_database()`).Scan(&c.wal, &c.commits, &c.inserted, &c.updated, &c.deleted)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// procCPU is the user and system CPU time of process pid ("self" for this one) from
// /proc/pid/stat, with its waited-for children's when withChildren; 0 if it is gone.
// /proc counts in USER_HZ, 100 per second on Linux.
func procCPU(pid string, withChildren bool) time.Duration {
	raw, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces: count from after it.
	rest := string(raw)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest) // f[0] is field 3 (state); utime, stime, cutime, cstime are fields 14–17
	if len(f) < 15 {
		return 0
	}
	ticks := int64(0)
	last := 13
	if withChildren {
		last = 15
	}
	for i := 11; i < last; i++ {
		n, _ := strconv.ParseInt(f[i], 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// childPIDs are this process's child processes (the Temporal server it started).
func childPIDs() []string {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	var pids []string
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		pids = append(pids, strings.Fields(string(raw))...)
	}
	return pids
}

// postgresCPU is the CPU time of every PostgreSQL process, with the postmaster's
// waited-for children's (backends that have exited since).
func postgresCPU() time.Duration {
	comms, _ := filepath.Glob("/proc/[0-9]*/comm")
	var total time.Duration
	for _, c := range comms {
		raw, err := os.ReadFile(c)
		if err != nil || strings.TrimSpace(string(raw)) != "postgres" {
			continue
		}
		pid := filepath.Base(filepath.Dir(c))
		total += procCPU(pid, true)
	}
	return total
}
