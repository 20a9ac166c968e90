package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"paycore/db/dbtest"
	"paycore/internal/infra/config"
	"paycore/internal/infra/devserver"
	"paycore/internal/infra/mailer"
	"paycore/internal/kit/sealbox"
)

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	// Below the kernel's ephemeral range (32768 and up), which every listener on port 0
	// draws from: a Temporal dev server started by the test binds several ports of its
	// own that way, and must not take one of the test's between its choice and its use.
	for range 200 {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", 20000+rand.IntN(12000)))
		if err != nil {
			continue
		}
		defer ln.Close()
		return ln.Addr().String()
	}
	t.Fatal("no free port below the ephemeral range")
	return ""
}

// `paycore serve` serves the API on PAYCORE_HTTP_ADDR and the metrics on their own
// listener at PAYCORE_METRICS_ADDR, never on the API's port; with the metrics listener off
// it serves the API alone.
func TestServeMetricsListener(t *testing.T) {
	t.Parallel()
	base := config.Defaults()
	base.DatabaseURL = dbtest.New(t)
	base.TemporalAddress = temporalAddr
	base.TaskQueue = fmt.Sprintf("e2e-%d-serve", os.Getpid())
	base.MasterKey = sealbox.NewKey()
	base.DataDir = t.TempDir()
	get := func(url string) (int, string) { return httpGet(t, url) }
	for _, metricsOn := range []bool{true, false} {
		cfg := base
		cfg.HTTPAddr = freeAddr(t)
		cfg.MetricsAddr = ""
		if metricsOn {
			cfg.MetricsAddr = freeAddr(t)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- serve(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
		api := "http://" + cfg.HTTPAddr
		eventually(t, 30*time.Second, "API up", func() bool {
			resp, err := http.Get(api + "/healthz")
			if err == nil {
				resp.Body.Close()
			}
			return err == nil && resp.StatusCode == 200
		})
		if status, _ := get(api + "/metrics"); status != 404 {
			t.Fatalf("/metrics on the API port: %d", status)
		}
		if metricsOn {
			status, body := get("http://" + cfg.MetricsAddr + "/metrics")
			if status != 200 || !strings.Contains(body, `paycore_http_requests_total{method="GET",route="/healthz",status="200"}`) {
				t.Fatalf("metrics listener: %d\n%s", status, grep(body, "paycore_"))
			}
		}
		stopCommand(t, cancel, done, "serve", 30*time.Second)
	}
}

// lockedBuffer collects what a command prints while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// `paycore dev` prints where the metrics are, serves them there and not on the API port,
// and still serves the development mailbox on the API port.
func TestDevServesMetricsApart(t *testing.T) {
	t.Parallel()
	wd, _ := os.Getwd()
	cli, err := devserver.FindCLI(wd)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.DatabaseURL = dbtest.New(t)
	cfg.DataDir = t.TempDir()
	cfg.TemporalCLI = cli
	cfg.TemporalAddress = freeAddr(t)
	_, uiPort, _ := net.SplitHostPort(freeAddr(t))
	_, _ = fmt.Sscan(uiPort, &cfg.TemporalUIPort)
	cfg.HTTPAddr = freeAddr(t)
	cfg.PublicBaseURL = "http://" + cfg.HTTPAddr
	cfg.MetricsAddr = freeAddr(t)
	cfg.TaskQueue = fmt.Sprintf("e2e-%d-dev", os.Getpid())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out lockedBuffer
	done := make(chan error, 1)
	go func() { done <- runDev(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), &out) }()
	eventually(t, 90*time.Second, "dev stack running", func() bool {
		select {
		case err := <-done:
			t.Fatalf("dev stopped: %v\n%s", err, out.String())
		default:
		}
		return strings.Contains(out.String(), "paycore is running")
	})
	wantLine := "Metrics          http://" + cfg.MetricsAddr + "/metrics"
	if !strings.Contains(out.String(), wantLine) {
		t.Fatalf("banner lacks %q:\n%s", wantLine, out.String())
	}
	get := func(url string) (int, string) { return httpGet(t, url) }
	if status, _ := get("http://" + cfg.HTTPAddr + "/metrics"); status != 404 {
		t.Fatalf("/metrics on the API port: %d", status)
	}
	if status, body := get("http://" + cfg.HTTPAddr + "/dev/mailbox"); status != 200 || !strings.Contains(body, `"data":[]`) {
		t.Fatalf("mailbox: %d %s", status, body)
	}
	if status, body := get("http://" + cfg.MetricsAddr + "/metrics"); status != 200 || !strings.Contains(body, `paycore_http_requests_total{method="GET",route="/dev/mailbox",status="200"} 1`) {
		t.Fatalf("metrics listener: %d\n%s", status, grep(body, "paycore_"))
	}
	stopCommand(t, cancel, done, "dev", 60*time.Second)
}

// httpGet fetches url and returns its status and body.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// stopCommand cancels a running command and waits for it to return cleanly.
func stopCommand(t *testing.T, cancel context.CancelFunc, done <-chan error, name string, timeout time.Duration) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	case <-time.After(timeout):
		t.Fatalf("%s did not stop", name)
	}
}

// Without PAYCORE_SMTP_HOST, `serve` and `dev` keep no production mail: a production
// platform's message is refused (the API answers EMAIL_DELIVERY_FAILED) and nothing of any
// message but its hashed recipient reaches the log. Only `dev` serves the sandbox mailbox.
func TestServeMailWithoutTransport(t *testing.T) {
	t.Parallel()
	for _, dev := range []bool{false, true} {
		var log strings.Builder
		a := &app{cfg: config.Defaults(), log: slog.New(slog.NewTextHandler(&log, nil)), dev: dev}
		m, box := a.mail()
		if (box != nil) != dev {
			t.Fatalf("dev %v: mailbox served: %v", dev, box != nil)
		}
		ctx := context.Background()
		if err := m.Send(ctx, mailer.Message{To: "prod@example.com", Subject: "Your code", Body: "Your one-time code is 314159."}); !errors.Is(err, mailer.ErrNoTransport) {
			t.Fatalf("dev %v: production mail: %v, want refused", dev, err)
		}
		if err := m.Send(ctx, mailer.Message{To: "sandbox@example.com", Subject: "Your code", Body: "Your one-time code is 271828.", Sandbox: true}); err != nil {
			t.Fatalf("dev %v: sandbox mail: %v", dev, err)
		}
		for _, secret := range []string{"314159", "271828", "prod@example.com", "sandbox@example.com"} {
			if strings.Contains(log.String(), secret) {
				t.Fatalf("dev %v: the log holds %q:\n%s", dev, secret, log.String())
			}
		}
	}
}
