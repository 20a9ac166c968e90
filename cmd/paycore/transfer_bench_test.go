package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"paycore/db/view"
	"paycore/internal/infra/config"
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

// countHistory reports the events, workflow tasks, activities and local activities of one
// run.
func countHistory(b *testing.B, s *stack, workflowID string) {
	iter := s.app.temporal.GetWorkflowHistory(context.Background(), workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var events, tasks, acts, locals float64
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			b.Fatal(err)
		}
		events++
		switch ev.GetEventType() {
		case enums.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			tasks++
		case enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			acts++
		case enums.EVENT_TYPE_MARKER_RECORDED:
			locals++
		}
	}
	b.ReportMetric(events, "history-events/op")
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
// PostgreSQL instead of the dev server; with PAYCORE_BENCH_SPANS=1 it also prints where
// the time of its requests went, from their traces (reportSpans).
func BenchmarkTransferOutOpenLoop(b *testing.B) {
	rate := benchRate(b)
	// PAYCORE_BENCH_SPANS=1 traces every request into an in-memory exporter and prints
	// where the time of the run's requests went (see reportSpans). Tracing costs CPU of its
	// own: the latencies of such a run are not the plain run's.
	var exp *tracetest.InMemoryExporter
	var o appOptions
	if os.Getenv("PAYCORE_BENCH_SPANS") != "" {
		exp = tracetest.NewInMemoryExporter()
		o.spanExporter = exp
	}
	s := newStackWith(b, o, func(c *config.Config) { c.WorkerPollers = 16 })
	w := newWorld(b, s)
	w.fund(int64(b.N) * 10)
	ext := w.external("001")
	w.c.SkipValidation = true // the client's own checks would compete for the CPU
	if exp != nil {
		exp.Reset() // the setup's requests are not the run's
	}
	b.ResetTimer()
	probe := startProbe(b, s)
	openLoop(b, rate, "post", func(int) error {
		if r := w.transferOut(ext, 10); r.Status != 201 {
			return fmt.Errorf("transfer: %d %s", r.Status, r.Body)
		}
		return nil
	})
	b.StopTimer()
	probe.report(b)
	if exp != nil {
		// The workflows' own spans end with them: wait for every run to end.
		eventually(b, 2*time.Minute, "every transfer's workflow to end", func() bool {
			n := 0
			for _, sp := range exp.GetSpans() {
				if sp.Name == "RunWorkflow:Transfer" {
					n++
				}
			}
			return n >= b.N
		})
		reportSpans(b, exp.GetSpans())
	}
}

// benchRate is PAYCORE_BENCH_RATE, the open-loop benchmarks' arrival rate per second (20
// by default).
func benchRate(b *testing.B) float64 {
	rate := 20.0
	if v := os.Getenv("PAYCORE_BENCH_RATE"); v != "" {
		if _, err := fmt.Sscan(v, &rate); err != nil || rate <= 0 {
			b.Fatalf("PAYCORE_BENCH_RATE=%q: a positive number of requests per second", v)
		}
	}
	return rate
}

// openLoop calls op(i) for i in [0, b.N) at rate calls per second, each when it is due
// whatever the earlier calls' latency (an open loop), and reports the latencies, each from
// the moment its call was due (so a backlog counts), as prefix-p50/p99, and the rate the
// calls were sent at, and how busy the machine and each process were while they were sent
// (reportCores).
func openLoop(b *testing.B, rate float64, prefix string, op func(i int) error) {
	interval := time.Duration(float64(time.Second) / rate)
	lat := make([]time.Duration, b.N)
	var wg sync.WaitGroup
	cpu := readCPU()
	start := time.Now()
	for i := range b.N {
		due := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(due))
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := op(i)
			lat[i] = time.Since(due)
			if err != nil {
				b.Error(err)
			}
		}()
	}
	sent := time.Since(start)
	readCPU().reportCores(b, cpu)
	wg.Wait()
	b.ReportMetric(float64(b.N)/sent.Seconds(), "sent/s")
	reportLatencyAs(b, lat, prefix)
	logSlow(b, lat, interval, 100*time.Millisecond)
}

// logSlow reports the share of answers slower than limit and logs, for each second of the
// run (counted from the first request's due time) that had any, how many there were and
// the slowest: whether a tail is spread over the run or one stall.
func logSlow(b *testing.B, lat []time.Duration, interval, limit time.Duration) {
	// lat is in the order the requests were due, so the seconds come in order.
	type second struct {
		at, n int
		max   time.Duration
	}
	var slow []second
	for i, d := range lat {
		if d <= limit {
			continue
		}
		at := int((time.Duration(i) * interval).Seconds())
		if len(slow) == 0 || slow[len(slow)-1].at != at {
			slow = append(slow, second{at: at})
		}
		last := &slow[len(slow)-1]
		last.n++
		last.max = max(last.max, d)
	}
	n := 0
	var line strings.Builder
	for _, s := range slow {
		n += s.n
		fmt.Fprintf(&line, " %ds:%d(max %v)", s.at, s.n, s.max.Round(time.Millisecond))
	}
	b.ReportMetric(100*float64(n)/float64(max(len(lat), 1)), fmt.Sprintf("over-%dms-%%", limit.Milliseconds()))
	if n > 0 {
		b.Logf("answers over %v by second of the run:%s", limit, line.String())
	}
}

// reportSpans prints where the time of each POST /transfer-out of the run went, from its
// trace: for every span name (SQL queries by their sqlc name and the span they ran in),
// the median and p99 of its duration per request, split into the spans that began before
// the answer was sent and those after; then the request cut into consecutive segments
// (before the workflow start, until the worker runs the create update, the update, until
// Temporal answers, writing the answer). The segments' medians and p99s are also reported
// as metrics.
func reportSpans(b *testing.B, all tracetest.SpanStubs) {
	byTrace := map[trace.TraceID]tracetest.SpanStubs{}
	var roots []tracetest.SpanStub
	for _, sp := range all {
		byTrace[sp.SpanContext.TraceID()] = append(byTrace[sp.SpanContext.TraceID()], sp)
		if sp.SpanKind == trace.SpanKindServer && strings.HasSuffix(sp.Name, "/transfer-out") && !sp.Parent.IsValid() {
			roots = append(roots, sp)
		}
	}
	if len(roots) == 0 {
		b.Fatalf("no POST /transfer-out server span among %d spans", len(all))
	}
	type key struct {
		label  string
		before bool // began before the answer was sent
	}
	per := map[key][]time.Duration{} // per request: the summed duration of the label's spans
	count := map[key]int{}
	segs := map[string][]time.Duration{}
	var segOrder []string
	addSeg := func(name string, d time.Duration) {
		if _, ok := segs[name]; !ok {
			segOrder = append(segOrder, name)
		}
		segs[name] = append(segs[name], d)
	}
	for _, root := range roots {
		spans := byTrace[root.SpanContext.TraceID()]
		byID := map[trace.SpanID]tracetest.SpanStub{}
		for _, sp := range spans {
			byID[sp.SpanContext.SpanID()] = sp
		}
		sums := map[key]time.Duration{}
		for _, sp := range spans {
			k := key{label: spanLabel(sp, byID), before: sp.StartTime.Before(root.EndTime)}
			sums[k] += sp.EndTime.Sub(sp.StartTime)
			count[k]++
		}
		for k, d := range sums {
			per[k] = append(per[k], d)
		}
		uws, ok1 := find(spans, named("UpdateWithStartWorkflow:"))
		upd, ok2 := find(spans, named("HandleUpdate:"+workflows.UpdateCreate))
		if !ok1 || !ok2 {
			continue
		}
		addSeg("1 handler before the start (auth, decode, owner read)", uws.StartTime.Sub(root.StartTime))
		addSeg("2 Update-with-Start sent → worker runs the create update", upd.StartTime.Sub(uws.StartTime))
		addSeg("3 create update (CreateTransfer)", upd.EndTime.Sub(upd.StartTime))
		addSeg("4 update done → Temporal answers the Update-with-Start", uws.EndTime.Sub(upd.EndTime))
		addSeg("5 answer written", root.EndTime.Sub(uws.EndTime))
		if run, ok := find(spans, named("RunWorkflow:")); ok {
			addSeg("2a of 2: Update-with-Start sent → the workflow's start time", run.StartTime.Sub(uws.StartTime))
			addSeg("2b of 2: the workflow's start time → the worker runs the update", upd.StartTime.Sub(run.StartTime))
		}
		// The local activities the workflow task ran after the update, before Temporal had
		// its completion (and the update's outcome) to answer with.
		held := upd.EndTime
		for _, sp := range spans {
			if strings.HasPrefix(sp.Name, "RunActivity:") && sp.StartTime.After(upd.EndTime) && sp.EndTime.Before(uws.EndTime) && sp.EndTime.After(held) {
				held = sp.EndTime
			}
		}
		addSeg("4a of 4: update done → the activities the workflow task ran after it end", held.Sub(upd.EndTime))
	}
	slices.Sort(segOrder)
	pct := func(ds []time.Duration, p float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[int(float64(len(s)-1)*p)].Microseconds()) / 1000
	}
	var out strings.Builder
	tw := tabwriter.NewWriter(&out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(&out, "%d requests; per request, the summed duration of the spans of each name (ms):\n", len(roots))
	fmt.Fprintln(tw, "p50\tp99\tspans/req\t\t")
	for _, before := range []bool{true, false} {
		var keys []key
		for k := range per {
			if k.before == before {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(a, b key) int { return strings.Compare(a.label, b.label) })
		when := "before the answer"
		if !before {
			when = "after the answer"
		}
		fmt.Fprintf(tw, "\t\t\t\t%s:\n", when)
		for _, k := range keys {
			ds := per[k]
			for len(ds) < len(roots) { // requests without such a span count as 0
				ds = append(ds, 0)
			}
			fmt.Fprintf(tw, "%.1f\t%.1f\t%.2f\t\t%s\n", pct(ds, 0.5), pct(ds, 0.99), float64(count[k])/float64(len(roots)), k.label)
		}
	}
	fmt.Fprintf(tw, "\t\t\t\tthe request cut into consecutive segments:\n")
	for _, name := range segOrder {
		fmt.Fprintf(tw, "%.1f\t%.1f\t%d\t\t%s\n", pct(segs[name], 0.5), pct(segs[name], 0.99), len(segs[name]), name)
	}
	_ = tw.Flush()
	if b.N > 1 { // not go test's one-request probe run
		fmt.Print(out.String()) // b.Log would cut it to ten lines without -v
	}
	for _, name := range segOrder {
		n := strings.SplitN(name, " ", 2)[0]
		if len(segs[name]) > 0 {
			b.ReportMetric(pct(segs[name], 0.5), "seg"+n+"-p50-ms")
			b.ReportMetric(pct(segs[name], 0.99), "seg"+n+"-p99-ms")
		}
	}
}

// spanLabel names a span for the breakdown: SQL queries by the span they ran in and their
// sqlc name (or their first words), so they sort under it; other spans by their name.
func spanLabel(sp tracetest.SpanStub, byID map[trace.SpanID]tracetest.SpanStub) string {
	if sp.InstrumentationScope.Name != otelpgxScope {
		return sp.Name
	}
	q := sp.Name
	for _, a := range sp.Attributes {
		if a.Key == "db.query.text" || a.Key == "db.statement" {
			q = a.Value.AsString()
		}
	}
	if _, rest, ok := strings.Cut(q, "-- name: "); ok {
		q = strings.Fields(rest)[0]
	} else if f := strings.Fields(q); len(f) > 4 {
		q = strings.Join(f[:4], " ")
	} else {
		q = strings.Join(f, " ")
	}
	parent := "?"
	if p, ok := byID[sp.Parent.SpanID()]; ok {
		parent = p.Name
	}
	return parent + " > sql " + q
}
