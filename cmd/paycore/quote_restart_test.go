package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paycore/api/apitest"
	"paycore/internal/infra/config"
	"paycore/internal/infra/devserver"
	"paycore/workflows"
)

// The sandbox's slow quote (suffix 003, about 6 minutes, scaled down to 15 s here) ends
// correctly after the API, the worker and the Temporal dev server (persisted to a file)
// are all stopped while it waits, and started again: the real binaries, killed with
// SIGKILL, and the dev server shut down and restarted on its database file. The durable
// timer fires once, the payment completes once, and the money is where it should be.
func TestSlowQuoteSurvivesARestartOfEveryProcess(t *testing.T) {
	t.Parallel()
	const delay = 15 * time.Second
	wd, _ := os.Getwd()
	cli, err := devserver.FindCLI(wd)
	if err != nil {
		t.Fatal(err)
	}
	port, err := devserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	dbFile := filepath.Join(t.TempDir(), "temporal.db")
	startTemporal := func() *devserver.Server {
		ts, err := devserver.Start(context.Background(), devserver.Options{CLIPath: cli, Port: port, Headless: true, DBFile: dbFile,
			SearchAttributes: workflows.SearchAttributeNames, Log: io.Discard})
		if err != nil {
			t.Fatalf("start the Temporal dev server: %v", err)
		}
		return ts
	}
	temporal := startTemporal()
	t.Cleanup(func() { temporal.Stop() })

	s := newStack(t, func(c *config.Config) { c.TemporalAddress = temporal.Address; c.QuoteSlowDelay = delay })
	s.stopWorkerAndWait() // the worker runs as a separate process here
	w := fxWorld(t, s)
	w.fund(100_000)
	ext := w.euroAccount("003")

	apiPort, _ := devserver.FreePort()
	workerPort, _ := devserver.FreePort()
	env := []string{
		"PAYCORE_DATABASE_URL=" + s.cfg.DatabaseURL, "PAYCORE_MASTER_KEY=" + s.cfg.MasterKey, "PAYCORE_DATA_DIR=" + s.cfg.DataDir,
		"PAYCORE_TEMPORAL_ADDRESS=" + temporal.Address, "PAYCORE_TASK_QUEUE=" + s.cfg.TaskQueue,
		"PAYCORE_SANDBOX_QUOTE_SLOW_DELAY=" + delay.String(), fmt.Sprintf("PAYCORE_HTTP_ADDR=127.0.0.1:%d", apiPort),
		fmt.Sprintf("PAYCORE_WORKER_HTTP_ADDR=127.0.0.1:%d", workerPort), "PAYCORE_LOG_LEVEL=warn",
	}
	worker := startProc(t, env, "worker")
	apiProc := startProc(t, env, "serve")
	waitPort(t, fmt.Sprintf("127.0.0.1:%d", apiPort))
	w.c = &apitest.Client{T: t, BaseURL: fmt.Sprintf("http://127.0.0.1:%d%s", apiPort, s.cfg.BasePath()), User: w.c.User, Password: w.c.Password}

	q := w.newQuote(ext, 10_000)
	executed := time.Now() // the wait starts when the execution holds the money, after this
	if r := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil, "Idempotency-Key", "slow"); r.Status != 200 {
		t.Fatalf("execute: %d %s", r.Status, r.Body)
	}
	eventually(t, 10*time.Second, "the payment to be processing", func() bool { return w.transaction(q.TransactionID).Status == "PROCESSING" })

	// Everything stops while the payment waits on its timer, for longer than the wait.
	apiProc.kill()
	worker.kill()
	temporal.Stop()
	time.Sleep(3 * time.Second)
	temporal = startTemporal()
	startProc(t, env, "worker")
	startProc(t, env, "serve")
	waitPort(t, fmt.Sprintf("127.0.0.1:%d", apiPort))

	tx := w.waitFinal(q.TransactionID, delay+60*time.Second)
	if tx.Status != "COMPLETED" || time.Since(executed) < delay {
		t.Fatalf("slow quote ended %s after %s (its wait is %s)", tx.Status, time.Since(executed), delay)
	}
	if got := strings.Join(w.events(q.TransactionID), ","); got != "PENDING,PROCESSING,COMPLETED" {
		t.Fatalf("events %s", got)
	}
	if w.balance() != 100_000-10_000 {
		t.Fatalf("balance %d", w.balance())
	}
	var entries int
	_ = s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM ledger_entries WHERE transaction_id = (SELECT id FROM transactions WHERE quote_id::text = $1)",
		strings.TrimPrefix(q.ID, "Quote:")).Scan(&entries)
	if entries != 5 {
		t.Fatalf("%d postings for one conversion, want 5", entries)
	}
	checkLedger(t, s)
}
