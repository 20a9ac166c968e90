package mailer

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// A real SMTP server (go-smtp) receives what the SMTP mailer sends.
type backend struct {
	mu   sync.Mutex
	got  []string
	from []string
}

func (b *backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{b: b}, nil }

type session struct {
	b    *backend
	from string
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error { s.from = from; return nil }
func (s *session) Rcpt(string, *smtp.RcptOptions) error        { return nil }
func (s *session) Data(r io.Reader) error {
	b, _ := io.ReadAll(r)
	s.b.mu.Lock()
	s.b.got = append(s.b.got, string(b))
	s.b.from = append(s.b.from, s.from)
	s.b.mu.Unlock()
	return nil
}
func (s *session) Reset()        {}
func (s *session) Logout() error { return nil }

func TestSMTPDelivery(t *testing.T) {
	be := &backend{}
	srv := smtp.NewServer(be)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	m := NewSMTP(SMTPConfig{Host: "127.0.0.1", Port: port, TLS: "none"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.Send(ctx, Message{To: "ana@example.com", From: "no-reply@paycore.example", Subject: "Your code", Body: "123456"}); err != nil {
		t.Fatal(err)
	}
	be.mu.Lock()
	defer be.mu.Unlock()
	if len(be.got) != 1 || !strings.Contains(be.got[0], "123456") || !strings.Contains(be.got[0], "Subject: Your code") || be.from[0] != "no-reply@paycore.example" {
		t.Fatalf("received %q from %v", be.got, be.from)
	}
	if err := m.Send(ctx, Message{To: "not an address", From: "no-reply@paycore.example"}); err == nil {
		t.Fatal("bad recipient accepted")
	}
}

func TestSink(t *testing.T) {
	s := NewSink(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for range 105 {
		_ = s.Send(context.Background(), Message{To: "a@example.com", Body: "x", Sandbox: true})
	}
	if n := len(s.Messages()); n != 100 {
		t.Fatalf("kept %d", n)
	}
}

// The development sink keeps sandbox platforms' mail for the mailbox and refuses a
// production platform's; the log says a message was kept or refused, with the recipient
// hashed, and never holds a body, a subject or an address.
func TestSinkSandboxMessages(t *testing.T) {
	var log strings.Builder
	s := NewSink(slog.New(slog.NewTextHandler(&log, nil)))
	err := s.Send(context.Background(), Message{To: "prod@example.com", Subject: "Your code", Body: "code 111111"})
	if !errors.Is(err, ErrNoTransport) {
		t.Fatalf("production mail: %v, want ErrNoTransport", err)
	}
	if err := s.Send(context.Background(), Message{To: "sandbox@example.com", Subject: "Your code", Body: "code 222222", Sandbox: true}); err != nil {
		t.Fatal(err)
	}
	got := s.SandboxMessages()
	if len(got) != 1 || got[0].To != "sandbox@example.com" || len(s.Messages()) != 1 {
		t.Fatalf("sandbox messages: %+v", got)
	}
	for _, secret := range []string{"111111", "222222", "prod@example.com", "sandbox@example.com", "Your code"} {
		if strings.Contains(log.String(), secret) {
			t.Fatalf("log holds %q: %s", secret, log.String())
		}
	}
	if !strings.Contains(log.String(), Recipient("prod@example.com")) || !strings.Contains(log.String(), Recipient("sandbox@example.com")) {
		t.Fatalf("log does not say which mail was sent or refused: %s", log.String())
	}
	var fields map[string]any
	b, _ := json.Marshal(got[0])
	if err := json.Unmarshal(b, &fields); err != nil || len(fields) != 5 {
		t.Fatalf("mailbox entry: %s", b)
	}
}
