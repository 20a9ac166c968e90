package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/dbtest"
	"paycore/internal/infra/config"
	"paycore/internal/infra/devserver"
	"paycore/internal/infra/tcluster"
	"paycore/internal/kit/sealbox"
	"paycore/workflows"
)

// temporalAddr is the one Temporal server shared by every test of this binary (the dev
// server, or with PAYCORE_TEST_TEMPORAL=cluster the Temporal server on PostgreSQL); each
// stack gets its own task queue and database so tests run in parallel.
var temporalAddr string

// temporalMetricsURL and temporalDatabases are, on the cluster profile, where the Temporal
// server serves its Prometheus metrics and the databases it persists to (empty on the dev
// server): BenchmarkPaymentCosts reads both.
var (
	temporalMetricsURL string
	temporalDatabases  []string
)

// runTestsOnCluster is the cluster test profile (make test-cluster): the end-to-end tests
// against the Temporal server itself, on PostgreSQL databases of their own (dropped after),
// instead of the dev server.
func runTestsOnCluster(m *testing.M, wd string) int {
	bin, err := findBin(wd)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	port, err := tcluster.FreePortRange(22) // the last one serves the server's metrics
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	name := fmt.Sprintf("paycore_e2e_%d", os.Getpid())
	u := strings.Replace(dbtest.AdminURL(), "/postgres?", "/"+name+"?", 1)
	dir, err := os.MkdirTemp("", "paycore-cluster-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	logw := io.Discard
	if os.Getenv("PAYCORE_TEST_LOG") != "" {
		logw = os.Stderr
	}
	tc, err := StartTemporalCluster(context.Background(), u, filepath.Join(bin, "temporal-server"), filepath.Join(bin, "temporal-sql-tool"), port, port+21, dir, logw)
	defer dropDatabases(name+"_temporal", name+"_temporal_visibility")
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the Temporal server:", err)
		return 1
	}
	defer tc.Stop()
	temporalAddr = tc.Address
	temporalMetricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", port+21)
	temporalDatabases = []string{name + "_temporal", name + "_temporal_visibility"}
	return m.Run()
}

// findBin is the bin/ directory of the repository holding dir.
func findBin(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "bin"), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}

// dropDatabases drops the cluster profile's Temporal databases.
func dropDatabases(names ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbtest.AdminURL())
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	for _, n := range names {
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{n}.Sanitize()+" WITH (FORCE)")
	}
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	wd, _ := os.Getwd()
	if os.Getenv("PAYCORE_TEST_TEMPORAL") == "cluster" {
		return runTestsOnCluster(m, wd)
	}
	cli, err := devserver.FindCLI(wd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "end-to-end tests need the Temporal CLI:", err)
		return 1
	}
	ts, err := devserver.Start(context.Background(), devserver.Options{
		CLIPath: cli, Headless: true, SearchAttributes: workflows.SearchAttributeNames, Log: io.Discard,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start Temporal dev server:", err)
		return 1
	}
	defer ts.Stop()
	temporalAddr = ts.Address
	return m.Run()
}

var queueSeq atomic.Int64

// stack is the whole service (API + worker) on its own database and task queue.
type stack struct {
	t       testing.TB
	app     *app
	cfg     config.Config
	baseURL string
	// metricsURL is /metrics on the stack's own metrics listener.
	metricsURL string
	// optedIn is, in a Lightning test's stack, the sandbox platform its routes send to the
	// Lightning rail (lightningStack).
	optedIn *optedIn

	mu         sync.Mutex
	stopWorker context.CancelFunc
	workerDone chan struct{}
}

func newStack(t testing.TB, tweak ...func(*config.Config)) *stack {
	t.Helper()
	return newStackWith(t, appOptions{}, tweak...)
}

// newStackWith is newStack with app options (an in-memory span exporter).
func newStackWith(t testing.TB, o appOptions, tweak ...func(*config.Config)) *stack {
	t.Helper()
	cfg := config.Defaults()
	cfg.DatabaseURL = dbtest.New(t)
	cfg.DatabaseMaxConns = 16
	cfg.TemporalAddress = temporalAddr
	cfg.TaskQueue = fmt.Sprintf("e2e-%d-%d", os.Getpid(), queueSeq.Add(1))
	cfg.MasterKey = sealbox.NewKey()
	cfg.DataDir = t.TempDir() // the stack's document files
	cfg.SandboxPrivateOK = true
	cfg.WebhookRetryStart = 100 * time.Millisecond
	cfg.WebhookRetryMax = 400 * time.Millisecond
	cfg.WebhookTimeout = 5 * time.Second
	cfg.WorkerPollers = 4
	for _, f := range tweak {
		f(&cfg)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() && os.Getenv("PAYCORE_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := newAppWith(ctx, cfg, log, o)
	if err != nil {
		t.Fatalf("app: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	apiDone, metricsDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(apiDone); _ = a.runAPI(ctx, ln) }()
	go func() { defer close(metricsDone); _ = a.runMetrics(ctx, mln) }()
	s := &stack{t: t, app: a, cfg: cfg, baseURL: "http://" + ln.Addr().String() + cfg.BasePath(),
		metricsURL: "http://" + mln.Addr().String() + "/metrics"}
	s.startWorker()
	t.Cleanup(func() {
		s.stopWorkerAndWait()
		cancel()
		<-apiDone
		<-metricsDone
		a.close()
	})
	return s
}

func (s *stack) startWorker() {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.app.runWorker(ctx) }()
	s.stopWorker, s.workerDone = cancel, done
}

func (s *stack) stopWorkerAndWait() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopWorker != nil {
		s.stopWorker()
		<-s.workerDone
		s.stopWorker = nil
	}
}

// platform creates a regulated platform (it attests its customers' KYC status) and a
// client for its first token.
func (s *stack) platform(sandbox bool) (*apitest.Client, db.Platform) {
	s.t.Helper()
	p, tok, err := api.CreatePlatform(context.Background(), s.app.pool, s.app.box, api.PlatformParams{Name: "E2E", Sandbox: sandbox, IsRegulated: true})
	if err != nil {
		s.t.Fatal(err)
	}
	return &apitest.Client{T: s.t, BaseURL: s.baseURL, User: tok.Token.ID.String(), Password: tok.Secret}, p
}

// hostGet GETs path (with its query) at the root of the stack's API as the host named host
// (the Host header: a platform's UMA domain), and answers the status and the body.
func (s *stack) hostGet(host, path string) (int, []byte) { return s.hostDo("GET", host, path, nil) }

// hostDo sends method to path on the stack's API as if to host (its Host header), with
// body (nil: none), and answers the status and body.
func (s *stack) hostDo(method, host, path string, body []byte) (int, []byte) {
	s.t.Helper()
	base, err := url.Parse(s.baseURL)
	if err != nil {
		s.t.Fatal(err)
	}
	req, err := http.NewRequest(method, "http://"+base.Host+path, bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Host = host
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// eventually polls cond until it holds or the timeout passes; seen, when given, says what
// was seen last in the failure.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool, seen ...func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			for _, f := range seen {
				t.Fatalf("timed out after %s waiting for %s; saw %s", timeout, what, f())
			}
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
