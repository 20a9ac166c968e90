package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/workflows"
)

// parallel runs op(i) for i in [0, n) on benchClients goroutines and returns each call's
// latency.
func parallel(b *testing.B, n int, op func(i int) error) []time.Duration {
	lat := make([]time.Duration, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				if err := op(i); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	return lat
}

// corridor is one platform's USD→EUR corridor: customers funded USD customers, each with
// a EUR payee of its own, their client's own response checks off (they would compete for
// the CPU).
type corridor struct {
	s      *stack
	worlds []*world
	payees []string
}

// quoteBench opens a corridor of customers customers, each funded for perCustomer quotes.
func quoteBench(b *testing.B, customers, perCustomer int) corridor {
	return openCorridor(b, customers, func(w *world) {
		if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
			b.Fatalf("config: %d %s", r.Status, r.Body)
		}
	}, func(w *world) string {
		w.fund(int64(perCustomer)*1000 + 1000)
		return w.euroAccount("001")
	})
}

// openCorridor opens customers customers on one new platform, configured by platform
// (given the first customer's world), each set up by customer, which returns its payee.
func openCorridor(b *testing.B, customers int, platform func(*world), customer func(*world) string) corridor {
	s := newStack(b, func(c *config.Config) { c.WorkerPollers = 16 })
	first := newWorld(b, s)
	platform(first)
	k := corridor{s: s}
	for i := range customers {
		w := first
		if i > 0 {
			w = newWorldOn(b, s, first.c, first.platform)
		}
		k.payees = append(k.payees, customer(w))
		k.worlds = append(k.worlds, w)
	}
	first.c.SkipValidation = true
	return k
}

// quote creates a quote of 10.00 USD from customer i's account to its payee.
func (k corridor) quote(i int) (view.Quote, error) {
	var q view.Quote
	w := k.worlds[i%len(k.worlds)]
	r := w.quote(k.payees[i%len(k.worlds)], "SENDING", 1000)
	if r.Status != 201 {
		return q, fmt.Errorf("quote: %d %s", r.Status, r.Body)
	}
	r.Decode(w.t, &q)
	return q, nil
}

// BenchmarkQuoteCreate measures POST /quotes (priced and persisted by the quote's
// workflow) with 16 concurrent clients, one customer each: quotes created per second and
// the latency.
func BenchmarkQuoteCreate(b *testing.B) {
	k := quoteBench(b, benchClients, b.N/benchClients+1)
	b.ResetTimer()
	start := time.Now()
	lat := parallel(b, b.N, func(i int) error {
		_, err := k.quote(i)
		return err
	})
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "quotes/s")
	reportLatencyAs(b, lat, "create")
}

// BenchmarkQuoteExecute measures executing quotes created beforehand on one platform's
// USD→EUR corridor until every payment is COMPLETED (converted through the FX and fees
// accounts and paid out), with 16 and with 64 concurrent clients, each executing its own
// customer's quotes one after another: payments per second, the execute call's latency,
// the Temporal work per quote, and how often the database was waiting on a ledger row lock
// (lockWaits). BenchmarkBareQuoteWorkflow runs the same shape doing nothing.
func BenchmarkQuoteExecute(b *testing.B) {
	for _, clients := range []int{benchClients, 64} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) { quoteExecute(b, clients) })
	}
}

func quoteExecute(b *testing.B, clients int) {
	per := b.N/clients + 1
	k := quoteBench(b, clients, per)
	quotes := make([]view.Quote, b.N)
	parallel(b, b.N, func(i int) error {
		var err error
		quotes[i], err = k.quote(i)
		return err
	})
	sampling := sampleLockWaits(k.s)
	b.ResetTimer()
	cpu := readCPU()
	start := time.Now()
	lat := make([]time.Duration, b.N)
	clientsDo(b, clients, b.N, func(i int) error { // customer i % clients's quotes, one after another
		t0 := time.Now()
		if r := k.worlds[0].c.Do("POST", "/quotes/"+quotes[i].ID+"/execute", nil); r.Status != 200 {
			return fmt.Errorf("execute: %d %s", r.Status, r.Body)
		}
		lat[i] = time.Since(t0)
		return nil
	})
	waitCompleted(k.s, "QUOTE")
	elapsed := time.Since(start)
	b.StopTimer()
	waits := sampling()
	reportCPU(b, cpu, b.N)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "payments/s")
	reportLatencyAs(b, lat, "execute")
	waits.report(b)
	countHistory(b, k.s, workflows.QuoteWorkflowID(uuid.MustParse(quotes[b.N-1].ID[len("Quote:"):])))
}

// BenchmarkQuoteExecuteOpenLoop executes quotes created beforehand on one corridor of 64
// customers at a fixed arrival rate (PAYCORE_BENCH_RATE per second, 20 by default), b.N
// calls, whatever the answers' latency, and reports the execute call's p50 and p99, each
// from when the call was due. With PAYCORE_TEST_TEMPORAL=cluster it runs against the
// Temporal server on PostgreSQL.
func BenchmarkQuoteExecuteOpenLoop(b *testing.B) {
	rate := benchRate(b)
	k := quoteBench(b, 64, b.N/64+1)
	quotes := make([]view.Quote, b.N)
	parallel(b, b.N, func(i int) error {
		var err error
		quotes[i], err = k.quote(i)
		return err
	})
	b.ResetTimer()
	probe := startProbe(b, k.s)
	openLoop(b, rate, "execute", func(i int) error {
		if r := k.worlds[0].c.Do("POST", "/quotes/"+quotes[i].ID+"/execute", nil); r.Status != 200 {
			return fmt.Errorf("execute: %d %s", r.Status, r.Body)
		}
		return nil
	})
	b.StopTimer()
	probe.report(b)
}

// lockWaits counts samples of the database's backends taken while a benchmark runs:
// samples in all, those where some backend waited on a row lock of a ledger account, and
// those where one waited on a house account's (any kind but INTERNAL).
type lockWaits struct{ samples, ledger, house int }

func (w lockWaits) report(b *testing.B) {
	if w.samples == 0 {
		return
	}
	b.ReportMetric(float64(w.samples), "lock-samples")
	b.ReportMetric(100*float64(w.ledger)/float64(w.samples), "ledger-lock-wait-%")
	b.ReportMetric(100*float64(w.house)/float64(w.samples), "house-lock-wait-%")
}

// sampleLockWaits samples pg_locks every 10 ms until the function it returns is called,
// which returns the counts. A backend waiting for a row lock holds or waits for the row's
// tuple lock (locktype tuple, with the row's page and item), so the row it waits on is read
// by that ctid: the version the holder locked is still visible while it has not committed.
func sampleLockWaits(s *stack) func() lockWaits {
	const q = `
		SELECT count(*), count(*) FILTER (WHERE k.kind <> 'INTERNAL')
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		LEFT JOIN LATERAL (SELECT kind FROM ledger_accounts WHERE ctid = format('(%s,%s)', l.page, l.tuple)::tid) k ON true
		WHERE l.locktype = 'tuple' AND a.wait_event_type = 'Lock'
		  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		  AND l.relation = 'ledger_accounts'::regclass`
	var w lockWaits
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			var ledger, house int
			if err := s.app.pool.QueryRow(context.Background(), q).Scan(&ledger, &house); err != nil {
				continue
			}
			w.samples++
			if ledger > 0 {
				w.ledger++
			}
			if house > 0 {
				w.house++
			}
		}
	}()
	return func() lockWaits {
		close(stop)
		<-done
		return w
	}
}

// BareQuote is the quote's shape with nothing inside: a create update running one local
// activity, an execute update running another, then a regular activity and a local one.
func BareQuote(ctx workflow.Context) error {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 10 * time.Second})
	created, executed := false, false
	for name, done := range map[string]*bool{"create": &created, "execute": &executed} {
		if err := workflow.SetUpdateHandler(ctx, name, func(ctx workflow.Context) error {
			err := workflow.ExecuteLocalActivity(lctx, Noop).Get(ctx, nil)
			*done = true
			return err
		}); err != nil {
			return err
		}
	}
	if _, err := workflow.AwaitWithTimeout(ctx, 5*time.Minute, func() bool { return executed }); err != nil {
		return err
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	if err := workflow.ExecuteActivity(actx, Noop).Get(ctx, nil); err != nil {
		return err
	}
	return workflow.ExecuteLocalActivity(lctx, Noop).Get(ctx, nil)
}

// BenchmarkBareQuoteWorkflow creates b.N bare quotes, then measures executing them to the
// end as BenchmarkQuoteExecute does, on the same server.
func BenchmarkBareQuoteWorkflow(b *testing.B) {
	s := newStack(b, func(c *config.Config) { c.WorkerPollers = 16 })
	s.stopWorkerAndWait()
	queue := s.cfg.TaskQueue + "-bare-quote"
	wk := sdkworker.New(s.app.temporal, queue, sdkworker.Options{MaxConcurrentWorkflowTaskPollers: 16, MaxConcurrentActivityTaskPollers: 16})
	wk.RegisterWorkflow(BareQuote)
	wk.RegisterActivity(Noop)
	if err := wk.Start(); err != nil {
		b.Fatal(err)
	}
	defer wk.Stop()
	c := s.app.temporal
	prefix := fmt.Sprintf("bare-quote-%d-", time.Now().UnixNano())
	parallel(b, b.N, func(i int) error {
		op := c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{ID: prefix + fmt.Sprint(i), TaskQueue: queue,
			WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING}, BareQuote)
		h, err := c.UpdateWithStartWorkflow(context.Background(), client.UpdateWithStartWorkflowOptions{StartWorkflowOperation: op,
			UpdateOptions: client.UpdateWorkflowOptions{UpdateName: "create", WaitForStage: client.WorkflowUpdateStageCompleted}})
		if err == nil {
			err = h.Get(context.Background(), nil)
		}
		return err
	})
	b.ResetTimer()
	cpu := readCPU()
	start := time.Now()
	lat := parallel(b, b.N, func(i int) error {
		h, err := c.UpdateWorkflow(context.Background(), client.UpdateWorkflowOptions{WorkflowID: prefix + fmt.Sprint(i), UpdateName: "execute",
			WaitForStage: client.WorkflowUpdateStageCompleted})
		if err == nil {
			err = h.Get(context.Background(), nil)
		}
		return err
	})
	for i := range b.N {
		if err := c.GetWorkflow(context.Background(), prefix+fmt.Sprint(i), "").Get(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	reportCPU(b, cpu, b.N)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "workflows/s")
	reportLatencyAs(b, lat, "execute")
	countHistory(b, s, prefix+fmt.Sprint(b.N-1))
}
