package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"paycore/db"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
)

// BenchmarkWebhookFirstAttempt measures the time from the commit of an event (outbox
// insert) to the first byte of its delivery at the receiver: NOTIFY, relay, workflow
// start, activity, signing and the HTTP POST.
func BenchmarkWebhookFirstAttempt(b *testing.B) {
	s := newStack(b, func(c *config.Config) { c.WorkerPollers = 16 })
	arrived := make(chan string, 1024)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env events.Envelope
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &env)
		arrived <- env.ID
		w.WriteHeader(204)
	}))
	defer rc.Close()
	_, p := s.platform(true)
	if _, err := s.app.pool.Exec(context.Background(), "UPDATE platforms SET webhook_endpoint = $2 WHERE id = $1", p.ID, rc.URL); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		ev, err := db.EventRecord(context.Background(), s.app.pool, p.ID, events.InternalAccountBalanceUpdated, map[string]any{"n": 1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		want := ids.Format(ids.Webhook, ev.ID)
		for got := range arrived {
			if got == want {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// BenchmarkAuthenticatedRead measures GET /config (Basic auth check plus one read) under
// parallel load over loopback HTTP.
func BenchmarkAuthenticatedRead(b *testing.B) {
	s := newStack(b)
	c, _ := s.platform(true)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ResetTimer()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", s.baseURL+"/config", nil)
			req.SetBasicAuth(c.User, c.Password)
			resp, err := hc.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(float64(len(lat)-1)*p)].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
