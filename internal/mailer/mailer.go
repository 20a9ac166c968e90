// Package mailer sends the service's e-mail (one-time passwords) through SMTP, or, for local
// development, to a sink that logs each message and keeps the latest ones readable.
package mailer

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	mail "github.com/wneessen/go-mail"
)

// Message is one e-mail.
type Message struct {
	To      string    `json:"to"`
	From    string    `json:"from"`
	Subject string    `json:"subject"`
	Body    string    `json:"body"`
	SentAt  time.Time `json:"sentAt"`
	// Sandbox marks mail sent on behalf of a sandbox platform; only such mail is shown in
	// the development mailbox. Delivery ignores it.
	Sandbox bool `json:"-"`
}

// Mailer sends messages.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// SMTPConfig configures SMTP delivery.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string
	Password string
	// TLS is "starttls" (required), "tls" (implicit) or "none" (plain, for local relays).
	TLS string
}

// SMTP delivers through an SMTP server.
type SMTP struct {
	cfg SMTPConfig
}

// NewSMTP builds an SMTP mailer.
func NewSMTP(cfg SMTPConfig) *SMTP { return &SMTP{cfg: cfg} }

// Send delivers m.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	msg := mail.NewMsg()
	if err := msg.From(m.From); err != nil {
		return fmt.Errorf("sender %q: %w", m.From, err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("recipient %q: %w", m.To, err)
	}
	msg.Subject(m.Subject)
	msg.SetBodyString(mail.TypeTextPlain, m.Body)
	opts := []mail.Option{mail.WithPort(s.cfg.Port), mail.WithTimeout(10 * time.Second)}
	switch s.cfg.TLS {
	case "none":
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	case "tls":
		opts = append(opts, mail.WithSSL())
	default:
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	}
	if s.cfg.Username != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthPlain), mail.WithUsername(s.cfg.Username), mail.WithPassword(s.cfg.Password))
	}
	c, err := mail.NewClient(s.cfg.Host, opts...)
	if err != nil {
		return fmt.Errorf("smtp client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("send mail to %s: %w", m.To, err)
	}
	return nil
}

// Sink is the development mailer: it logs every message and keeps the latest 100.
type Sink struct {
	log *slog.Logger
	mu  sync.Mutex
	box []Message
}

// NewSink builds a development sink.
func NewSink(log *slog.Logger) *Sink { return &Sink{log: log} }

// Send records m.
func (s *Sink) Send(_ context.Context, m Message) error {
	m.SentAt = time.Now().UTC()
	s.log.Info("mail (development sink)", "to", m.To, "subject", m.Subject, "body", m.Body, "sandbox", m.Sandbox)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.box = append(s.box, m)
	if len(s.box) > 100 {
		s.box = s.box[len(s.box)-100:]
	}
	return nil
}

// SandboxMessages returns the kept messages of sandbox platforms, newest last: what the
// development mailbox may show.
func (s *Sink) SandboxMessages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Message{}
	for _, m := range s.box {
		if m.Sandbox {
			out = append(out, m)
		}
	}
	return out
}

// Messages returns the kept messages, newest last.
func (s *Sink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.box...)
}
