// Package webhookforward is `paycore listen`: it reads a platform's webhook events from the
// service's event stream (GET /webhooks/events/stream) and forwards each to a local URL, as
// the service would deliver it, so a developer receives their platform's webhooks on their
// own machine without exposing a port.
//
// Each event is POSTed with the body a delivery carries, byte for byte, signed with a local
// Standard Webhooks secret (webhook-id, webhook-timestamp, webhook-signature) and with the
// service's own X-Service-Signature of the body, which the stream passes on. After a
// disconnection the stream is resumed after the last event received (Last-Event-ID), so
// events recorded meanwhile arrive then, in order, once.
package webhookforward

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"paycore/internal/events"
	"paycore/internal/webhooksig"
)

// Forwarder forwards one platform's events to a local URL.
type Forwarder struct {
	// BaseURL is the API's base URL, up to and including the version segment.
	BaseURL string
	// TokenID and TokenSecret are one of the platform's API tokens.
	TokenID, TokenSecret string
	// ForwardTo is where each event is POSTed.
	ForwardTo string
	// Secret signs the forwarded events (Standard Webhooks).
	Secret []byte
	// After, when set, is the event (Webhook:<uuid>) the stream starts after; else it starts
	// from now.
	After string
	// Stream reads the event stream; Forward POSTs to ForwardTo (both http.DefaultClient
	// when nil; the stream's must have no overall timeout).
	Stream, Forward *http.Client
	// Now is the clock of the webhook-timestamp header (time.Now when nil).
	Now func() time.Time
	// Out gets one line per event forwarded and per reconnection.
	Out io.Writer
	// MaxRetryWait caps the wait between reconnections (30 s when zero).
	MaxRetryWait time.Duration
}

// Delivery is what forwarding one event gave.
type Delivery struct {
	EventID, Type string
	Status        int // the local endpoint's answer; 0 when there was none
	Err           error
	Elapsed       time.Duration
}

// Run forwards events until ctx ends (its error is then nil) or the service refuses the
// stream for good (wrong credentials, an unknown After). A lost connection, and an answer
// of 429 or 5xx (the API restarting), are retried after the last event received.
func (f *Forwarder) Run(ctx context.Context) error {
	last := f.After
	wait := 500 * time.Millisecond
	for {
		err := f.connect(ctx, &last)
		if ctx.Err() != nil {
			return nil
		}
		var t temporary
		if !errors.As(err, &t) {
			return err
		}
		fmt.Fprintf(f.out(), "stream refused for now (%v); retrying in %s\n", t.error, wait)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(wait*2, f.maxWait())
	}
}

// connect reads one connection of the stream, which the SSE client reconnects after a lost
// connection, starting after *last and keeping *last the last event received.
func (f *Forwarder) connect(ctx context.Context, last *string) error {
	u, err := url.Parse(strings.TrimSuffix(f.BaseURL, "/") + "/webhooks/events/stream")
	if err != nil {
		return fmt.Errorf("API base URL: %w", err)
	}
	if *last != "" {
		u.RawQuery = url.Values{"after": {*last}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("stream request: %w", err)
	}
	req.SetBasicAuth(f.TokenID, f.TokenSecret)
	client := &sse.Client{
		HTTPClient:        orDefault(f.Stream),
		ResponseValidator: refusal,
		Backoff:           sse.Backoff{InitialInterval: 500 * time.Millisecond, Multiplier: 1.5, Jitter: 0.3, MaxInterval: f.maxWait()},
		OnRetry: func(err error, wait time.Duration) {
			fmt.Fprintf(f.out(), "stream interrupted (%v); reconnecting in %s, after the last event received\n", err, wait.Round(time.Millisecond))
		},
	}
	conn := client.NewConnection(req)
	conn.Buffer(nil, 4<<20) // one event's data may be larger than the parser's 64 KiB default
	conn.SubscribeEvent("webhook", func(ev sse.Event) {
		f.report(f.forward(ctx, ev.LastEventID, ev.Data))
		*last = ev.LastEventID
	})
	if err := conn.Connect(); err != nil {
		return fmt.Errorf("event stream: %w", err)
	}
	return nil
}

func (f *Forwarder) maxWait() time.Duration {
	if f.MaxRetryWait > 0 {
		return f.MaxRetryWait
	}
	return 30 * time.Second
}

// forward POSTs one event to ForwardTo.
func (f *Forwarder) forward(ctx context.Context, id, data string) Delivery {
	d := Delivery{EventID: id}
	var ev events.StreamEvent
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		d.Err = fmt.Errorf("unreadable stream event: %w", err)
		return d
	}
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal([]byte(ev.Body), &head)
	d.Type = head.Type
	now := f.now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.ForwardTo, strings.NewReader(ev.Body))
	if err != nil {
		d.Err = err
		return d
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "paycore-listen/1")
	webhooksig.SetHeaders(req.Header.Set, ev.ServiceSignature, id, now, [][]byte{f.Secret}, []byte(ev.Body))
	resp, err := orDefault(f.Forward).Do(req)
	d.Elapsed = f.now().Sub(now)
	if err != nil {
		d.Err = err
		return d
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	d.Status = resp.StatusCode
	return d
}

func (f *Forwarder) report(d Delivery) {
	answer := strconv.Itoa(d.Status)
	if d.Err != nil {
		answer = "no answer: " + d.Err.Error()
	}
	fmt.Fprintf(f.out(), "%s  %-36s  %s  → %s (%d ms)\n", f.now().UTC().Format(time.RFC3339), d.Type, d.EventID, answer, d.Elapsed.Milliseconds())
}

// refusal accepts a 200 event stream; any other answer ends Run with the service's error
// envelope (a 5xx is retried).
func refusal(resp *http.Response) error {
	if resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	err := fmt.Errorf("the service answered %d: %s", resp.StatusCode, bytes.TrimSpace(body))
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		return temporary{err}
	}
	return err
}

// temporary marks an answer worth retrying (the SSE client retries errors with Temporary).
type temporary struct{ error }

func (temporary) Temporary() bool { return true }

func (e temporary) Unwrap() error { return e.error }

func (f *Forwarder) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *Forwarder) out() io.Writer {
	if f.Out != nil {
		return f.Out
	}
	return io.Discard
}

func orDefault(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return http.DefaultClient
}
