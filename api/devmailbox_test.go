package api_test

import (
	"log/slog"
	"strings"
	"sync"
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/internal/mailer"
)

// The development mailbox shows sandbox platforms' one-time codes only; a production
// platform's mail is still sent (here: logged by the sink) but never shown there.
func TestDevMailboxShowsSandboxMailOnly(t *testing.T) {
	t.Parallel()
	log := &lockedBuffer{}
	sink := mailer.NewSink(slog.New(slog.NewTextHandler(log, nil)))
	e := newEnvWith(t, func(d *api.Deps) { d.Mailer, d.DevMailbox = sink, sink })
	for _, p := range []struct {
		sandbox bool
		email   string
	}{{true, "sandbox-user@example.com"}, {false, "production-user@example.com"}} {
		c, _ := e.platform(p.sandbox)
		multiCurrency(t, c, true)
		acct := walletAccount(t, c, p.email)
		if r := c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": acct}); r.Status != 201 {
			t.Fatalf("credential (sandbox %v): %d %s", p.sandbox, r.Status, r.Body)
		}
	}
	if n := len(sink.Messages()); n != 2 {
		t.Fatalf("mail sent: %d, want 2", n)
	}
	if !strings.Contains(log.String(), "production-user@example.com") {
		t.Fatal("production mail not logged")
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
