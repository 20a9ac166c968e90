package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"paycore/api/apitest"
	"paycore/internal/infra/config"
	"paycore/internal/infra/devserver"
)

var buildOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "paycore-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "paycore")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v: %s", err, out)
	}
	return bin, nil
})

// proc is the real binary running one subcommand, killable with SIGKILL.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startProc(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	logf, _ := os.CreateTemp("", "paycore-proc-*.log")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done); logf.Close() }()
	t.Cleanup(p.kill)
	return p
}

func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

func waitPort(t *testing.T, addr string) {
	t.Helper()
	eventually(t, 30*time.Second, "listener on "+addr, func() bool {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// Kill -9 the worker while slow (005) and normal transfers are pending, and separately the
// API process while transfer requests are in flight. After restarts every transfer
// finishes exactly once: no double debit, no hold left, and retried requests with their
// Idempotency-Keys never create a second payment.
func TestCrashSafety(t *testing.T) {
	// Not parallel: it loads the machine, and runs before the timing-sensitive parallel tests.
	s := newStack(t, func(c *config.Config) { c.SandboxSlowDelay = 3 * time.Second })
	s.stopWorkerAndWait() // the worker runs as a separate process here
	w := newWorld(t, s)
	w.fund(1_000_000)
	slow, ok := w.external("005"), w.external("001")

	apiPort, _ := devserver.FreePort()
	workerPort, _ := devserver.FreePort()
	env := []string{
		"PAYCORE_DATABASE_URL=" + s.cfg.DatabaseURL, "PAYCORE_MASTER_KEY=" + s.cfg.MasterKey, "PAYCORE_DATA_DIR=" + s.cfg.DataDir,
		"PAYCORE_TEMPORAL_ADDRESS=" + s.cfg.TemporalAddress, "PAYCORE_TASK_QUEUE=" + s.cfg.TaskQueue,
		"PAYCORE_SANDBOX_SLOW_DELAY=3s", fmt.Sprintf("PAYCORE_HTTP_ADDR=127.0.0.1:%d", apiPort),
		fmt.Sprintf("PAYCORE_WORKER_HTTP_ADDR=127.0.0.1:%d", workerPort), "PAYCORE_LOG_LEVEL=warn",
	}
	worker := startProc(t, env, "worker")
	apiProc := startProc(t, env, "serve")
	waitPort(t, fmt.Sprintf("127.0.0.1:%d", apiPort))
	c := &apitest.Client{T: t, BaseURL: fmt.Sprintf("http://127.0.0.1:%d%s", apiPort, s.cfg.BasePath()), User: w.c.User, Password: w.c.Password}
	w.c = c

	// Phase 1: the worker dies while transfers are pending.
	var ids []string
	for i := range 8 {
		ext := ok
		if i%2 == 0 {
			ext = slow
		}
		r := w.transferOut(ext, 1000, "Idempotency-Key", fmt.Sprintf("phase1-%d", i))
		if r.Status != 201 {
			t.Fatalf("transfer: %d %s", r.Status, r.Body)
		}
		ids = append(ids, r.JSON(t)["id"].(string))
	}
	worker.kill()
	time.Sleep(4 * time.Second) // the slow timers fire while no worker runs
	startProc(t, env, "worker") // the restarted worker finishes what the killed one left
	for _, id := range ids {
		w.waitFinal(id, 60*time.Second)
	}

	// Phase 2: the API dies with requests in flight; clients retry with the same keys.
	results := make(chan string, 40)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("phase2-%d", i)
			for attempt := 0; attempt < 200; attempt++ {
				r, err := tryTransfer(c, w.account, ok, key)
				if err == nil && r.Status == 201 {
					results <- r.JSON(t)["id"].(string)
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
			t.Errorf("request %s never succeeded", key)
		}()
	}
	time.Sleep(150 * time.Millisecond)
	apiProc.kill()
	time.Sleep(500 * time.Millisecond)
	startProc(t, env, "serve")
	wg.Wait()
	close(results)
	phase2 := map[string]bool{}
	for id := range results {
		phase2[id] = true
		w.waitFinal(id, 60*time.Second)
	}
	if len(phase2) != 20 {
		t.Fatalf("20 keys produced %d distinct transactions", len(phase2))
	}

	// Exactly once: 4 slow failures, 4 + 20 completed; nothing held; postings match.
	var completed, failed, count int
	var held int64
	err := s.app.pool.QueryRow(context.Background(), `
		SELECT count(*) FILTER (WHERE status = 'COMPLETED'), count(*) FILTER (WHERE status = 'FAILED'), count(*),
		       (SELECT coalesce(sum(held), 0) FROM ledger_accounts)
		FROM transactions WHERE kind = 'TRANSFER_OUT'`).Scan(&completed, &failed, &count, &held)
	if err != nil {
		t.Fatal(err)
	}
	if completed != 24 || failed != 4 || count != 28 || held != 0 {
		t.Fatalf("completed %d failed %d total %d held %d", completed, failed, count, held)
	}
	var entries int
	_ = s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM ledger_entries e JOIN transactions t ON t.id = e.transaction_id WHERE t.kind = 'TRANSFER_OUT'").Scan(&entries)
	if entries != 2*24 {
		t.Fatalf("%d postings for 24 completed transfers (want 48: no double debit)", entries)
	}
	if got := w.balance(); got != 1_000_000-24*1000 {
		t.Fatalf("balance %d, want %d", got, 1_000_000-24*1000)
	}
}

func tryTransfer(c *apitest.Client, account, ext, key string) (*apitest.Response, error) {
	cl := *c
	cl.SkipValidation = true
	r, err := doRaw(&cl, "POST", "/transfer-out", fmt.Sprintf(`{"source":{"accountId":%q},"destination":{"accountId":%q},"amount":1000}`, account, ext), key)
	return r, err
}

// doRaw sends one request and reports connection errors instead of failing the test
// (the server may be down on purpose).
func doRaw(c *apitest.Client, method, path, body, key string) (*apitest.Response, error) {
	req, err := http.NewRequest(method, c.BaseURL+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	req.SetBasicAuth(c.User, c.Password)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}
