package api_test

import (
	"log/slog"
	"strings"
	"sync"
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/internal/infra/mailer"
)

// The development mailbox shows sandbox platforms' one-time codes only. Without a mail
// transport a production platform's code is refused (never logged): the caller is told,
// and the log holds neither code nor address.
func TestDevMailboxShowsSandboxMailOnly(t *testing.T) {
	t.Parallel()
	log := &lockedBuffer{}
	sink := mailer.NewSink(slog.New(slog.NewTextHandler(log, nil)))
	e := newEnvWith(t, func(d *api.Deps) {
		d.Mailer, d.DevMailbox = sink, sink
		d.Logger = slog.New(slog.NewTextHandler(log, nil))
	})
	for _, p := range []struct {
		sandbox bool
		email   string
		status  int
	}{{true, "sandbox-user@example.com", 201}, {false, "production-user@example.com", 502}} {
		c, _ := e.platform(p.sandbox)
		multiCurrency(t, c, true)
		acct := walletAccount(t, c, p.email)
		r := c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": acct})
		if r.Status != p.status || (!p.sandbox && (r.Code(t) != "EMAIL_DELIVERY_FAILED" || !strings.Contains(string(r.Body), "PAYCORE_SMTP_HOST"))) {
			t.Fatalf("credential (sandbox %v): %d %s", p.sandbox, r.Status, r.Body)
		}
	}
	if n := len(sink.Messages()); n != 1 {
		t.Fatalf("mail kept: %d, want 1", n)
	}
	m := codeRe.FindStringSubmatch(sink.Messages()[0].Body)
	if m == nil {
		t.Fatalf("no code in %q", sink.Messages()[0].Body)
	}
	code := m[1]
	for _, secret := range []string{code, "production-user@example.com", "sandbox-user@example.com", "one-time code"} {
		if strings.Contains(log.String(), secret) {
			t.Fatalf("the log holds %q:\n%s", secret, log.String())
		}
	}
	if !strings.Contains(log.String(), mailer.Recipient("production-user@example.com")) {
		t.Fatalf("the refusal is not logged:\n%s", log.String())
	}
	root := &apitest.Client{T: t, BaseURL: e.srv.URL, SkipValidation: true}
	r := root.Do("GET", "/dev/mailbox", nil)
	if r.Status != 200 {
		t.Fatalf("mailbox: %d %s", r.Status, r.Body)
	}
	var box struct {
		Data []mailer.Message `json:"data"`
	}
	r.Decode(t, &box)
	if len(box.Data) != 1 || box.Data[0].To != "sandbox-user@example.com" || !strings.Contains(box.Data[0].Body, "one-time code") {
		t.Fatalf("mailbox shows %s", r.Body)
	}
	if strings.Contains(string(r.Body), "production-user@example.com") {
		t.Fatal("a production platform's code is in the mailbox")
	}
}

// lockedBuffer is a log destination written by the server's goroutines and read by the test.
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
