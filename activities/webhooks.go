package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"paycore/db"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/infra/netguard"
	"paycore/internal/webhooksig"

	"paycore/internal/catalog"
)

// maxStoredBody bounds how much of a receiver's answer is kept.
const maxStoredBody = 4096

// DeliverInput names the event to deliver.
type DeliverInput struct {
	EventID string
	Once    bool
}

// DeliveryOutcome is what one attempt saw.
type DeliveryOutcome struct {
	URL        string    `json:"url"`
	StatusCode int       `json:"statusCode"`
	Body       string    `json:"body"`
	Error      string    `json:"error,omitempty"`
	Delivered  bool      `json:"delivered"`
	StartedAt  time.Time `json:"startedAt"`
	LatencyMs  int64     `json:"latencyMs"`
}

// DeliverWebhook makes one delivery attempt of an event and records it. It returns nil when
// the receiver accepted the event (2xx) or already had it (409). Other answers are
// retryable errors, except 410, which disables the endpoint. With in.Once the outcome is
// returned without error whatever the receiver said, and the event is closed.
func (a *Activities) DeliverWebhook(ctx context.Context, in DeliverInput) (DeliveryOutcome, error) {
	ev, p, err := a.deliverable(ctx, in.EventID)
	if err != nil {
		return DeliveryOutcome{Error: endpointProblem(err)}, err
	}
	out, cause := a.attempt(ctx, ev, p)
	if cause != nil {
		// What the platform sees is out.Error; the operator gets the real failure.
		a.log.WarnContext(ctx, "webhook transport failure", "event", in.EventID, "platform", ids.Format(ids.Platform, p.ID),
			"url", out.URL, "error", cause)
	}
	out.Delivered = out.Error == "" && (out.StatusCode/100 == 2 || out.StatusCode == http.StatusConflict)
	if err := a.recordOutcome(ctx, ev, p, out, in.Once); err != nil {
		return out, fmt.Errorf("record attempt of %s: %w", in.EventID, err)
	}
	a.log.InfoContext(ctx, "webhook attempt", "event", in.EventID, "type", ev.Type, "status", out.StatusCode, "error", out.Error)
	switch {
	case out.Delivered || in.Once:
		return out, nil
	case out.StatusCode == http.StatusGone:
		return out, temporal.NewNonRetryableApplicationError("endpoint answered 410 Gone; disabled", ErrEndpointGone, nil)
	case out.Error != "":
		return out, temporal.NewApplicationError(out.Error, ErrDeliveryFailed)
	default:
		return out, temporal.NewApplicationError("endpoint answered "+strconv.Itoa(out.StatusCode), ErrDeliveryFailed)
	}
}

// deliverable loads a PENDING event and its platform, which must have an enabled endpoint.
// Otherwise the error is non-retryable: ErrEventClosed, or ErrNoEndpoint.
func (a *Activities) deliverable(ctx context.Context, eventID string) (db.WebhookEvent, db.Platform, error) {
	id, err := ids.Parse(ids.Webhook, eventID)
	if err != nil {
		return db.WebhookEvent{}, db.Platform{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrEventClosed, err)
	}
	ev, err := db.WebhookEventGet(ctx, a.pool, id)
	if err != nil {
		return ev, db.Platform{}, fmt.Errorf("load event %s: %w", eventID, err)
	}
	if ev.Status != catalog.WebhookPending {
		return ev, db.Platform{}, temporal.NewNonRetryableApplicationError("event is "+string(ev.Status), ErrEventClosed, nil)
	}
	p, err := db.PlatformGet(ctx, a.pool, ev.PlatformID)
	if err != nil {
		return ev, p, fmt.Errorf("load platform of event %s: %w", eventID, err)
	}
	if p.WebhookEndpoint == "" || p.WebhookDisabledAt != nil {
		msg := "the platform has no webhook endpoint"
		if p.WebhookDisabledAt != nil {
			msg = "the platform's webhook endpoint was disabled after it answered 410 Gone"
		}
		return ev, p, temporal.NewNonRetryableApplicationError(msg, ErrNoEndpoint, nil)
	}
	return ev, p, nil
}

// endpointProblem is what the outcome of a delivery that made no attempt says: why the
// platform's endpoint was not called (nothing for other errors).
func endpointProblem(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == ErrNoEndpoint {
		return appErr.Message()
	}
	return ""
}

// recordOutcome records an attempt and what it decides, in one database transaction: an
// accepted event is DELIVERED; a single (TEST) attempt that was not accepted is FAILED; a
// 410 disables the endpoint it was sent to and makes the event UNDELIVERABLE.
func (a *Activities) recordOutcome(ctx context.Context, ev db.WebhookEvent, p db.Platform, out DeliveryOutcome, once bool) error {
	decision := db.WebhookAttemptRetry
	switch {
	case out.Delivered:
		decision = db.WebhookAttemptDelivered
	case once:
		decision = db.WebhookAttemptFailed
	case out.StatusCode == http.StatusGone:
		decision = db.WebhookAttemptGone
	}
	now := a.now()
	return db.WebhookAttemptRecord(ctx, a.pool, p.ID, attemptRecord(ev.ID, out, now), decision, now)
}

// attempt signs and sends the event once. When the request got no HTTP answer on behalf of
// a production platform, out.Error is netguard.NoAnswer whatever went wrong and no latency
// is recorded: refused, reset, timed out, unresolvable and refused-address endpoints must
// look alike to whoever chose the URL, or deliveries and test sends would port-scan the
// networks the service reaches. The real failure is returned as cause, for the log.
// Sandbox platforms keep the detail.
func (a *Activities) attempt(ctx context.Context, ev db.WebhookEvent, p db.Platform) (out DeliveryOutcome, cause error) {
	out = DeliveryOutcome{URL: p.WebhookEndpoint}
	req, err := a.signedRequest(ctx, ev, p)
	if err != nil {
		out.Error = err.Error()
		return out, nil
	}
	sandbox := p.Environment == catalog.Sandbox
	client := a.public
	if sandbox {
		client = a.sandbox
	}
	out.StartedAt = a.now()
	begun := time.Now() // for the latency only: elapsed time, not the time
	resp, err := client.Do(req)
	out.LatencyMs = time.Since(begun).Milliseconds()
	if err != nil {
		if sandbox {
			out.Error = "send: " + err.Error()
			return out, nil
		}
		out.Error, out.LatencyMs = netguard.NoAnswer, 0
		return out, netguard.Cause(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxStoredBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	out.StatusCode = resp.StatusCode
	out.Body = string(bytes.ToValidUTF8(b, []byte("?")))
	return out, nil
}

// signedRequest is the POST of an event to its platform's endpoint, signed both ways (the
// service's ECDSA signature and the Standard Webhooks headers).
func (a *Activities) signedRequest(ctx context.Context, ev db.WebhookEvent, p db.Platform) (*http.Request, error) {
	now := a.now().UTC()
	msgID := ids.Format(ids.Webhook, ev.ID)
	body, err := events.Body(ev.ID, ev.Type, now, ev.Data)
	if err != nil {
		return nil, err
	}
	secrets, err := a.signingSecrets(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	sig, err := a.signer.Sign(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.WebhookEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "paycore-webhooks/1")
	webhooksig.SetHeaders(req.Header.Set, sig, msgID, now, secrets, body)
	return req, nil
}

// attemptRecord is the row of an attempt of the event, as recorded.
func attemptRecord(eventID uuid.UUID, out DeliveryOutcome, now time.Time) db.WebhookAttemptCreateParams {
	started := out.StartedAt
	if started.IsZero() {
		started = now
	}
	var status *int32
	if out.StatusCode != 0 {
		s := int32(out.StatusCode)
		status = &s
	}
	var errText *string
	if out.Error != "" {
		errText = &out.Error
	}
	return db.WebhookAttemptCreateParams{
		EventID: eventID, Url: out.URL, StartedAt: started, LatencyMs: int32(out.LatencyMs), StatusCode: status, Error: errText, ResponseBody: out.Body,
	}
}

// signingSecrets returns the platform's Standard Webhooks secrets, newest first.
func (a *Activities) signingSecrets(ctx context.Context, platformID uuid.UUID) ([][]byte, error) {
	rows, err := db.WebhookSecretListActive(ctx, a.pool, platformID, a.now())
	if err != nil {
		return nil, fmt.Errorf("load webhook secrets: %w", err)
	}
	if len(rows) == 0 {
		return nil, errors.New("platform has no webhook secret")
	}
	out := make([][]byte, 0, len(rows))
	for _, r := range rows {
		raw, err := a.box.Open(webhooksig.SealLabel, r.SecretSealed)
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, nil
}

// ReopenWebhookEvent puts an event back to PENDING for a redelivery.
func (a *Activities) ReopenWebhookEvent(ctx context.Context, eventID string) error {
	id, err := ids.Parse(ids.Webhook, eventID)
	if err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrEventClosed, err)
	}
	if err := db.WebhookEventReopen(ctx, a.pool, id); err != nil {
		return fmt.Errorf("reopen event %s: %w", eventID, err)
	}
	return nil
}

// MarkWebhookFinal closes a pending event with a final status (FAILED or UNDELIVERABLE).
func (a *Activities) MarkWebhookFinal(ctx context.Context, eventID string, status catalog.WebhookEventStatus) error {
	id, err := ids.Parse(ids.Webhook, eventID)
	if err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrEventClosed, err)
	}
	if err := db.WebhookEventMarkFinal(ctx, a.pool, db.WebhookEventMarkFinalParams{ID: id, Status: status}); err != nil {
		return fmt.Errorf("mark event %s %s: %w", eventID, status, err)
	}
	return nil
}
