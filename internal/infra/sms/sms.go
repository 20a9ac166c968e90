// Package sms sends the service's text messages (one-time codes of SMS_OTP credentials)
// through the operator's SMS gateway, or, for local development, to a sink that keeps
// sandbox platforms' latest messages readable. No message body is ever logged: a one-time
// code in a log opens a wallet session.
package sms

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"paycore/internal/infra/devsink"
)

// Message is one text message.
type Message struct {
	To     string    `json:"to"`
	Body   string    `json:"body"`
	SentAt time.Time `json:"sentAt"`
	// Sandbox marks a message sent on behalf of a sandbox platform; only such messages are
	// shown in the development outbox. Delivery ignores it.
	Sandbox bool `json:"-"`
}

// Sender sends messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// ErrNoTransport is the Sink's refusal of a production platform's message: without an
// SMS gateway (PAYCORE_SMS_URL) production messages are refused, never kept or logged.
var ErrNoTransport = errors.New("no SMS gateway is configured (PAYCORE_SMS_URL): a production platform's message is not sent")

// Gateway sends through the operator's SMS gateway: an HTTPS endpoint that takes a JSON
// POST {"to": "+14155550123", "body": "..."} with the token as a bearer credential and
// answers 2xx once it accepted the message (a bridge to the operator's SMS provider).
type Gateway struct {
	URL    string
	Token  string
	Client *http.Client
}

// Send posts m to the gateway.
func (g Gateway) Send(ctx context.Context, m Message) error {
	body, err := json.Marshal(map[string]string{"to": m.To, "body": m.Body})
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("SMS gateway request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if g.Token != "" {
		req.Header.Set("Authorization", "Bearer "+g.Token)
	}
	res, err := g.Client.Do(req)
	if err != nil {
		return fmt.Errorf("SMS gateway: %w", err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("SMS gateway answered %d", res.StatusCode)
	}
	return nil
}

// Sink is the development sender: it keeps sandbox platforms' latest messages (what the
// development outbox shows) and refuses production platforms' with ErrNoTransport. It logs
// that a message was kept or refused, with the number hashed (devsink.Recipient), never the
// body.
type Sink struct {
	log *slog.Logger
	box devsink.Box[Message]
}

// NewSink builds a development sink.
func NewSink(log *slog.Logger) *Sink { return &Sink{log: log} }

// Send keeps m when it is a sandbox platform's; a production platform's is refused.
func (s *Sink) Send(ctx context.Context, m Message) error {
	if !m.Sandbox {
		s.log.WarnContext(ctx, "text message refused: no SMS gateway for a production platform", "to", devsink.Recipient(m.To))
		return ErrNoTransport
	}
	m.SentAt = time.Now().UTC()
	s.log.InfoContext(ctx, "text message kept by the development sink", "to", devsink.Recipient(m.To))
	s.box.Keep(m)
	return nil
}

// SandboxMessages returns the kept messages of sandbox platforms, newest last.
func (s *Sink) SandboxMessages() []Message {
	return s.box.Where(func(m Message) bool { return m.Sandbox })
}
