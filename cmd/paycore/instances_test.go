package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/view"
	"paycore/internal/infra/config"
)

// secondInstance runs another API process and another worker process (relay and janitor
// included) of s's deployment: the same database and task queue, their own pools,
// Temporal clients and listeners. It returns the base URL of its API and a function that
// stops its worker.
func secondInstance(t *testing.T, s *stack, tweak ...func(*config.Config)) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := s.cfg
	for _, f := range tweak {
		f(&cfg)
	}
	b, err := newApp(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("second instance: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	apiDone, workerDone := make(chan struct{}), make(chan struct{})
	workerCtx, stopWorker := context.WithCancel(ctx)
	go func() { defer close(apiDone); _ = b.runAPI(ctx, ln) }()
	go func() { defer close(workerDone); _ = b.runWorker(workerCtx) }()
	var once sync.Once
	stop := func() { once.Do(func() { stopWorker(); <-workerDone }) }
	t.Cleanup(func() {
		stop()
		cancel()
		<-apiDone
		b.close()
	})
	return "http://" + ln.Addr().String() + s.cfg.BasePath(), stop
}

// Two API and two worker processes of one deployment: requests are spread over both APIs
// and one worker is stopped half way. A key repeated on both APIs at once pays once; every
// payment finishes exactly once; every webhook event is delivered exactly once though two
// relays dispatch; the redeem limit counts attempts on both APIs together; two janitors
// compacting the list counts at once keep them exact.
func TestSeveralInstances(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	secondURL, stopSecondWorker := secondInstance(t, s)
	w := newWorld(t, s)
	other := &apitest.Client{T: t, BaseURL: secondURL, User: w.c.User, Password: w.c.Password}
	apis := []*apitest.Client{w.c, other}
	rc := newReceiver(t, nil)
	setEndpoint(t, w.c, rc.srv.URL)
	w.fund(100_000)
	ext := w.external("001")
	body := map[string]any{"source": map[string]any{"accountId": w.account}, "destination": map[string]any{"accountId": ext}, "amount": 100}

	// One Idempotency-Key, 20 requests at once on both APIs: one payment, one answer.
	var wg sync.WaitGroup
	answers := make([]string, 20)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := *apis[i%2]
			c.T = goroutineTB{t}
			r := c.Do("POST", "/transfer-out", body, "Idempotency-Key", "pay-once")
			answers[i] = fmt.Sprintf("%d %s", r.Status, r.JSON(c.T)["id"])
		}()
	}
	wg.Wait()
	for _, a := range answers {
		if a != answers[0] || a[:3] != "201" {
			t.Fatalf("answers differ or failed: %v", answers)
		}
	}

	// 30 payments spread over both APIs; the first worker stops after 10 of them.
	var ids []string
	for i := range 30 {
		if i == 10 {
			s.stopWorkerAndWait()
		}
		var tx view.Transaction
		r := apis[i%2].Do("POST", "/transfer-out", body)
		if r.Status != 201 {
			t.Fatalf("payment %d: %d %s", i, r.Status, r.Body)
		}
		r.Decode(t, &tx)
		ids = append(ids, tx.ID)
	}
	for _, id := range ids {
		if tx := w.waitFinal(id, time.Minute); tx.Status != "COMPLETED" {
			t.Fatalf("payment %s: %s", id, tx.Status)
		}
	}
	if b := w.balance(); b != 100_000-31*100 {
		t.Fatalf("balance %d, want %d: a payment moved twice or not at all", b, 100_000-31*100)
	}
	s.startWorker() // both workers again

	// Every recorded event reaches the receiver once, whichever relay dispatched it.
	var recorded int
	if err := s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM webhook_events WHERE platform_id = $1", w.platform.ID).Scan(&recorded); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "every event delivered", func() bool { return rc.count() >= recorded })
	time.Sleep(500 * time.Millisecond) // a duplicate would arrive now
	seen := map[string]int{}
	for i := range rc.count() {
		var env struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(rc.get(i).body, &env)
		seen[env.ID]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("event %s delivered %d times", id, n)
		}
	}
	if len(seen) != recorded {
		t.Fatalf("%d distinct events delivered, %d recorded", len(seen), recorded)
	}

	// The redeem limit per code (5 in the window, counted by the code's first group) counts
	// both APIs' attempts.
	for i := range 5 {
		if r := apis[i%2].With("", "").Do("POST", "/agents/device-codes/AGENT-0000-0000-000"+fmt.Sprint(i)+"/redeem", nil); r.Status != 404 {
			t.Fatalf("attempt %d: %d %s", i, r.Status, r.Body)
		}
	}
	for _, c := range apis {
		if r := c.With("", "").Do("POST", "/agents/device-codes/AGENT-0000-0000-0010/redeem", nil); r.Status != 429 {
			t.Fatalf("the 6th attempt: %d %s", r.Status, r.Body)
		}
	}

	// Two janitors compact the list counts at once: the counts stay exact.
	stopSecondWorker()
	var cwg sync.WaitGroup
	for range 2 {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			if _, err := db.ListCountsCompact(context.Background(), s.app.pool); err != nil {
				t.Error(err)
			}
		}()
	}
	cwg.Wait()
	var listed api.List[view.Transaction]
	w.c.Do("GET", "/transactions?customerId="+w.customer, nil).Decode(t, &listed)
	var stored int64
	if err := s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM transactions WHERE platform_id = $1 AND customer_id IS NOT NULL", w.platform.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if listed.TotalCount != stored {
		t.Fatalf("totalCount %d, %d stored", listed.TotalCount, stored)
	}
}

// Stopping an instance is graceful: an API instance stops taking connections and answers
// the requests in flight; a worker finishes the activity it runs (a webhook delivery held
// by the receiver) and reports it before it stops, so the event is delivered once.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, p := s.platform(true)
	rc := newReceiver(t, nil)
	release := make(chan struct{})
	rc.hold = release
	setEndpointDirect(t, s, p, rc.srv.URL)

	// An API instance of its own, stopped while a test send waits on the receiver.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, err := newApp(ctx, s.cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	apiDone := make(chan error, 1)
	go func() { apiDone <- b.runAPI(ctx, ln) }()
	api2 := &apitest.Client{T: t, BaseURL: "http://" + ln.Addr().String() + s.cfg.BasePath(), User: c.User, Password: c.Password}
	answered := make(chan int, 1)
	go func() {
		cl := *api2
		cl.T = goroutineTB{t}
		answered <- cl.Do("POST", "/webhooks/test", nil).Status
	}()
	eventually(t, 20*time.Second, "the test send to reach the receiver", func() bool { return rc.count() == 1 })
	cancel() // SIGTERM
	eventually(t, 10*time.Second, "the instance to stop taking connections", func() bool {
		conn, err := net.DialTimeout("tcp", ln.Addr().String(), 100*time.Millisecond)
		if err == nil {
			conn.Close()
		}
		return err != nil
	})
	select {
	case st := <-answered:
		t.Fatalf("the request in flight was answered %d before the receiver answered", st)
	default:
	}
	rc.mu.Lock()
	rc.hold = nil
	rc.mu.Unlock()
	close(release)
	if st := <-answered; st != 200 {
		t.Fatalf("the request in flight: %d, want 200 (drained)", st)
	}
	if err := <-apiDone; err != nil {
		t.Fatalf("API shutdown: %v", err)
	}

	// A worker stopped while its delivery activity runs finishes it first.
	hold2 := make(chan struct{})
	rc.mu.Lock()
	rc.hold = hold2
	rc.mu.Unlock()
	before := rc.count()
	ev := recordEvent(t, s, p, map[string]any{"n": 1})
	eventually(t, 20*time.Second, "the delivery to reach the receiver", func() bool { return rc.count() == before+1 })
	stopped := make(chan struct{})
	go func() { s.stopWorkerAndWait(); close(stopped) }()
	time.Sleep(300 * time.Millisecond)
	select {
	case <-stopped:
		t.Fatal("the worker stopped before its activity finished")
	default:
	}
	close(hold2)
	<-stopped
	if got := eventStatus(t, c, ev); got.Status != "DELIVERED" {
		t.Fatalf("event %s after the worker stopped", got.Status)
	}
	s.startWorker()
	time.Sleep(time.Second) // a second delivery would come now
	if rc.count() != before+1 {
		t.Fatalf("%d deliveries of the event, want 1", rc.count()-before)
	}
}
