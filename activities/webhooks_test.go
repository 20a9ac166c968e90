package activities_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"paycore/activities"
	"paycore/db"
	"paycore/db/dbtest"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/infra/netguard"
	"paycore/internal/infra/netguard/netguardtest"
	"paycore/internal/kit/sealbox"
	"paycore/internal/webhooksig"

	"paycore/internal/catalog"
)

type fixture struct {
	pool *pgxpool.Pool
	box  *sealbox.Box
	acts *activities.Activities
	env  *testsuite.TestActivityEnvironment
}

func newFixture(t *testing.T, sandboxPrivate bool) *fixture {
	return newFixtureWith(t, func(o *activities.Options) { o.SandboxAllowPrivate = sandboxPrivate })
}

func newFixtureWith(t *testing.T, tweak func(*activities.Options)) *fixture {
	pool, _ := dbtest.NewPool(t)
	key, _ := sealbox.ParseKey(sealbox.NewKey())
	box, _ := sealbox.New(key)
	der, _ := webhooksig.GenerateKey()
	signer, _ := webhooksig.NewECDSASigner(der)
	opts := activities.Options{Pool: pool, Box: box, Signer: signer, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	tweak(&opts)
	acts := activities.New(opts)
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(acts)
	f := &fixture{pool: pool, acts: acts, env: env}
	f.box = box
	return f
}

// platform inserts a platform with a webhook secret and endpoint url.
func (f *fixture) platform(t *testing.T, env, url string) db.Platform {
	ctx := context.Background()
	id := ids.New()
	p, err := dbtest.PlatformCreate(ctx, f.pool, db.PlatformCreateParams{ID: id, Name: "p", Environment: catalog.Environment(env), ConfigID: ids.New(),
		UmaDomain: "p-" + strings.ReplaceAll(id.String(), "-", "") + ".example.com", WebhookEndpoint: url, SupportedCurrencies: json.RawMessage(`[]`)})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := webhooksig.NewSecret()
	if _, err := dbtest.WebhookSecretCreate(ctx, f.pool, db.WebhookSecretCreateParams{ID: ids.New(), PlatformID: p.ID, SecretSealed: f.box.Seal(webhooksig.SealLabel, raw)}); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) event(t *testing.T, p db.Platform) (db.WebhookEvent, string) {
	now := time.Now()
	ev, err := db.EventRecord(context.Background(), f.pool, p.ID, events.Test, map[string]any{"k": "v"}, &now)
	if err != nil {
		t.Fatal(err)
	}
	return ev, ids.Format(ids.Webhook, ev.ID)
}

func (f *fixture) deliver(id string, once bool) (activities.DeliveryOutcome, error) {
	var out activities.DeliveryOutcome
	v, err := f.env.ExecuteActivity(f.acts.DeliverWebhook, activities.DeliverInput{EventID: id, Once: once})
	if err == nil {
		_ = v.Get(&out)
	}
	return out, err
}

func appErrType(err error) string {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae.Type()
	}
	return ""
}

func receiver(t *testing.T, status int) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		w.WriteHeader(status)
		_, _ = w.Write([]byte("answer"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestDeliverOutcomes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true)
	for _, tc := range []struct {
		status    int
		errType   string
		wantState string
	}{
		{200, "", "DELIVERED"},
		{204, "", "DELIVERED"},
		{409, "", "DELIVERED"},
		{500, activities.ErrDeliveryFailed, "PENDING"},
		{400, activities.ErrDeliveryFailed, "PENDING"},
		{410, activities.ErrEndpointGone, "UNDELIVERABLE"},
	} {
		srv, hits := receiver(t, tc.status)
		p := f.platform(t, "SANDBOX", srv.URL)
		ev, id := f.event(t, p)
		out, err := f.deliver(id, false)
		if appErrType(err) != tc.errType {
			t.Fatalf("%d: error %v, want type %q", tc.status, err, tc.errType)
		}
		got, _ := db.WebhookEventGet(context.Background(), f.pool, ev.ID)
		if string(got.Status) != tc.wantState || got.AttemptCount != 1 || hits.Load() != 1 {
			t.Fatalf("%d: status %s attempts %d hits %d", tc.status, got.Status, got.AttemptCount, hits.Load())
		}
		attempts, _ := db.WebhookAttemptList(context.Background(), f.pool, ev.ID)
		if len(attempts) != 1 || attempts[0].StatusCode == nil || int(*attempts[0].StatusCode) != tc.status ||
			(tc.status != 204 && attempts[0].ResponseBody != "answer") {
			t.Fatalf("%d: attempt not recorded: %+v", tc.status, attempts)
		}
		if tc.errType == "" && (!out.Delivered || out.StatusCode != tc.status) {
			t.Fatalf("%d: outcome %+v", tc.status, out)
		}
		if tc.status == 410 {
			pl, _ := db.PlatformGet(context.Background(), f.pool, p.ID)
			if pl.WebhookDisabledAt == nil {
				t.Fatal("410 did not disable the endpoint")
			}
			_, id2 := f.event(t, p)
			if _, err := f.deliver(id2, false); appErrType(err) != activities.ErrNoEndpoint {
				t.Fatalf("delivery to a disabled endpoint: %v", err)
			}
		}
	}
}

// A delivered event is never sent again (an activity retried after success is a no-op).
func TestDeliverIsIdempotent(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true)
	srv, hits := receiver(t, 200)
	_, id := f.event(t, f.platform(t, "SANDBOX", srv.URL))
	if _, err := f.deliver(id, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.deliver(id, false); appErrType(err) != activities.ErrEventClosed {
		t.Fatalf("second delivery: %v", err)
	}
	if hits.Load() != 1 {
		t.Fatalf("receiver hit %d times", hits.Load())
	}
}

func TestDeliverOnceReportsWithoutError(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true)
	srv, _ := receiver(t, 503)
	ev, id := f.event(t, f.platform(t, "SANDBOX", srv.URL))
	out, err := f.deliver(id, true)
	if err != nil || out.StatusCode != 503 || out.Delivered {
		t.Fatalf("once: %+v %v", out, err)
	}
	got, _ := db.WebhookEventGet(context.Background(), f.pool, ev.ID)
	if got.Status != "FAILED" {
		t.Fatalf("status %s", got.Status)
	}
}

// Production platforms never reach private addresses, whatever the sandbox setting; the
// refusal is recorded in the same words as any other transport failure.
func TestDeliverRefusesPrivateAddressesForProduction(t *testing.T) {
	t.Parallel()
	f := newFixture(t, true)
	srv, hits := receiver(t, 200)
	ev, id := f.event(t, f.platform(t, "PRODUCTION", srv.URL))
	_, err := f.deliver(id, false)
	if appErrType(err) != activities.ErrDeliveryFailed || !strings.Contains(err.Error(), netguard.NoAnswer) {
		t.Fatalf("error %v", err)
	}
	if hits.Load() != 0 {
		t.Fatal("private receiver reached")
	}
	got, _ := db.WebhookEventGet(context.Background(), f.pool, ev.ID)
	if got.LastError == nil || *got.LastError != netguard.NoAnswer {
		t.Fatalf("last error %q", deref(got.LastError))
	}
	// Zoned loopback (the address of the SSRF report) is refused at connect time too.
	u, _ := url.Parse(srv.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	_, id1 := f.event(t, f.platform(t, "PRODUCTION", "http://[::1%25lo]:"+port+"/h"))
	if _, err := f.deliver(id1, false); appErrType(err) != activities.ErrDeliveryFailed || hits.Load() != 0 {
		t.Fatalf("zoned loopback: %v (hits %d)", err, hits.Load())
	}
	// Sandbox platforms are refused too unless the operator allows private addresses, and
	// they are told why.
	strict := newFixture(t, false)
	_, id2 := strict.event(t, strict.platform(t, "SANDBOX", srv.URL))
	if _, err := strict.deliver(id2, false); appErrType(err) != activities.ErrDeliveryFailed || hits.Load() != 0 ||
		!strings.Contains(err.Error(), "not publicly routable") {
		t.Fatalf("strict sandbox: %v", err)
	}
}

// endpoints that give no HTTP answer, each in its own way.
func deadEndpoints(t *testing.T) map[string]string {
	t.Helper()
	dead := netguardtest.DeadAddrs(t, 3*time.Second)
	return map[string]string{
		"refused":  "http://" + dead["refused"] + "/hook",
		"time-out": "http://" + dead["time-out"] + "/hook",
		"reset":    "http://" + dead["reset"] + "/hook",
		"dns":      "http://receiver.invalid/hook",
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// A production platform cannot tell a refused port from a reset connection, a silent host
// or an unknown name: the test send's answer, the recorded attempt, the event's last error
// and the workflow's error all read the same, and no latency is recorded. HTTP answers are
// still reported as they are.
func TestProductionAttemptErrorsHideNetworkDetail(t *testing.T) {
	t.Parallel()
	const timeout = 400 * time.Millisecond
	f := newFixtureWith(t, func(o *activities.Options) { o.WebhookTimeout = timeout })
	activities.ReachPrivateForProduction(f.acts, timeout)
	for name, endpoint := range deadEndpoints(t) {
		p := f.platform(t, "PRODUCTION", endpoint)
		// A test send (one attempt, outcome returned).
		ev, id := f.event(t, p)
		out, err := f.deliver(id, true)
		if err != nil || out.Error != netguard.NoAnswer || out.StatusCode != 0 || out.LatencyMs != 0 {
			t.Errorf("%s: test send %+v %v", name, out, err)
		}
		attempts, _ := db.WebhookAttemptList(context.Background(), f.pool, ev.ID)
		if len(attempts) != 1 || attempts[0].Error == nil || *attempts[0].Error != netguard.NoAnswer || attempts[0].LatencyMs != 0 {
			t.Errorf("%s: recorded attempt %+v", name, attempts)
		}
		// A regular delivery attempt.
		ev2, id2 := f.event(t, p)
		_, err = f.deliver(id2, false)
		if appErrType(err) != activities.ErrDeliveryFailed || !strings.HasSuffix(err.Error(), netguard.NoAnswer+" (type: "+activities.ErrDeliveryFailed+", retryable: true)") {
			t.Errorf("%s: delivery error %v", name, err)
		}
		got, _ := db.WebhookEventGet(context.Background(), f.pool, ev2.ID)
		if got.LastError == nil || *got.LastError != netguard.NoAnswer {
			t.Errorf("%s: last error %q", name, deref(got.LastError))
		}
	}
	// HTTP answers are not transport failures.
	srv, _ := receiver(t, 503)
	_, id := f.event(t, f.platform(t, "PRODUCTION", srv.URL))
	if out, err := f.deliver(id, true); err != nil || out.StatusCode != 503 || out.Body != "answer" || out.Error != "" {
		t.Fatalf("503 answer: %+v %v", out, err)
	}
}

// Sandbox platforms keep the detail: the same endpoints give different answers.
func TestSandboxAttemptErrorsKeepDetail(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, func(o *activities.Options) { o.WebhookTimeout = 400 * time.Millisecond; o.SandboxAllowPrivate = true })
	seen := map[string]string{}
	for name, endpoint := range deadEndpoints(t) {
		_, id := f.event(t, f.platform(t, "SANDBOX", endpoint))
		out, err := f.deliver(id, true)
		if err != nil || out.Error == "" || out.Error == netguard.NoAnswer {
			t.Fatalf("%s: %+v %v", name, out, err)
		}
		seen[strings.ReplaceAll(out.Error, endpoint, "URL")] = name
	}
	if len(seen) != 4 {
		t.Fatalf("sandbox errors are not distinct: %v", seen)
	}
}
