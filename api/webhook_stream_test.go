package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	sse "github.com/tmaxmax/go-sse"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/webhooksig"
)

// streamEvent is one event read from GET /webhooks/events/stream.
type streamEvent struct {
	ID   string
	Body events.Envelope
	Raw  events.StreamEvent
}

// eventStream is an open stream; its events arrive on ch until the answer ends.
type eventStream struct {
	ch     chan streamEvent
	cancel context.CancelFunc
	done   chan struct{}
	header http.Header
}

// openStream opens the stream with the given Last-Event-ID (none when empty) and query, and
// fails the test unless it answers 200 text/event-stream.
func openStream(t *testing.T, c *apitest.Client, lastEventID string, query url.Values) *eventStream {
	t.Helper()
	resp, cancel := streamRequest(t, c, lastEventID, query)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		t.Fatalf("stream answered %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &eventStream{ch: make(chan streamEvent, 1000), cancel: cancel, done: make(chan struct{}), header: resp.Header}
	go func() {
		defer close(s.done)
		defer close(s.ch)
		defer resp.Body.Close()
		for ev, err := range sse.Read(resp.Body, nil) {
			if err != nil {
				return
			}
			var raw events.StreamEvent
			var body events.Envelope
			if ev.Type != "webhook" || json.Unmarshal([]byte(ev.Data), &raw) != nil || json.Unmarshal([]byte(raw.Body), &body) != nil {
				t.Errorf("unreadable stream event %+v", ev)
				return
			}
			s.ch <- streamEvent{ID: ev.LastEventID, Body: body, Raw: raw}
		}
	}()
	t.Cleanup(s.close)
	return s
}

func streamRequest(t *testing.T, c *apitest.Client, lastEventID string, query url.Values) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	u := c.BaseURL + "/webhooks/events/stream"
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	req.SetBasicAuth(c.User, c.Password)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("stream: %v", err)
	}
	return resp, cancel
}

func (s *eventStream) close() {
	s.cancel()
	<-s.done
}

// next waits for the stream's next event.
func (s *eventStream) next(t *testing.T) streamEvent {
	t.Helper()
	select {
	case ev, ok := <-s.ch:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(30 * time.Second): // a write transaction open anywhere on the server holds the stream back
		t.Fatal("no event on the stream within 30 s")
	}
	return streamEvent{}
}

// quiet checks that no event arrives for a while (several polls).
func (s *eventStream) quiet(t *testing.T) {
	t.Helper()
	select {
	case ev := <-s.ch:
		t.Fatalf("unexpected event %s %s", ev.ID, ev.Body.Type)
	case <-time.After(300 * time.Millisecond):
	}
}

func record(t *testing.T, d db.DBTX, platformID uuid.UUID, n int) string {
	t.Helper()
	ev, err := db.EventRecord(context.Background(), d, platformID, events.Test, map[string]any{"n": n}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ids.Format(ids.Webhook, ev.ID)
}

func fastStreams(d *api.Deps) { d.StreamPoll = 20 * time.Millisecond }

func TestWebhookStreamFromNowThenResumed(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, fastStreams)
	c, p := e.platform(true)
	other, op := e.platform(true)
	before := record(t, e.pool, p.ID, 0)

	s := openStream(t, c, "", nil)
	if s.header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", s.header.Get("Cache-Control"))
	}
	s.quiet(t) // the event recorded before the stream opened is not shown
	var sent []string
	for i := 1; i <= 3; i++ {
		record(t, e.pool, op.ID, i) // another platform's: never shown
		sent = append(sent, record(t, e.pool, p.ID, i))
	}
	key := fetchSigningKey(t, c)
	for i, want := range sent {
		ev := s.next(t)
		if ev.ID != want || ev.Body.ID != want || ev.Body.Type != events.Test {
			t.Fatalf("event %d: id %s (body %s, %s), want %s", i, ev.ID, ev.Body.ID, ev.Body.Type, want)
		}
		var data map[string]int
		if err := json.Unmarshal(ev.Body.Data, &data); err != nil || data["n"] != i+1 {
			t.Fatalf("event %d data %s", i, ev.Body.Data)
		}
		if err := webhooksig.VerifyECDSA(key, []byte(ev.Raw.Body), ev.Raw.ServiceSignature); err != nil {
			t.Fatalf("event %d: the service signature does not verify: %v", i, err)
		}
	}
	s.quiet(t)
	s.close()

	// Resumed after the first event: the two after it, once each, then the new ones.
	r := openStream(t, c, sent[0], nil)
	if got := []string{r.next(t).ID, r.next(t).ID}; got[0] != sent[1] || got[1] != sent[2] {
		t.Fatalf("resumed after %s: %v, want %v", sent[0], got, sent[1:])
	}
	r.quiet(t)
	later := record(t, e.pool, p.ID, 4)
	if ev := r.next(t); ev.ID != later {
		t.Fatalf("after resuming: %s, want %s", ev.ID, later)
	}

	// The query's after starts the stream too; Last-Event-ID wins over it (an EventSource that
	// reconnects keeps its URL).
	q := openStream(t, c, "", url.Values{"after": {before}})
	if got := q.next(t).ID; got != sent[0] {
		t.Fatalf("after=%s: first %s, want %s", before, got, sent[0])
	}
	both := openStream(t, c, sent[2], url.Values{"after": {before}})
	if got := both.next(t).ID; got != later {
		t.Fatalf("Last-Event-ID %s with after=%s: first %s, want %s", sent[2], before, got, later)
	}

	// Another platform's event, or no event, is 404; a malformed id is 400; both before any
	// stream starts.
	expectStreamRefused(t, other, sent[0], nil, http.StatusNotFound, "WEBHOOK_EVENT_NOT_FOUND")
	expectStreamRefused(t, c, ids.Format(ids.Webhook, uuid.New()), nil, http.StatusNotFound, "WEBHOOK_EVENT_NOT_FOUND")
	expectStreamRefused(t, c, "", url.Values{"after": {"Customer:" + uuid.NewString()}}, http.StatusBadRequest, "INVALID_INPUT")
	expectStreamRefused(t, c, "", url.Values{"since": {before}}, http.StatusBadRequest, "INVALID_INPUT")
}

// An event whose transaction is still open holds back the events of later transactions, so
// that a reader resuming after the last event it saw cannot skip it when it commits.
func TestWebhookStreamWaitsForEarlierTransactions(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, fastStreams)
	c, p := e.platform(true)
	s := openStream(t, c, "", nil)

	ctx := context.Background()
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	first := record(t, tx, p.ID, 1) // open
	second := record(t, e.pool, p.ID, 2)
	s.quiet(t)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := []string{s.next(t).ID, s.next(t).ID}; got[0] != first || got[1] != second {
		t.Fatalf("after the open transaction committed: %v, want [%s %s]", got, first, second)
	}

	// A rolled-back event never shows, and does not hold back what follows.
	tx2, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	record(t, tx2, p.ID, 3)
	third := record(t, e.pool, p.ID, 4)
	s.quiet(t)
	if err := tx2.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.next(t).ID; got != third {
		t.Fatalf("after the rollback: %s, want %s", got, third)
	}
	s.quiet(t)
}

func TestWebhookStreamLimitAndShutdown(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, fastStreams)
	c, p := e.platform(true)
	var open []*eventStream
	for range events.StreamsPerPlatform {
		open = append(open, openStream(t, c, "", nil))
	}
	resp, cancel := streamRequest(t, c, "", nil)
	defer cancel()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("stream %d: %d (Retry-After %q), want 429 with Retry-After", events.StreamsPerPlatform+1, resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// A closed stream frees its place.
	open[0].close()
	waitFor(t, "a freed stream place", func() bool {
		r, cancel := streamRequest(t, c, "", nil)
		defer cancel()
		defer r.Body.Close()
		return r.StatusCode == http.StatusOK
	})

	// Shutting down ends every stream, so that a graceful shutdown does not wait for them.
	e.api.CloseStreams()
	for _, s := range open[1:] {
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			t.Fatal("a stream outlived the shutdown")
		}
	}
	_ = p
}

func expectStreamRefused(t *testing.T, c *apitest.Client, lastEventID string, query url.Values, status int, code string) {
	t.Helper()
	resp, cancel := streamRequest(t, c, lastEventID, query)
	defer cancel()
	defer resp.Body.Close()
	var env struct{ Code string }
	_ = json.NewDecoder(resp.Body).Decode(&env)
	if resp.StatusCode != status || env.Code != code {
		t.Fatalf("stream (Last-Event-ID %q, %v): %d %s, want %d %s", lastEventID, query, resp.StatusCode, env.Code, status, code)
	}
}

func fetchSigningKey(t *testing.T, c *apitest.Client) string {
	t.Helper()
	r := c.Do("GET", "/webhooks/signing-key", nil)
	var key struct{ PublicKey string }
	r.Decode(t, &key)
	if key.PublicKey == "" {
		t.Fatalf("signing key: %s", r.Body)
	}
	return key.PublicKey
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
