package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"paycore/db/view"
	"paycore/internal/config"
	"paycore/workflows"
)

const benchClients = 16

// BenchmarkTransferOut measures end-to-end transfers (POST /transfer-out → COMPLETED) with
// 16 concurrent clients: throughput, POST latency, and the Temporal work per transfer.
// BenchmarkBareWorkflow runs a workflow of the same shape doing nothing, on the same
// server, so the ratio of the two throughputs shows the project's own overhead.
func BenchmarkTransferOut(b *testing.B) {
	s := newStack(b, func(c *config.Config) { c.WorkerPollers = 16 })
	w := newWorld(b, s)
	w.fund(int64(b.N) * 10)
	ext := w.external("001")
	w.c.SkipValidation = true // the client's own checks would compete for the CPU
	ids := make(chan string, b.N)
	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	next := make(chan int, b.N)
	for i := range b.N {
		next <- i
	}
	close(next)
	b.ResetTimer()
	start := time.Now()
	for range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				r := w.transferOut(ext, 10)
				lat[i] = time.Since(t0)
				if r.Status != 201 {
					b.Errorf("transfer: %d %s", r.Status, r.Body)
					return
				}
				var tx view.Transaction
				r.Decode(b, &tx)
				ids <- tx.ID
			}
		}()
	}
	wg.Wait()
	close(ids)
	for {
		var open int
		_ = s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM transactions WHERE kind = 'TRANSFER_OUT' AND status <> 'COMPLETED'").Scan(&open)
		if open == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "transfers/s")
	reportLatencyAs(b, lat, "post")
	last := ""
	for id := range ids {
		last = id
	}
	countHistory(b, s, workflows.TransferWorkflowID("TRANSFER_OUT", uuid.MustParse(last[len("Transaction:"):])))
}

// countHistory reports the workflow tasks, activities and local activities of one run.
func countHistory(b *testing.B, s *stack, workflowID string) {
	iter := s.app.temporal.GetWorkflowHistory(context.Background(), workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var tasks, acts, locals float64
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			b.Fatal(err)
		}
		switch ev.GetEventType() {
		case enums.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			tasks++
		case enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			acts++
		case enums.EVENT_TYPE_MARKER_RECORDED:
			locals++
		}
	}
	b.ReportMetric(tasks, "wf-tasks/op")
	b.ReportMetric(acts, "activities/op")
	b.ReportMetric(locals, "local-activities/op")
}

func reportLatencyAs(b *testing.B, lat []time.Duration, prefix string) {
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	if len(sorted) == 0 {
		return
	}
	pct := func(p float64) float64 { return float64(sorted[int(float64(len(sorted)-1)*p)].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), prefix+"-p50-ms")
	b.ReportMetric(pct(0.99), prefix+"-p99-ms")
}

// Bare is the transfer's shape with nothing inside: an update handler running one local
// activity, then a local activity, a regular activity and a local activity.
func Bare(ctx workflow.Context) error {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 10 * time.Second})
	created := false
	if err := workflow.SetUpdateHandler(ctx, "create", func(ctx workflow.Context) error {
		err := workflow.ExecuteLocalActivity(lctx, Noop).Get(ctx, nil)
		created = true
		return err
	}); err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return created }); err != nil {
		return err
	}
	if err := workflow.ExecuteLocalActivity(lctx, Noop).Get(ctx, nil); err != nil {
		return err
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	if err := workflow.ExecuteActivity(actx, Noop).Get(ctx, nil); err != nil {
		return err
	}
	return workflow.ExecuteLocalActivity(lctx, Noop).Get(ctx, nil)
}

// Noop does nothing.
func Noop(context.Context) error { return nil }

func BenchmarkBareWorkflow(b *testing.B) {
	s := newStack(b, func(c *config.Config) { c.WorkerPollers = 16 })
	s.stopWorkerAndWait()
	queue := s.cfg.TaskQueue + "-bare"
	wk := sdkworker.New(s.app.temporal, queue, sdkworker.Options{MaxConcurrentWorkflowTaskPollers: 16, MaxConcurrentActivityTaskPollers: 16})
	wk.RegisterWorkflow(Bare)
	wk.RegisterActivity(Noop)
	if err := wk.Start(); err != nil {
		b.Fatal(err)
	}
	defer wk.Stop()
	c := s.app.temporal
	lat := make([]time.Duration, b.N)
	next := make(chan int, b.N)
	for i := range b.N {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	runs := make(chan string, b.N)
	b.ResetTimer()
	start := time.Now()
	for range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				id := fmt.Sprintf("bare-%d-%d", start.UnixNano(), i)
				t0 := time.Now()
				op := c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{ID: id, TaskQueue: queue,
					WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING}, Bare)
				h, err := c.UpdateWithStartWorkflow(context.Background(), client.UpdateWithStartWorkflowOptions{StartWorkflowOperation: op,
					UpdateOptions: client.UpdateWorkflowOptions{UpdateName: "create", WaitForStage: client.WorkflowUpdateStageCompleted}})
				if err == nil {
					err = h.Get(context.Background(), nil)
				}
				if err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(t0)
				runs <- id
			}
		}()
	}
	wg.Wait()
	close(runs)
	last := ""
	for id := range runs {
		if err := c.GetWorkflow(context.Background(), id, "").Get(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		last = id
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "workflows/s")
	reportLatencyAs(b, lat, "start")
	countHistory(b, s, last)
}

// BenchmarkTransferOutOpenLoop sends POST /transfer-out at a fixed arrival rate
// (PAYCORE_BENCH_RATE per second, 20 by default), b.N requests, whatever the answers'
// latency: an open-loop load, so a slow answer does not hold back the next request. Each
// latency runs from the moment its request was due, not from when it was sent, so a
// backlog counts. It reports the answers' p50 and p99 and the rate the requests were sent
// at. With PAYCORE_TEST_TEMPORAL=cluster it runs against the Temporal server on
// PostgreSQL instead of the dev server.
func BenchmarkTransferOutOpenLoop(b *testing.B) {
	rate := 20.0
	if v := os.Getenv("PAYCORE_BENCH_RATE"); v != "" {
		if _, err := fmt.Sscan(v, &rate); err != nil || rate <= 0 {
			b.Fatalf("PAYCORE_BENCH_RATE=%q: a positive number of requests per second", v)
		}
	}
	s := newStack(b, func(c *config.Config) { c.WorkerPollers = 16 })
	w := newWorld(b, s)
	w.fund(int64(b.N) * 10)
	ext := w.external("001")
	w.c.SkipValidation = true // the client's own checks would compete for the CPU
	interval := time.Duration(float64(time.Second) / rate)
	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		due := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(due))
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := w.transferOut(ext, 10)
			lat[i] = time.Since(due)
			if r.Status != 201 {
				b.Errorf("transfer: %d %s", r.Status, r.Body)
			}
		}()
	}
	sent := time.Since(start)
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/sent.Seconds(), "sent/s")
	reportLatencyAs(b, lat, "post")
}
