package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/infra/tcluster"
	"paycore/workflows"
)

// BenchmarkPaymentCosts measures what one payment costs, for the capacity model
// (docs/performance/capacity.md): b.N payments by 16 clients, each of its own customer on
// one platform, from the first request to COMPLETED (a quote's creation and its execution),
// then per payment the CPU time of the test
// process (API, worker and the load generator), of each of its child processes by name
// (the Temporal server) and of PostgreSQL's processes, the WAL bytes written, the
// service database's transactions and rows inserted, updated and deleted, and one
// payment's workflow history (events, workflow tasks, activities, local activities). On the
// cluster profile (PAYCORE_TEST_TEMPORAL=cluster) it also reports the Temporal server's own
// counters (state transitions, persistence requests, actions) and its databases'
// transactions and rows. Machine-wide counters (PostgreSQL's CPU, WAL) count everything on
// the server: run it with nothing else on the machine.
func BenchmarkPaymentCosts(b *testing.B) {
	b.Run("transfer", func(b *testing.B) {
		k := transferCorridor(b, benchClients, b.N/benchClients+1)
		m := startCosts(b, k.s)
		b.ResetTimer()
		start := time.Now()
		clientsDo(b, benchClients, b.N, func(i int) error {
			w := k.worlds[i%len(k.worlds)]
			if r := w.transferOut(k.payees[i%len(k.worlds)], 10); r.Status != 201 {
				return fmt.Errorf("transfer: %d %s", r.Status, r.Body)
			}
			return nil
		})
		waitCompleted(k.s, "TRANSFER_OUT")
		b.StopTimer()
		m.report(b, b.N, time.Since(start))
		countPaymentHistory(b, k.s, "TRANSFER_OUT")
	})
	b.Run("quote", func(b *testing.B) { // POST /quotes, then POST /quotes/{id}/execute
		k := quoteBench(b, benchClients, b.N/benchClients+1)
		m := startCosts(b, k.s)
		b.ResetTimer()
		start := time.Now()
		clientsDo(b, benchClients, b.N, func(i int) error {
			q, err := k.quote(i)
			if err != nil {
				return err
			}
			if r := k.worlds[0].c.Do("POST", "/quotes/"+q.ID+"/execute", nil); r.Status != 200 {
				return fmt.Errorf("execute: %d %s", r.Status, r.Body)
			}
			return nil
		})
		waitCompleted(k.s, "QUOTE")
		b.StopTimer()
		m.report(b, b.N, time.Since(start))
		countPaymentHistory(b, k.s, "QUOTE")
	})
}

// countPaymentHistory reports the history of the workflow of one payment of kind on s.
func countPaymentHistory(b *testing.B, s *stack, kind string) {
	var id uuid.UUID
	var quoteID uuid.NullUUID
	if err := s.app.pool.QueryRow(context.Background(), "SELECT id, quote_id FROM transactions WHERE kind = $1 LIMIT 1", kind).Scan(&id, &quoteID); err != nil {
		b.Fatal(err)
	}
	wf, ok := workflows.PaymentWorkflowID(kind, id, quoteID)
	if !ok {
		b.Fatalf("no workflow runs a %s payment", kind)
	}
	countHistory(b, s, wf)
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
	cpu      cpuReading
	wal      string // pg_current_wal_lsn
	service  dbCounts
	temporal dbCounts           // the Temporal server's databases (cluster profile)
	server   map[string]float64 // the Temporal server's metrics (cluster profile)
}

// dbCounts are pg_stat_database's counters of some databases, summed.
type dbCounts struct{ commits, inserted, updated, deleted int64 }

// temporalServerMetrics are the Temporal server's Prometheus metrics a costMeter and a
// loadProbe read, summed over their labels: the workflow state transitions, persistence
// requests, billable actions, and the persistence requests' summed latency and count.
var temporalServerMetrics = []string{"state_transition_count_sum", "persistence_requests", "action",
	"persistence_latency_sum", "persistence_latency_count"}

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

// report reports the counters' growth since startCosts divided by n payments, made in
// elapsed: the rate, and how busy the machine and each process were while they were made.
func (m *costMeter) report(b *testing.B, n int, elapsed time.Duration) {
	b.ReportMetric(float64(n)/elapsed.Seconds(), "payments/s")
	// The first reading was taken before the payments started, the busy interval is theirs.
	start := m.before.cpu
	start.at = time.Now().Add(-elapsed)
	reportCPU(b, start, n) // before the wait below, whose idle CPU is not theirs
	flushStats()
	after := readCosts(b, m.s)
	var wal int64
	if err := m.s.app.pool.QueryRow(context.Background(), "SELECT pg_wal_lsn_diff($1, $2)::bigint", after.wal, m.before.wal).Scan(&wal); err != nil {
		b.Fatal(err)
	}
	count := func(a, b int64) float64 { return float64(a-b) / float64(n) }
	b.ReportMetric(float64(wal)/float64(n), "wal-bytes/op")
	for _, c := range []struct {
		prefix        string
		after, before dbCounts
	}{{"db", after.service, m.before.service}, {"temporal-db", after.temporal, m.before.temporal}} {
		if c.prefix == "temporal-db" && len(temporalDatabases) == 0 {
			continue
		}
		b.ReportMetric(count(c.after.commits, c.before.commits), c.prefix+"-commits/op")
		b.ReportMetric(count(c.after.inserted, c.before.inserted), c.prefix+"-rows-inserted/op")
		b.ReportMetric(count(c.after.updated, c.before.updated), c.prefix+"-rows-updated/op")
		b.ReportMetric(count(c.after.deleted, c.before.deleted), c.prefix+"-rows-deleted/op")
	}
	for _, name := range temporalServerMetrics {
		if strings.HasPrefix(name, "persistence_latency") {
			continue
		}
		if v, ok := after.server[name]; ok {
			b.ReportMetric((v-m.before.server[name])/float64(n), strings.ReplaceAll(name, "_", "-")+"/op")
		}
	}
	// Persistence requests by operation. The writes of a workflow's mutable state and
	// history are what a history shard serializes (one at a time per shard by default).
	var writes, workflowWrites float64
	var ops []string
	for key, v := range after.server {
		op, ok := strings.CutPrefix(key, "persistence_requests/")
		if !ok {
			continue
		}
		d := (v - m.before.server[key]) / float64(n)
		if d == 0 {
			continue
		}
		ops = append(ops, fmt.Sprintf("%s %.2f", op, d))
		if !strings.HasPrefix(op, "Get") && !strings.HasPrefix(op, "List") && !strings.HasPrefix(op, "Read") {
			writes += d
		}
		if strings.HasSuffix(op, "WorkflowExecution") && !strings.HasPrefix(op, "Get") {
			workflowWrites += d
		}
	}
	reportUpdateLatency(b, after.server, m.before.server)
	if len(ops) > 0 {
		slices.Sort(ops)
		b.ReportMetric(writes, "persistence-writes/op")
		b.ReportMetric(workflowWrites, "workflow-writes/op")
		b.Logf("persistence requests per payment by operation: %s", strings.Join(ops, ", "))
	}
}

func readCosts(b *testing.B, s *stack) costs {
	c := costs{cpu: readCPU()}
	ctx := context.Background()
	if err := s.app.pool.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&c.wal); err != nil {
		b.Fatal(err)
	}
	c.service = readDBCounts(b, s, []string{dbName(b, s)})
	if len(temporalDatabases) > 0 {
		c.temporal = readDBCounts(b, s, temporalDatabases)
		c.server = scrapeMetrics(b, temporalMetricsURL, temporalServerMetrics)
	}
	return c
}

// dbName is the name of s's own database.
func dbName(b *testing.B, s *stack) string {
	var name string
	if err := s.app.pool.QueryRow(context.Background(), "SELECT current_database()").Scan(&name); err != nil {
		b.Fatal(err)
	}
	return name
}

// readDBCounts sums pg_stat_database's counters of the databases named.
func readDBCounts(b *testing.B, s *stack, names []string) dbCounts {
	var d dbCounts
	err := s.app.pool.QueryRow(context.Background(), `SELECT coalesce(sum(xact_commit), 0)::bigint, coalesce(sum(tup_inserted), 0)::bigint,
		coalesce(sum(tup_updated), 0)::bigint, coalesce(sum(tup_deleted), 0)::bigint
		FROM pg_stat_database WHERE datname = ANY($1)`, names).Scan(&d.commits, &d.inserted, &d.updated, &d.deleted)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// scrapeMetrics reads the Prometheus text exposition at url and sums, for each name of
// names, the samples of that metric over all their labels, and for the persistence_
// metrics also by operation (keys "<name>/<operation>").
func scrapeMetrics(b testing.TB, url string, names []string) map[string]float64 {
	resp, err := http.Get(url)
	if err != nil {
		b.Fatalf("temporal metrics: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	got := map[string]float64{}
	for _, line := range strings.Split(string(raw), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, " ")
		if i := strings.IndexByte(line, '{'); i >= 0 && i < len(name) {
			name = line[:i]
			rest = line[strings.LastIndexByte(line, '}')+1:]
		}
		if !want[name] {
			continue
		}
		v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		if err != nil {
			continue
		}
		got[name] += v
		if _, labels, ok := strings.Cut(line, `operation="`); ok && strings.HasPrefix(name, "persistence_") {
			op, _, _ := strings.Cut(labels, `"`)
			got[name+"/"+op] += v
		}
	}
	return got
}

// cpuReading is the CPU time the machine and the processes a payment goes through have
// used so far: this process (the service and the load generator), its children by command
// name (the Temporal server, the Lightning network's nodes) and PostgreSQL's processes.
type cpuReading struct {
	at          time.Time
	busy, total time.Duration // the machine's, all cores, from /proc/stat
	self        time.Duration
	children    map[string]time.Duration
	postgres    map[string]time.Duration // postgresCPU
}

func readCPU() cpuReading {
	r := cpuReading{at: time.Now(), self: procCPU("self", false), postgres: postgresCPU(), children: map[string]time.Duration{}}
	for _, pid := range childPIDs() {
		r.children[procName(pid)] += procCPU(pid, false)
	}
	if raw, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(raw), "\n")
		for i, f := range strings.Fields(line)[1:] { // user nice system idle iowait irq softirq steal ...
			n, _ := strconv.ParseInt(f, 10, 64)
			d := time.Duration(n) * 10 * time.Millisecond
			r.total += d
			if i != 3 && i != 4 {
				r.busy += d
			}
		}
	}
	return r
}

// processes is the CPU time each process used between before and r, by name: "service"
// (this process), each child's command name, and postgresCPU's names for PostgreSQL.
func (r cpuReading) processes(before cpuReading) map[string]time.Duration {
	out := map[string]time.Duration{"service": r.self - before.self}
	for name, d := range r.children {
		out[name] = d - before.children[name]
	}
	for name, d := range r.postgres {
		out[name] = d - before.postgres[name]
	}
	return out
}

// reportCores reports how busy the machine was between before and r (machine-busy-%, of
// all its cores) and how many cores each process used on average (cores-<name>).
func (r cpuReading) reportCores(b *testing.B, before cpuReading) {
	wall := r.at.Sub(before.at).Seconds()
	if wall <= 0 || r.total == before.total {
		return
	}
	b.ReportMetric(100*float64(r.busy-before.busy)/float64(r.total-before.total), "machine-busy-%")
	for name, d := range r.processes(before) {
		b.ReportMetric(d.Seconds()/wall, "cores-"+name)
	}
}

// reportCPU reads the CPU now and reports, since before, how busy the machine and each
// process were (reportCores) and the CPU time each used per payment of n (reportPerPayment).
func reportCPU(b *testing.B, before cpuReading, n int) {
	end := readCPU()
	end.reportCores(b, before)
	end.reportPerPayment(b, before, n)
}

// reportPerPayment reports the CPU time each process used between before and r per
// payment of n (cpu-ms-<name>/op), and all of them together (cpu-ms-all/op).
func (r cpuReading) reportPerPayment(b *testing.B, before cpuReading, n int) {
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	var all time.Duration
	for name, d := range r.processes(before) {
		b.ReportMetric(per(d), "cpu-ms-"+name+"/op")
		if !strings.HasPrefix(name, "postgres-") { // parts of "postgres"
			all += d
		}
	}
	b.ReportMetric(per(all), "cpu-ms-all/op")
}

// loadProbe reads, while a load runs, what may queue before the CPU is used up: the
// waits for a connection of the service's pool, and on the cluster profile how busy the
// Temporal server's history shards were writing workflows to the database.
type loadProbe struct {
	s      *stack
	at     time.Time
	pool   *pgxpool.Stat
	server map[string]float64
}

func startProbe(b *testing.B, s *stack) *loadProbe {
	p := &loadProbe{s: s, at: time.Now(), pool: s.app.pool.Stat()}
	if temporalMetricsURL != "" {
		p.server = scrapeMetrics(b, temporalMetricsURL, temporalServerMetrics)
	}
	return p
}

// report reports the share of connection acquisitions that found no idle connection
// (db-pool-waited-%) and their mean wait (db-pool-wait-ms); on the cluster, the time the
// history shards spent creating and updating workflows on the database as a share of the
// wall time of all of them (shard-busy-%: a shard writes one at a time) and the mean
// update (update-workflow-ms).
func (p *loadProbe) report(b *testing.B) {
	wall := time.Since(p.at)
	now := p.s.app.pool.Stat()
	if n := now.AcquireCount() - p.pool.AcquireCount(); n > 0 {
		empty := now.EmptyAcquireCount() - p.pool.EmptyAcquireCount()
		b.ReportMetric(100*float64(empty)/float64(n), "db-pool-waited-%")
		if empty > 0 {
			wait := now.EmptyAcquireWaitTime() - p.pool.EmptyAcquireWaitTime()
			b.ReportMetric(float64(wait.Microseconds())/1000/float64(empty), "db-pool-wait-ms")
		}
	}
	if p.server == nil {
		return
	}
	after := scrapeMetrics(b, temporalMetricsURL, temporalServerMetrics)
	var busy float64
	for _, op := range []string{"CreateWorkflowExecution", "UpdateWorkflowExecution"} {
		busy += after["persistence_latency_sum/"+op] - p.server["persistence_latency_sum/"+op]
	}
	b.ReportMetric(100*busy/(wall.Seconds()*tcluster.HistoryShards), "shard-busy-%")
	reportUpdateLatency(b, after, p.server)
}

// reportUpdateLatency reports the mean time of a workflow's update on the database
// between two scrapes of the Temporal server's metrics (update-workflow-ms): how long a
// history shard is busy per write.
func reportUpdateLatency(b *testing.B, after, before map[string]float64) {
	const update = "/UpdateWorkflowExecution"
	if calls := after["persistence_latency_count"+update] - before["persistence_latency_count"+update]; calls > 0 {
		b.ReportMetric(1000*(after["persistence_latency_sum"+update]-before["persistence_latency_sum"+update])/calls, "update-workflow-ms")
	}
}

// procName is the command name of process pid (/proc/pid/comm).
func procName(pid string) string {
	raw, err := os.ReadFile(filepath.Join("/proc", pid, "comm"))
	if err != nil {
		return "gone"
	}
	return strings.TrimSpace(string(raw))
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
// waited-for children's (backends that have exited since), in all ("postgres") and by what
// the process serves, from its title ("postgres: 15/main: user database host state"): the
// Temporal server's databases ("postgres-temporal"), the other databases, the service's
// ("postgres-service"), and the server's own processes and exited backends
// ("postgres-other").
func postgresCPU() map[string]time.Duration {
	comms, _ := filepath.Glob("/proc/[0-9]*/comm")
	out := map[string]time.Duration{}
	for _, c := range comms {
		raw, err := os.ReadFile(c)
		if err != nil || strings.TrimSpace(string(raw)) != "postgres" {
			continue
		}
		dir := filepath.Dir(c)
		d := procCPU(filepath.Base(dir), true)
		out["postgres"] += d
		title, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		f := strings.Fields(strings.ReplaceAll(string(title), "\x00", " "))
		switch {
		case len(f) >= 5 && strings.Contains(f[4], "(") && slices.Contains(temporalDatabases, f[3]):
			out["postgres-temporal"] += d
		case len(f) >= 5 && strings.Contains(f[4], "("):
			out["postgres-service"] += d
		default:
			out["postgres-other"] += d
		}
	}
	return out
}
