// Package mailer sends the service's e-mail (one-time passwords) through SMTP, or, for local
// development, to a sink that keeps sandbox platforms' latest messages readable. No message
// body is ever logged: a one-time code in a log opens a wallet session.
package mailer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	mail "github.com/wneessen/go-mail"

	"paycore/internal/infra/devsink"
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
		return fmt.Errorf("recipient %s: %w", Recipient(m.To), err)
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
		return fmt.Errorf("send mail to %s: %w", Recipient(m.To), err)
	}
	return nil
}

// ErrNoTransport is the sink's answer to a production platform's message: without a mail
// transport (PAYCORE_SMTP_HOST) production mail is refused, never kept or logged.
var ErrNoTransport = errors.New("no mail transport is configured (PAYCORE_SMTP_HOST): a production platform's mail is not sent")

// Sink is the development mailer: it keeps sandbox platforms' latest messages (what the
// development mailbox shows) and refuses production platforms' mail with ErrNoTransport. It
// logs that a message was kept or refused, with the recipient hashed (Recipient), never the
// subject or body.
type Sink struct {
	log *slog.Logger
	box devsink.Box[Message]
}

// NewSink builds a development sink.
func NewSink(log *slog.Logger) *Sink { return &Sink{log: log} }

// Send keeps m when it is a sandbox platform's; a production platform's is refused.
func (s *Sink) Send(ctx context.Context, m Message) error {
	if !m.Sandbox {
		s.log.WarnContext(ctx, "mail refused: no mail transport for a production platform", "to", Recipient(m.To))
		return ErrNoTransport
	}
	m.SentAt = time.Now().UTC()
	s.log.InfoContext(ctx, "mail kept by the development sink", "to", Recipient(m.To))
	s.box.Keep(m)
	return nil
}

// Recipient is how logs name an address (devsink.Recipient).
func Recipient(addr string) string { return devsink.Recipient(addr) }

// SandboxMessages returns the kept messages of sandbox platforms, newest last: what the
// development mailbox may show.
func (s *Sink) SandboxMessages() []Message {
	return s.box.Where(func(m Message) bool { return m.Sandbox })
}

// Messages returns the kept messages, newest last.
func (s *Sink) Messages() []Message { return s.box.Where(nil) }
