package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/events"
	"paycore/internal/ids"
)

// Event stream settings (GET /webhooks/events/stream).
const (
	// streamBatch is how many events one read of the stream takes.
	streamBatch = 100
	// streamHeartbeat is how many polls without an event pass before a comment line keeps
	// the connection (and proxies on the way) from idling out: 15 s at the default poll.
	streamHeartbeat = 30
	// streamWriteWindow is how long one write to the stream may take: a client that stops
	// reading is cut off after it.
	streamWriteWindow = 30 * time.Second
	// streamRetryMs is the reconnection delay the stream asks clients for (SSE "retry").
	streamRetryMs = 2000
)

// streams counts the event streams open per platform in this process and ends them all
// when the server shuts down.
type streams struct {
	mu      sync.Mutex
	open    map[uuid.UUID]int
	closing chan struct{}
	once    sync.Once
}

func newStreams() *streams {
	return &streams{open: map[uuid.UUID]int{}, closing: make(chan struct{})}
}

// acquire counts a new stream of the platform; false when it has StreamsPerPlatform open.
func (st *streams) acquire(platformID uuid.UUID) (release func(), ok bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.open[platformID] >= events.StreamsPerPlatform {
		return nil, false
	}
	st.open[platformID]++
	return func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.open[platformID]--; st.open[platformID] == 0 {
			delete(st.open, platformID)
		}
	}, true
}

// CloseStreams ends every event stream (each answer ends after its current write), so that
// a graceful shutdown does not wait for listeners that never hang up. The HTTP server calls
// it when it shuts down (http.Server.RegisterOnShutdown).
func (s *Server) CloseStreams() {
	s.streams.once.Do(func() { close(s.streams.closing) })
}

// streamWebhookEvents is GET /webhooks/events/stream: the platform's webhook events as
// server-sent events, whatever their delivery state, in the order of the transactions that
// recorded them. It starts after the event named by Last-Event-ID (an EventSource that
// reconnects sends it and keeps the URL), else after the query's `after`, else from now.
func (s *Server) streamWebhookEvents(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "after")
	after := q.str("after")
	if q.err != nil {
		return q.err
	}
	from, field := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if from == "" && after != nil {
		from, field = *after, "after"
	}
	pid := principalFrom(r.Context()).PlatformID
	pos, err := s.streamStart(r.Context(), pid, from, field)
	if err != nil {
		return err
	}
	release, ok := s.streams.acquire(pid)
	if !ok {
		return errorOf(events.TooManyStreams())
	}
	defer release()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // proxies that buffer answers (nginx) pass each event on
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	rc := http.NewResponseController(w)
	// The request is read; its read deadline would otherwise end the stream's context.
	if err := rc.SetReadDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	out := streamWriter{w: w, rc: rc}
	out.printf("retry: %d\n\n", streamRetryMs)
	s.pump(r.Context(), &out, pid, pos)
	if out.err != nil && r.Context().Err() == nil {
		s.Logger.Info("event stream ended", slog.String("platform_id", pid.String()), slog.String("error", out.err.Error()))
	}
	return nil // the answer has begun: an error can only end it
}

// streamStart is where the stream begins: after the event named by from (a webhook event id
// of the platform, read from field), or from now when from is empty.
func (s *Server) streamStart(ctx context.Context, pid uuid.UUID, from, field string) (db.StreamPos, error) {
	if from == "" {
		pos, err := db.WebhookStreamNow(ctx, s.Pool, pid)
		if err != nil {
			return db.StreamPos{}, err
		}
		return pos, nil
	}
	id, err := ids.Parse(ids.Webhook, from)
	if err != nil {
		return db.StreamPos{}, invalidField(field, "%s must be a webhook event id (%s:<uuid>)", field, ids.Webhook)
	}
	pos, err := db.WebhookStreamAfter(ctx, s.Pool, pid, id)
	if err != nil {
		return db.StreamPos{}, err
	}
	return pos, nil
}

// pump writes the platform's events from pos on until the client leaves, the server shuts
// down or a write or read fails.
func (s *Server) pump(ctx context.Context, out *streamWriter, pid uuid.UUID, pos db.StreamPos) {
	tick := time.NewTicker(s.streamPoll())
	defer tick.Stop()
	idle := 0
	for out.err == nil {
		rows, err := db.WebhookStreamRead(ctx, s.Pool, pid, pos, streamBatch)
		if err != nil {
			out.err = err
			return
		}
		for _, ev := range rows {
			frame, err := s.streamFrame(ev)
			if err != nil {
				out.err = err
				return
			}
			out.printf("id: %s\nevent: webhook\ndata: %s\n\n", ids.Format(ids.Webhook, ev.ID), frame)
			pos = db.StreamPos{Xact: ev.Xact, ID: ev.ID}
		}
		if len(rows) == streamBatch {
			continue // more are waiting
		}
		if len(rows) > 0 {
			idle = 0
		} else if idle++; idle >= streamHeartbeat {
			out.printf(": keep-alive\n\n")
			idle = 0
		}
		select {
		case <-ctx.Done():
			return
		case <-s.streams.closing:
			return
		case <-tick.C:
		}
	}
}

// streamFrame is one event's data line: its delivery body and the service's signature of it.
func (s *Server) streamFrame(ev db.WebhookEventsStreamRow) ([]byte, error) {
	body, err := events.Body(ev.ID, ev.Type, ev.CreatedAt.UTC(), ev.Data)
	if err != nil {
		return nil, err
	}
	sig, err := s.Signer.Sign(body)
	if err != nil {
		return nil, err
	}
	frame, err := json.Marshal(events.StreamEvent{Body: string(body), ServiceSignature: sig})
	if err != nil {
		return nil, fmt.Errorf("encode stream event: %w", err)
	}
	return frame, nil
}

// streamPoll is how often an idle stream looks for new events.
func (s *Server) streamPoll() time.Duration {
	if s.StreamPoll > 0 {
		return s.StreamPoll
	}
	return 500 * time.Millisecond
}

// streamWriter writes to the stream, each write within streamWriteWindow and flushed at
// once, and keeps the first error.
type streamWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	err error
}

func (o *streamWriter) printf(format string, args ...any) {
	if o.err != nil {
		return
	}
	if err := o.rc.SetWriteDeadline(time.Now().Add(streamWriteWindow)); err != nil && !errors.Is(err, http.ErrNotSupported) { // elapsed time: a network deadline
		o.err = err
		return
	}
	if _, err := fmt.Fprintf(o.w, format, args...); err != nil {
		o.err = err
		return
	}
	o.err = o.rc.Flush()
}
