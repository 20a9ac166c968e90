package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"paycore/db"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
	"paycore/internal/webhooksig"
)

// cutProxy forwards TCP connections to target until cut: then it closes every connection
// and refuses new ones until mend.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  map[net.Conn]bool
	cutOff bool
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cutOff {
			p.mu.Unlock()
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c], p.conns[up] = true, true
		p.mu.Unlock()
		go p.pipe(c, up)
		go p.pipe(up, c)
	}
}

func (p *cutProxy) pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// cut closes every connection and refuses new ones.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutOff = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *cutProxy) mend() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutOff = false
}

// forwardedTo is the local endpoint `paycore listen` forwards to: it checks both signatures
// of every request and keeps the event ids in arrival order.
type forwardedTo struct {
	mu  sync.Mutex
	ids []string
	bad []string
}

func (f *forwardedTo) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ids...)
}

// TestListenForwardsAcrossADisconnection runs `paycore listen` against the service through a
// proxy that is cut, so that events recorded while it is disconnected arrive after it
// reconnects: every event of the platform after the start, in the stream's order, once, with
// the local secret's signature and the service's.
func TestListenForwardsAcrossADisconnection(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	w := newWorld(t, s)
	key := w.c.Do("GET", "/webhooks/signing-key", nil).JSON(t)["publicKey"].(string)

	raw, secret := webhooksig.NewSecret()
	verifier, err := standardwebhooks.NewWebhookRaw(raw)
	if err != nil {
		t.Fatal(err)
	}
	local := &forwardedTo{}
	endpoint := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		local.mu.Lock()
		defer local.mu.Unlock()
		if err := verifier.Verify(body, r.Header); err != nil {
			local.bad = append(local.bad, "webhook-signature: "+err.Error())
		}
		if err := webhooksig.VerifyECDSA(key, body, r.Header.Get(webhooksig.HeaderServiceSignature)); err != nil {
			local.bad = append(local.bad, "X-Service-Signature: "+err.Error())
		}
		if !strings.Contains(string(body), r.Header.Get("webhook-id")) {
			local.bad = append(local.bad, "webhook-id is not the body's event id")
		}
		local.ids = append(local.ids, r.Header.Get("webhook-id"))
		rw.WriteHeader(http.StatusNoContent)
	}))
	defer endpoint.Close()

	// The start: an event recorded before listen runs, which it must not forward.
	start, err := db.EventRecord(context.Background(), s.app.pool, w.platform.ID, events.Test, map[string]any{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(s.baseURL)
	proxy := newCutProxy(t, u.Host)
	env := map[string]string{"PAYCORE_TOKEN_ID": w.c.User, "PAYCORE_TOKEN_SECRET": w.c.Password, "PAYCORE_LISTEN_SECRET": secret}
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- listen(ctx, s.cfg, []string{"-forward-to", endpoint.URL + "/webhooks", "-api", "http://" + proxy.ln.Addr().String() + s.cfg.BasePath(),
			"-after", ids.Format(ids.Webhook, start.ID)}, func(k string) string { return env[k] }, out)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("listen: %v", err)
		}
	}()

	stream := func() []string { return streamOrder(t, s, w.platform.ID, start) }
	w.fund(1_000)
	eventually(t, 20*time.Second, "the first events forwarded", func() bool {
		return len(stream()) > 0 && len(local.got()) == len(stream())
	}, out.String)
	connected := len(local.got())

	proxy.cut()
	w.fund(2_000) // recorded while listen cannot reach the service
	w.fund(3_000)
	time.Sleep(time.Second) // listen keeps retrying against the cut proxy meanwhile
	if got := len(local.got()); got != connected {
		t.Fatalf("%d events forwarded while the proxy was cut", got-connected)
	}
	proxy.mend()
	eventually(t, 30*time.Second, "every event forwarded after reconnecting", func() bool {
		return len(local.got()) >= len(stream())
	}, out.String)
	time.Sleep(500 * time.Millisecond) // a duplicate would arrive by now

	want, got := stream(), local.got()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("forwarded %d events:\n%v\nwant, in the stream's order, once each (%d):\n%v\nlisten said:\n%s", len(got), got, len(want), want, out.String())
	}
	if len(want) <= connected {
		t.Fatalf("no event was recorded while disconnected (%d in all, %d before)", len(want), connected)
	}
	local.mu.Lock()
	bad := local.bad
	local.mu.Unlock()
	if len(bad) > 0 {
		t.Fatalf("forwarded requests with bad signatures: %v", bad)
	}
	for _, line := range []string{"Signing them with " + secret, "reconnecting", "→ 204"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("listen's output lacks %q:\n%s", line, out.String())
		}
	}

	// A refusal that retrying cannot change ends listen with the service's answer.
	wrong := map[string]string{"PAYCORE_TOKEN_ID": w.c.User, "PAYCORE_TOKEN_SECRET": "wrong"}
	err = listen(context.Background(), s.cfg, []string{"-forward-to", endpoint.URL, "-api", s.baseURL}, func(k string) string { return wrong[k] }, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("listen with a wrong secret: %v, want the service's 401", err)
	}
}

// streamOrder is the platform's events after start in the stream's order (transaction, id).
func streamOrder(t *testing.T, s *stack, platformID uuid.UUID, start db.WebhookEvent) []string {
	t.Helper()
	rows, err := s.app.pool.Query(context.Background(),
		`SELECT id FROM webhook_events WHERE platform_id = $1 AND (xact, id) > ($2, $3) ORDER BY xact, id`, platformID, start.Xact, start.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, ids.Format(ids.Webhook, id))
	}
	if err := rows.Err(); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	return out
}

func TestListenRefusesBadSettings(t *testing.T) {
	t.Parallel()
	cfg := config.Defaults()
	cfg.DataDir = t.TempDir() // no sandbox platform's credentials there
	none := func(string) string { return "" }
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, "-forward-to: required"},
		{[]string{"-forward-to", "localhost:3000"}, nil, "is not an http(s) URL"},
		{[]string{"-forward-to", "http://localhost:3000/webhooks"}, nil, "no API token"},
		{[]string{"-forward-to", "http://localhost:3000/webhooks"}, map[string]string{"PAYCORE_TOKEN_ID": "a", "PAYCORE_TOKEN_SECRET": "b",
			"PAYCORE_LISTEN_SECRET": "secret"}, "PAYCORE_LISTEN_SECRET"},
		{[]string{"-forward-to", "http://localhost:3000/webhooks", "extra"}, nil, "usage: paycore listen"},
	} {
		getenv := none
		if c.env != nil {
			getenv = func(k string) string { return c.env[k] }
		}
		err := listen(context.Background(), cfg, c.args, getenv, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("listen %v: %v, want an error containing %q", c.args, err, c.want)
		}
	}
}

// TestListenSignsWithThePlatformsSecret: with -platform-secret, forwarded events verify with
// the platform's own webhook secret, as delivered ones do, and the secret is not printed.
func TestListenSignsWithThePlatformsSecret(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	w := newWorld(t, s)
	secret := w.c.Do("GET", "/webhooks/secret", nil).JSON(t)["secret"].(string)
	verifier, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	verified := make(chan error, 16)
	endpoint := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		verified <- verifier.Verify(body, r.Header)
		rw.WriteHeader(http.StatusOK)
	}))
	defer endpoint.Close()
	env := map[string]string{"PAYCORE_TOKEN_ID": w.c.User, "PAYCORE_TOKEN_SECRET": w.c.Password}
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- listen(ctx, s.cfg, []string{"-forward-to", endpoint.URL, "-api", s.baseURL, "-platform-secret"}, func(k string) string { return env[k] }, out)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("listen: %v", err)
		}
	}()
	// The stream starts after the platform's newest event when it connects: fund until an
	// event recorded after that arrives.
	deadline := time.After(30 * time.Second)
	for arrived := false; !arrived; {
		w.fund(1_000)
		select {
		case err := <-verified:
			if err != nil {
				t.Fatalf("a forwarded event does not verify with the platform's secret: %v", err)
			}
			arrived = true
		case <-time.After(time.Second):
		case <-deadline:
			t.Fatalf("nothing forwarded:\n%s", out.String())
		}
	}
	if strings.Contains(out.String(), secret) {
		t.Fatal("listen printed the platform's secret")
	}
}
