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

// quoteBench is a funded USD customer with a EUR payee, its client's own response checks
// off (they would compete for the CPU).
func quoteBench(b *testing.B) (*stack, *world, string) {
	s := newStack(b, func(c *config.Config) { c.WorkerPollers = 16 })
	w := newWorld(b, s)
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		b.Fatalf("config: %d %s", r.Status, r.Body)
	}
	w.fund(int64(b.N)*1000 + 1000)
	ext := w.euroAccount("001")
	w.c.SkipValidation = true
	return s, w, ext
}

// BenchmarkQuoteCreate measures POST /quotes (priced and persisted by the quote's
// workflow) with 16 concurrent clients: quotes created per second and the latency.
func BenchmarkQuoteCreate(b *testing.B) {
	_, w, ext := quoteBench(b)
	b.ResetTimer()
	start := time.Now()
	lat := parallel(b, b.N, func(int) error {
		if r := w.quote(ext, "SENDING", 1000); r.Status != 201 {
			return fmt.Errorf("quote: %d %s", r.Status, r.Body)
		}
		return nil
	})
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "quotes/s")
	reportLatencyAs(b, lat, "create")
}

// BenchmarkQuoteExecute measures executing quotes created beforehand, with 16 concurrent
// clients, until every payment is COMPLETED (converted through the FX and fees accounts
// and paid out): payments per second, the execute call's latency, and the Temporal work
// per quote. BenchmarkBareQuoteWorkflow runs the same shape doing nothing.
func BenchmarkQuoteExecute(b *testing.B) {
	s, w, ext := quoteBench(b)
	quotes := make([]view.Quote, b.N)
	parallel(b, b.N, func(i int) error {
		r := w.quote(ext, "SENDING", 1000)
		if r.Status != 201 {
			return fmt.Errorf("quote: %d %s", r.Status, r.Body)
		}
		r.Decode(b, &quotes[i])
		return nil
	})
	b.ResetTimer()
	start := time.Now()
	lat := parallel(b, b.N, func(i int) error {
		if r := w.c.Do("POST", "/quotes/"+quotes[i].ID+"/execute", nil); r.Status != 200 {
			return fmt.Errorf("execute: %d %s", r.Status, r.Body)
		}
		return nil
	})
	for {
		var open int
		_ = s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM transactions WHERE kind = 'QUOTE' AND status <> 'COMPLETED'").Scan(&open)
		if open == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "payments/s")
	reportLatencyAs(b, lat, "execute")
	countHistory(b, s, workflows.QuoteWorkflowID(uuid.MustParse(quotes[b.N-1].ID[len("Quote:"):])))
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
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "workflows/s")
	reportLatencyAs(b, lat, "execute")
	countHistory(b, s, prefix+fmt.Sprint(b.N-1))
}
