package db_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/rail"
	"paycore/internal/rail/adapters"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

const (
	// postingPayers is how many customers the transfers are spread over: each worker has
	// its own of them, so no two transfers in flight lock the same customer account and
	// the platform's accounts are the only rows they share.
	postingPayers = 1000
	// postingAmount is each transfer's amount (USD cents); postingFunds is what each
	// payer's account is funded with, enough for every transfer of a long run.
	postingAmount = 1_00
	postingFunds  = 1_000_000_00
	// pgbenchScale is the scale pgbench's tables are initialised with: TPC-B updates one
	// pgbench_branches row per transaction, picked among scale rows, so a scale below the
	// number of clients would make the branches pgbench's own hot spot (its documentation
	// asks for a scale at least the number of clients). 32 is the most connections here.
	pgbenchScale = 32
)

// postingConns are the concurrency levels: connections in the pool, workers posting, and
// pgbench's clients (-c) and threads (-j).
var postingConns = []int{1, 8, 32}

// BenchmarkLedgerPosting measures the database side of a transfer out without Temporal: a
// posting is its create step and its finish, the db.Store operations its workflow's
// activities call (activities.CreateTransfer: TransferCreate with the transfer and rail
// rules, holding the funds; activities.FinishTransfer: TransactionFinish with the rail's
// COMPLETED, capturing the hold into the platform's settlement account). One platform,
// postingPayers customers each with a funded USD account and an external account.
//
// Each sub-benchmark (conns=1, 8, 32) posts with that many workers on a pool of that many
// connections for -benchtime (b.Loop), then runs pgbench's TPC-B script on the same
// database with as many clients for as many whole seconds, and reports both rates and
// their ratio: postings/s, pgbench-tx/s, ratio (postings/s ÷ pgbench-tx/s). It also
// reports the statements (each a round trip) one posting sends, and logs them. Without
// pgbench (on PATH or in /usr/lib/postgresql/*/bin) it is skipped.
func BenchmarkLedgerPosting(b *testing.B) {
	pgbench, err := pgbenchPath()
	if err != nil {
		b.Skipf("pgbench is not installed (%v): the ledger posting benchmark compares with it", err)
	}
	w := newPostingWorld(b)
	w.statements(b)
	w.pgbenchInit(b, pgbench)
	for _, conns := range postingConns {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			if !w.logged {
				for _, line := range w.setup {
					b.Log(line)
				}
				w.logged = true
			}
			postings, elapsed := w.post(b, conns)
			rate := float64(postings) / elapsed.Seconds()
			tps := w.pgbenchRun(b, pgbench, conns, max(1, int(math.Round(elapsed.Seconds()))))
			b.ReportMetric(rate, "postings/s")
			b.ReportMetric(tps, "pgbench-tx/s")
			b.ReportMetric(rate/tps, "ratio")
			b.ReportMetric(w.perPosting, "statements/posting")
		})
	}
}

// postingWorld is the benchmark's database: one platform and its payers.
type postingWorld struct {
	url      string
	platform uuid.UUID
	payers   []payer
	// rails serve the transfers as the worker's default registry does (the sandbox rail).
	rails *rail.Registry
	// perPosting is how many statements one posting sends (statements).
	perPosting float64
	// setup says how the world was made, for the log of the first sub-benchmark run (the
	// parent's log is shown with -v only); logged is set once it is.
	setup  []string
	logged bool
}

// newPostingWorld creates the benchmark's database: a sandbox platform and postingPayers
// payers, opened eight at a time on a pool closed afterwards (the server's connections are
// shared with the 32 of the last sub-benchmark and pgbench's).
func newPostingWorld(b *testing.B) *postingWorld {
	b.Helper()
	ctx := context.Background()
	start := time.Now()
	url := dbtest.New(b)
	pool, err := db.Connect(ctx, url, 8)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	store := db.NewStore(pool, view.Resources{})
	box := newBox(b)
	p, s := provision(b, pool, box)
	w := &postingWorld{url: url, platform: p.ID, payers: make([]payer, postingPayers), rails: adapters.Default()}
	next := make(chan int, postingPayers)
	for i := range postingPayers {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for range 8 {
		wg.Go(func() {
			for i := range next {
				id := fmt.Sprintf("payer-%04d", i)
				py, err := openPayer(ctx, pool, store, box, p.ID, s, id, "$"+id+"@"+s.UmaDomain, postingFunds)
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				w.payers[i] = py
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	w.setup = append(w.setup, fmt.Sprintf("setup: a platform and %d payers in %.1fs", postingPayers, time.Since(start).Seconds()))
	return w
}

// post runs postings with conns workers on a pool of conns connections for as long as
// b.Loop asks, worker i paying from the payers i, i+conns, i+2·conns, …, and returns how
// many it made and the time they took. Before the clock starts each worker makes one
// posting, so that every connection is open and has its statements prepared.
func (w *postingWorld) post(b *testing.B, conns int) (int64, time.Duration) {
	ctx := context.Background()
	pool, err := db.ConnectWith(ctx, w.url, db.PoolOptions{MaxConns: int32(conns)})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close() // before pgbench runs, which needs the connections
	store := db.NewStore(pool, view.Resources{})
	jobs := make(chan struct{})
	var warm, wg sync.WaitGroup
	var done atomic.Int64
	var failed atomic.Bool
	for i := range conns {
		warm.Add(1)
		wg.Go(func() {
			mine := (len(w.payers) - i + conns - 1) / conns // the payers i, i+conns, … there are
			step := func(n int) error { return w.posting(ctx, store, w.payers[i+(n%mine)*conns]) }
			err := step(0)
			warm.Done()
			if err != nil {
				failed.Store(true)
				b.Error(err)
			}
			for n := 1; ; n++ {
				if _, ok := <-jobs; !ok {
					return
				}
				if failed.Load() {
					continue // drain: b.Loop's feeding must not block
				}
				if err := step(n); err != nil {
					failed.Store(true)
					b.Error(err)
					continue
				}
				done.Add(1)
			}
		})
	}
	warm.Wait()
	start := time.Now()
	for b.Loop() {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	return done.Load(), time.Since(start)
}

// posting is one transfer out of postingAmount from p to its external account, through its
// workflow's database steps as the activities call them: the create step
// (activities.CreateTransfer) and the finish with the sandbox rail's COMPLETED
// (activities.FinishTransfer).
func (w *postingWorld) posting(ctx context.Context, store db.Store, p payer) error {
	in := transfer.Request{TransactionID: ids.New(), Kind: transfer.Out, PlatformID: w.platform, CustomerID: ids.Some(p.customer.ID),
		InternalAccountID: p.account, ExternalAccountID: p.external, Amount: postingAmount}
	if _, _, err := store.TransferCreate(ctx, in, time.Now(), func(acc transfer.Accounts) error { return transfer.CheckServed(in, acc, w.rails) }); err != nil {
		return fmt.Errorf("create transfer: %w", err)
	}
	t, err := store.TransactionFinish(ctx, in.TransactionID, in.Kind.Final(sandbox.Outcome{Status: catalog.TxCompleted}), time.Now())
	if err != nil {
		return fmt.Errorf("finish transfer: %w", err)
	}
	if t.Status != catalog.TxCompleted {
		return fmt.Errorf("transfer %s ended %s", t.ID, t.Status)
	}
	return nil
}

// statements counts and logs the statements one posting sends, its second on a fresh
// connection (the first also prepares them): with pgx's statement cache each is one round
// trip, begin and commit included.
func (w *postingWorld) statements(b *testing.B) {
	ctx := context.Background()
	rec := &statementLog{}
	pool, err := db.ConnectWith(ctx, w.url, db.PoolOptions{MaxConns: 1, Tracer: rec})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	store := db.NewStore(pool, view.Resources{})
	if err := w.posting(ctx, store, w.payers[0]); err != nil {
		b.Fatal(err)
	}
	rec.reset()
	if err := w.posting(ctx, store, w.payers[1]); err != nil {
		b.Fatal(err)
	}
	names := rec.reset()
	w.perPosting = float64(len(names))
	w.setup = append(w.setup, fmt.Sprintf("setup: one posting sends %d statements: %s", len(names), strings.Join(names, ", ")))
}

// statementLog is a pgx.QueryTracer that records the name of every statement sent: the
// sqlc query's name, else its first word.
type statementLog struct {
	mu    sync.Mutex
	names []string
}

// sqlcName is the name sqlc writes as the first line of a generated query.
var sqlcName = regexp.MustCompile(`^-- name: (\w+)`)

func (l *statementLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	name := strings.TrimSpace(data.SQL)
	if m := sqlcName.FindStringSubmatch(name); m != nil {
		name = m[1]
	} else if f := strings.Fields(name); len(f) > 0 {
		name = strings.ToLower(f[0])
	}
	l.mu.Lock()
	l.names = append(l.names, name)
	l.mu.Unlock()
	return ctx
}

func (l *statementLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// reset returns the names recorded so far and forgets them.
func (l *statementLog) reset() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.names
	l.names = nil
	return out
}

// pgbenchPath is pgbench on PATH, else the newest in /usr/lib/postgresql/*/bin.
func pgbenchPath() (string, error) {
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p, nil
	}
	found, err := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	if err != nil || len(found) == 0 {
		return "", errors.New("not on PATH nor in /usr/lib/postgresql/*/bin")
	}
	major := func(p string) int {
		v, _ := strconv.Atoi(strings.SplitN(filepath.Base(filepath.Dir(filepath.Dir(p))), ".", 2)[0])
		return v
	}
	return slices.MaxFunc(found, func(a, b string) int { return major(a) - major(b) }), nil
}

// pgbenchInit creates pgbench's tables, at pgbenchScale, in the benchmark's database.
func (w *postingWorld) pgbenchInit(b *testing.B, pgbench string) {
	start := time.Now()
	cmd, _ := w.pgbench(b, pgbench, "-i", "-s", strconv.Itoa(pgbenchScale), "-q")
	w.setup = append(w.setup, fmt.Sprintf("setup: %s (%.1fs)", cmd, time.Since(start).Seconds()))
}

// pgbenchTPS is the rate pgbench reports, from the connections' start.
var pgbenchTPS = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// pgbenchRun runs pgbench's default script (TPC-B) with conns clients and threads for
// seconds, with prepared statements and no vacuum first, and returns its transactions per
// second.
func (w *postingWorld) pgbenchRun(b *testing.B, pgbench string, conns, seconds int) float64 {
	c := strconv.Itoa(conns)
	cmd, out := w.pgbench(b, pgbench, "-c", c, "-j", c, "-T", strconv.Itoa(seconds), "-M", "prepared", "-n")
	b.Log(cmd)
	m := pgbenchTPS.FindStringSubmatch(out)
	if m == nil {
		b.Fatalf("no tps in pgbench's output:\n%s", out)
	}
	tps, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		b.Fatalf("pgbench's tps %q: %v", m[1], err)
	}
	return tps
}

// pgbench runs pgbench with args on the benchmark's database and returns the command (its
// password redacted) and its output.
func (w *postingWorld) pgbench(b *testing.B, pgbench string, args ...string) (cmd, out string) {
	shown := w.url
	if u, err := url.Parse(w.url); err == nil {
		shown = u.Redacted()
	}
	cmd = strings.Join(append(append([]string{pgbench}, args...), shown), " ")
	o, err := exec.Command(pgbench, append(args, w.url)...).CombinedOutput()
	if err != nil {
		b.Fatalf("%s: %v\n%s", cmd, err, o)
	}
	return cmd, string(o)
}
