package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db"
	"paycore/internal/events"
	"paycore/internal/infra/config"
	"paycore/internal/infra/netguard"
)

type delivery struct {
	header http.Header
	body   []byte
	at     time.Time
}

// receiver is a platform's webhook endpoint. respond picks the status of the n-th request
// (1-based); hold, when set, is waited on before answering.
type receiver struct {
	srv        *httptest.Server
	mu         sync.Mutex
	deliveries []delivery
	respond    func(n int) int
	hold       chan struct{}
}

func newReceiver(t *testing.T, respond func(n int) int) *receiver {
	rc := &receiver{respond: respond}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.deliveries = append(rc.deliveries, delivery{header: r.Header.Clone(), body: body, at: time.Now()})
		n := len(rc.deliveries)
		hold := rc.hold
		rc.mu.Unlock()
		if hold != nil {
			<-hold
		}
		status := 200
		if rc.respond != nil {
			status = rc.respond(n)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"received":true}`))
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.deliveries)
}

func (rc *receiver) get(i int) delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.deliveries[i]
}

func setEndpoint(t *testing.T, c *apitest.Client, url string) {
	t.Helper()
	if r := c.Do("PATCH", "/config", map[string]any{"webhookEndpoint": url}); r.Status != 200 {
		t.Fatalf("set webhook endpoint: %d %s", r.Status, r.Body)
	}
}

func eventStatus(t *testing.T, c *apitest.Client, id string) api.WebhookEvent {
	t.Helper()
	var ev api.WebhookEvent
	r := c.Do("GET", "/webhooks/events/"+id, nil)
	if r.Status != 200 {
		t.Fatalf("get event: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &ev)
	return ev
}

// verifyBoth checks a delivery with independent verifiers: crypto/ecdsa with the
// published public key, and the Standard Webhooks reference library with the secret.
func verifyBoth(t *testing.T, c *apitest.Client, d delivery) {
	t.Helper()
	var key api.SigningKey
	c.Do("GET", "/webhooks/signing-key", nil).Decode(t, &key)
	block, _ := pem.Decode([]byte(key.PublicKey))
	if block == nil {
		t.Fatalf("signing key is not PEM: %q", key.PublicKey)
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := base64.StdEncoding.DecodeString(d.header.Get("X-Service-Signature"))
	if err != nil {
		t.Fatalf("X-Service-Signature not base64: %v", err)
	}
	sum := sha256.Sum256(d.body)
	if !ecdsa.VerifyASN1(pub.(*ecdsa.PublicKey), sum[:], sig) {
		t.Fatal("X-Service-Signature does not verify with the published key")
	}
	tampered := sha256.Sum256(append(bytes.Clone(d.body), ' '))
	if ecdsa.VerifyASN1(pub.(*ecdsa.PublicKey), tampered[:], sig) {
		t.Fatal("signature verifies a tampered body")
	}
	var secret api.WebhookSecret
	c.Do("GET", "/webhooks/secret", nil).Decode(t, &secret)
	wh, err := standardwebhooks.NewWebhook(secret.Secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(d.body, d.header); err != nil {
		t.Fatalf("Standard Webhooks verification failed: %v", err)
	}
}

func TestWebhookTestSendAndSignatures(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, _ := s.platform(true)
	rc := newReceiver(t, nil)
	setEndpoint(t, c, rc.srv.URL+"/hooks")
	// Setting the endpoint sends a one-off TEST event through the outbox relay.
	eventually(t, 20*time.Second, "the TEST event after setting the endpoint", func() bool { return rc.count() >= 1 })

	r := c.Do("POST", "/webhooks/test", nil)
	if r.Status != 200 {
		t.Fatalf("test webhook: %d %s", r.Status, r.Body)
	}
	m := r.JSON(t)
	if m["url"] != rc.srv.URL+"/hooks" || m["response_status"] != float64(200) || m["response_body"] != `{"received":true}` {
		t.Fatalf("test response: %s", r.Body)
	}
	if rc.count() != 2 {
		t.Fatalf("want 2 deliveries, got %d", rc.count())
	}
	for i := range 2 {
		d := rc.get(i)
		var env events.Envelope
		if err := json.Unmarshal(d.body, &env); err != nil {
			t.Fatal(err)
		}
		if env.Type != "TEST" || !strings.HasPrefix(env.ID, "Webhook:") || env.Timestamp.IsZero() || string(env.Data) != "{}" {
			t.Fatalf("bad envelope: %s", d.body)
		}
		if d.header.Get("webhook-id") != env.ID {
			t.Fatalf("webhook-id %q != body id %q", d.header.Get("webhook-id"), env.ID)
		}
		verifyBoth(t, c, d)
	}
	// Rotation: the new secret signs at once and the old one still verifies during the grace period.
	var before api.WebhookSecret
	c.Do("GET", "/webhooks/secret", nil).Decode(t, &before)
	rot := c.Do("POST", "/webhooks/secret/rotate", nil)
	var after api.WebhookSecret
	rot.Decode(t, &after)
	if after.Secret == before.Secret || after.PreviousSecretExpiresAt == nil {
		t.Fatalf("rotation: %s", rot.Body)
	}
	c.Do("POST", "/webhooks/test", nil)
	d := rc.get(rc.count() - 1)
	for _, sec := range []string{before.Secret, after.Secret} {
		wh, _ := standardwebhooks.NewWebhook(sec)
		if err := wh.Verify(d.body, d.header); err != nil {
			t.Fatalf("secret %s… does not verify after rotation: %v", sec[:10], err)
		}
	}
	// The sandbox variant answers the same way; both are recorded as events.
	if r := c.Do("POST", "/sandbox/webhooks/test", nil); r.Status != 200 {
		t.Fatalf("sandbox test webhook: %d %s", r.Status, r.Body)
	}
	var list api.List[api.WebhookEvent]
	c.Do("GET", "/webhooks/events?type=TEST&status=DELIVERED", nil).Decode(t, &list)
	if list.TotalCount != 4 {
		t.Fatalf("want 4 delivered TEST events, got %d", list.TotalCount)
	}
	// A production platform gets 403 on the sandbox route.
	prod, _ := s.platform(false)
	if r := prod.Do("POST", "/sandbox/webhooks/test", nil); r.Status != 403 {
		t.Fatalf("production sandbox route: %d", r.Status)
	}
}

func TestWebhookTestErrors(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, _ := s.platform(true)
	if r := c.Do("POST", "/webhooks/test", nil); r.Status != 400 || r.Code(t) != "WEBHOOK_ENDPOINT_NOT_SET" {
		t.Fatalf("no endpoint: %d %s", r.Status, r.Body)
	}
	// A receiver that is down: 400 WEBHOOK_DELIVERY_ERROR naming the URL.
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	setEndpoint(t, c, url)
	r := c.Do("POST", "/webhooks/test", nil)
	if r.Status != 400 || r.Code(t) != "WEBHOOK_DELIVERY_ERROR" {
		t.Fatalf("dead receiver: %d %s", r.Status, r.Body)
	}
	// A receiver answering 500 is reported as such.
	rc := newReceiver(t, func(int) int { return 500 })
	setEndpoint(t, c, rc.srv.URL)
	r = c.Do("POST", "/webhooks/test", nil)
	if r.Status != 200 || r.JSON(t)["response_status"] != float64(500) {
		t.Fatalf("500 receiver: %d %s", r.Status, r.Body)
	}
}

// A receiver that fails and then recovers gets the event; every attempt is recorded.
func TestWebhookRetriesUntilReceiverRecovers(t *testing.T) {
	t.Parallel()
	// Intervals of whole seconds: the server schedules retries with about 1 s precision.
	s := newStack(t, func(c *config.Config) { c.WebhookRetryStart = time.Second; c.WebhookRetryMax = 4 * time.Second })
	c, p := s.platform(true)
	rc := newReceiver(t, func(n int) int {
		if n <= 3 {
			return 503
		}
		return 204
	})
	setEndpointDirect(t, s, p, rc.srv.URL)
	ev := recordEvent(t, s, p, map[string]any{"hello": "world"})
	eventually(t, 30*time.Second, "delivery after three failures", func() bool { return eventStatus(t, c, ev).Status == "DELIVERED" })
	got := eventStatus(t, c, ev)
	if got.AttemptCount != 4 || len(got.Attempts) != 4 || rc.count() != 4 {
		t.Fatalf("attempts: count %d, recorded %d, received %d", got.AttemptCount, len(got.Attempts), rc.count())
	}
	for i, a := range got.Attempts[:3] {
		if a.StatusCode == nil || *a.StatusCode != 503 {
			t.Fatalf("attempt %d: %+v", i, a)
		}
	}
	// Backoff grows: the gap before the third retry is longer than before the first.
	d1 := rc.get(1).at.Sub(rc.get(0).at)
	d3 := rc.get(3).at.Sub(rc.get(2).at)
	if d3 <= d1 {
		t.Fatalf("no exponential backoff: %s then %s", d1, d3)
	}
}

// The worker stops in the middle of the retry schedule and a new one finishes the job:
// the event is delivered once and nothing is lost.
func TestWebhookSurvivesWorkerRestart(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) { c.WebhookRetryStart = time.Second; c.WebhookRetryMax = 2 * time.Second })
	c, p := s.platform(true)
	rc := newReceiver(t, func(n int) int {
		if n <= 2 {
			return 500
		}
		return 200
	})
	setEndpointDirect(t, s, p, rc.srv.URL)
	ev := recordEvent(t, s, p, map[string]any{"n": 1})
	eventually(t, 20*time.Second, "the first failed attempt", func() bool { return rc.count() >= 1 })
	s.stopWorkerAndWait()
	time.Sleep(3 * time.Second) // retries fall due while no worker runs
	if got := eventStatus(t, c, ev); got.Status != "PENDING" {
		t.Fatalf("event %s while the worker was down", got.Status)
	}
	s.startWorker()
	eventually(t, 30*time.Second, "delivery after the restart", func() bool { return eventStatus(t, c, ev).Status == "DELIVERED" })
	time.Sleep(500 * time.Millisecond)
	ok := 0
	for i := range rc.count() {
		var env events.Envelope
		_ = json.Unmarshal(rc.get(i).body, &env)
		if env.ID != ev {
			t.Fatalf("unexpected event %s", env.ID)
		}
		if i >= 2 {
			ok++
		}
	}
	if ok != 1 || rc.count() != 3 {
		t.Fatalf("want 2 failures then exactly one success, got %d requests", rc.count())
	}
}

func TestWebhookGoneDisablesEndpoint(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, p := s.platform(true)
	rc := newReceiver(t, func(int) int { return 410 })
	setEndpointDirect(t, s, p, rc.srv.URL)
	ev := recordEvent(t, s, p, map[string]any{})
	eventually(t, 20*time.Second, "410 handling", func() bool { return eventStatus(t, c, ev).Status == "UNDELIVERABLE" })
	var cfg api.PlatformConfig
	c.Do("GET", "/config", nil).Decode(t, &cfg)
	if cfg.WebhookEndpointDisabledAt == nil {
		t.Fatal("endpoint not disabled after 410")
	}
	if rc.count() != 1 {
		t.Fatalf("410 was retried: %d requests", rc.count())
	}
	// Later events are not sent to a disabled endpoint.
	ev2 := recordEvent(t, s, p, map[string]any{})
	eventually(t, 20*time.Second, "second event closed", func() bool { return eventStatus(t, c, ev2).Status == "UNDELIVERABLE" })
	if rc.count() != 1 {
		t.Fatal("a disabled endpoint received an event")
	}
	// Setting the endpoint again re-enables it; redelivery sends the first event anew.
	ok := newReceiver(t, nil)
	setEndpoint(t, c, ok.srv.URL)
	r := c.Do("POST", "/webhooks/events/"+ev+"/redeliver", nil)
	if r.Status != 202 {
		t.Fatalf("redeliver: %d %s", r.Status, r.Body)
	}
	eventually(t, 20*time.Second, "redelivery", func() bool { return eventStatus(t, c, ev).Status == "DELIVERED" })
}

// A production platform's endpoint that resolves to a private address is refused at save
// time and, should it get into the configuration anyway (DNS re-pointed), at connect time.
func TestWebhookPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, p := s.platform(false)
	rc := newReceiver(t, nil)
	if r := c.Do("PATCH", "/config", map[string]any{"webhookEndpoint": rc.srv.URL}); r.Status != 400 {
		t.Fatalf("private endpoint accepted for production: %d %s", r.Status, r.Body)
	}
	setEndpointDirect(t, s, p, strings.Replace(rc.srv.URL, "127.0.0.1", "localhost", 1))
	ev := recordEvent(t, s, p, map[string]any{})
	eventually(t, 30*time.Second, "a refused attempt", func() bool { return eventStatus(t, c, ev).AttemptCount >= 1 })
	got := eventStatus(t, c, ev)
	// The platform is told that no HTTP answer came, never why (that would be a port-scan
	// oracle); the operator's log has the reason.
	if got.LastError == nil || *got.LastError != netguard.NoAnswer {
		t.Fatalf("attempt error: %+v", got.LastError)
	}
	// A test send answers in the same words.
	r := c.Do("POST", "/webhooks/test", nil)
	if r.Status != 400 || r.Code(t) != "WEBHOOK_DELIVERY_ERROR" || !strings.HasSuffix(r.JSON(t)["message"].(string), netguard.NoAnswer) {
		t.Fatalf("test send: %d %s", r.Status, r.Body)
	}
	if rc.count() != 0 {
		t.Fatal("the private receiver was reached")
	}
}

// A repeat of a request that is still running waits, then gets 409; after it finishes,
// a repeat replays the stored answer.
func TestIdempotencyWhileRunning(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) { c.IdempotencyWait = 300 * time.Millisecond })
	c, _ := s.platform(true)
	rc := newReceiver(t, nil)
	setEndpoint(t, c, rc.srv.URL)
	eventually(t, 20*time.Second, "initial TEST event", func() bool { return rc.count() >= 1 })
	rc.mu.Lock()
	rc.hold = make(chan struct{})
	hold := rc.hold
	rc.mu.Unlock()
	first := make(chan *apitest.Response)
	go func() { first <- c.Do("POST", "/webhooks/test", nil, "Idempotency-Key", "slow") }()
	eventually(t, 10*time.Second, "the slow request to reach the receiver", func() bool { return rc.count() >= 2 })
	busy := c.Do("POST", "/webhooks/test", nil, "Idempotency-Key", "slow")
	if busy.Status != 409 || busy.Code(t) != "IDEMPOTENCY_REQUEST_IN_PROGRESS" || busy.Header.Get("Retry-After") == "" {
		t.Fatalf("repeat while running: %d %s", busy.Status, busy.Body)
	}
	close(hold)
	r1 := <-first
	r2 := c.Do("POST", "/webhooks/test", nil, "Idempotency-Key", "slow")
	if r1.Status != 200 || !bytes.Equal(r1.Body, r2.Body) || r2.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay after completion: %d %s / %s", r1.Status, r1.Body, r2.Body)
	}
	if rc.count() != 2 {
		t.Fatalf("the test webhook was sent %d times", rc.count()-1)
	}
}

// recordEvent commits an event the way a business transaction does (outbox insert).
func recordEvent(t *testing.T, s *stack, p db.Platform, data any) string {
	t.Helper()
	ev, err := db.EventRecord(context.Background(), s.app.pool, p.ID, events.InternalAccountBalanceUpdated, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return "Webhook:" + ev.ID.String()
}

func setEndpointDirect(t *testing.T, s *stack, p db.Platform, url string) {
	t.Helper()
	if _, err := s.app.pool.Exec(context.Background(), "UPDATE platforms SET webhook_endpoint = $2, webhook_disabled_at = NULL WHERE id = $1", p.ID, url); err != nil {
		t.Fatal(err)
	}
}

// Events of a platform without a webhook endpoint are recorded and closed without a
// delivery workflow; redelivery sends them once an endpoint exists.
func TestEventsWithoutEndpointAreKept(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, p := s.platform(true)
	ev := recordEvent(t, s, p, map[string]any{"k": 1})
	eventually(t, 20*time.Second, "the event to be closed", func() bool { return eventStatus(t, c, ev).Status == "UNDELIVERABLE" })
	got := eventStatus(t, c, ev)
	if got.AttemptCount != 0 || got.LastError == nil {
		t.Fatalf("event %+v", got)
	}
	rc := newReceiver(t, nil)
	setEndpointDirect(t, s, p, rc.srv.URL)
	first := c.Do("POST", "/webhooks/events/"+ev+"/redeliver", nil, "Idempotency-Key", "redeliver-once")
	if first.Status != 202 {
		t.Fatalf("redeliver: %d %s", first.Status, first.Body)
	}
	eventually(t, 20*time.Second, "redelivery", func() bool { return eventStatus(t, c, ev).Status == "DELIVERED" })
	// The 202 of a redelivery is its key's answer (only a signature challenge is not): the
	// repeat replays it and delivers nothing more.
	again := c.Do("POST", "/webhooks/events/"+ev+"/redeliver", nil, "Idempotency-Key", "redeliver-once")
	if again.Status != 202 || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("repeated redelivery: %d %s (replayed %q)", again.Status, again.Body, again.Header.Get("Idempotent-Replayed"))
	}
	time.Sleep(500 * time.Millisecond)
	if rc.count() != 1 {
		t.Fatalf("%d deliveries, want the one redelivery", rc.count())
	}
}

// A redelivery asked for while the event's delivery still retries is refused, and leaves
// the running delivery and the event as they were: the delivery still lands.
func TestRedeliveryWhileDeliveringIsRefused(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, p := s.platform(true)
	var healthy atomic.Bool
	rc := newReceiver(t, func(int) int {
		if healthy.Load() {
			return 200
		}
		return 503
	})
	setEndpointDirect(t, s, p, rc.srv.URL)
	ev := recordEvent(t, s, p, map[string]any{})
	eventually(t, 20*time.Second, "a failed attempt", func() bool { return rc.count() >= 1 })
	r := c.Do("POST", "/webhooks/events/"+ev+"/redeliver", nil)
	if r.Status != 409 || r.Code(t) != "WEBHOOK_DELIVERY_IN_PROGRESS" {
		t.Fatalf("redeliver during a delivery: %d %s", r.Status, r.Body)
	}
	if got := eventStatus(t, c, ev).Status; got != "PENDING" {
		t.Fatalf("event %s after a refused redelivery, want PENDING", got)
	}
	healthy.Store(true)
	eventually(t, 20*time.Second, "the running delivery to land", func() bool { return eventStatus(t, c, ev).Status == "DELIVERED" })
}

// A redelivery asked for the moment an event's status is final, while the run that
// decided it may still be closing, is delivered: it is never lost to the closing run.
func TestRedeliveryRightAfterDelivery(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, p := s.platform(true)
	rc := newReceiver(t, nil)
	setEndpointDirect(t, s, p, rc.srv.URL)
	for i := range 5 {
		ev := recordEvent(t, s, p, map[string]any{"i": i})
		eventually(t, 20*time.Second, "the delivery", func() bool {
			var status string
			_ = s.app.pool.QueryRow(context.Background(), "SELECT status FROM webhook_events WHERE id = $1", uuidOf(ev)).Scan(&status)
			return status == "DELIVERED"
		})
		if r := c.Do("POST", "/webhooks/events/"+ev+"/redeliver", nil); r.Status != 202 {
			t.Fatalf("redeliver %d: %d %s", i, r.Status, r.Body)
		}
		eventually(t, 20*time.Second, "the redelivery", func() bool { return rc.count() == 2*(i+1) })
		eventually(t, 20*time.Second, "the event delivered again", func() bool { return eventStatus(t, c, ev).Status == "DELIVERED" })
	}
}
