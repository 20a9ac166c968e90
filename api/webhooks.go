package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"paycore/db"
	"paycore/internal/cursor"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/webhooksig"
	"paycore/workflows/start"
)

// WebhookEvent is a recorded webhook event with its delivery state.
type WebhookEvent struct {
	ID             string           `json:"id"`
	Type           string           `json:"type"`
	Status         string           `json:"status"`
	Data           json.RawMessage  `json:"data"`
	AttemptCount   int32            `json:"attemptCount"`
	LastAttemptAt  *time.Time       `json:"lastAttemptAt,omitempty"`
	LastStatusCode *int32           `json:"lastStatusCode,omitempty"`
	LastError      *string          `json:"lastError,omitempty"`
	DeliveredAt    *time.Time       `json:"deliveredAt,omitempty"`
	CreatedAt      time.Time        `json:"createdAt"`
	Attempts       []WebhookAttempt `json:"attempts,omitempty"`
}

// WebhookAttempt is one delivery attempt.
type WebhookAttempt struct {
	StartedAt    time.Time `json:"startedAt"`
	URL          string    `json:"url"`
	LatencyMs    int32     `json:"latencyMs"`
	StatusCode   *int32    `json:"statusCode,omitempty"`
	Error        *string   `json:"error,omitempty"`
	ResponseBody string    `json:"responseBody"`
}

func webhookEventOf(e db.WebhookEvent) WebhookEvent {
	return WebhookEvent{ID: ids.Format(ids.Webhook, e.ID), Type: e.Type, Status: e.Status, Data: e.Data,
		AttemptCount: e.AttemptCount, LastAttemptAt: e.LastAttemptAt, LastStatusCode: e.LastStatusCode,
		LastError: e.LastError, DeliveredAt: e.DeliveredAt, CreatedAt: e.CreatedAt}
}

// testWebhookResult is the TestWebhookResponse of the catalogue (snake_case names).
type testWebhookResult struct {
	URL            string `json:"url"`
	ResponseStatus int    `json:"response_status"`
	ResponseBody   string `json:"response_body"`
}

// testWebhook sends a TEST event to the platform's endpoint at once and reports what the
// endpoint answered. The event is recorded and delivered by the same workflow as every
// other event, limited to one attempt.
func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) error {
	pr := principalFrom(r.Context())
	p, err := s.q.PlatformGet(r.Context(), pr.PlatformID)
	if err != nil {
		return fmt.Errorf("load platform: %w", err)
	}
	if p.WebhookEndpoint == "" {
		return &Error{Status: http.StatusBadRequest, Code: CodeWebhookNotSet, Message: "no webhookEndpoint is configured; set one with PATCH /config"}
	}
	ev, err := db.EventRecord(r.Context(), s.q, p.ID, events.Test, map[string]any{}, true)
	if err != nil {
		return err
	}
	out, err := s.start.WebhookTest(r.Context(), ids.Format(ids.Webhook, ev.ID), p.ID, events.Test)
	if err != nil {
		return err
	}
	if out.StatusCode == 0 {
		msg := out.Error
		if msg == "" {
			msg = "no response"
		}
		return &Error{Status: http.StatusBadRequest, Code: CodeWebhookDelivery, Message: "test webhook could not be delivered: " + msg,
			Details: map[string]any{"url": p.WebhookEndpoint}}
	}
	writeJSON(w, http.StatusOK, testWebhookResult{URL: out.URL, ResponseStatus: out.StatusCode, ResponseBody: out.Body})
	return nil
}

func (s *Server) listWebhookEvents(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "type", "status", "createdAfter", "createdBefore", "limit", "cursor")
	p := db.WebhookEventListParams{
		PlatformID:   principalFrom(r.Context()).PlatformID,
		Type:         q.enum("type", events.Types...),
		Status:       q.enum("status", "PENDING", "DELIVERED", "FAILED", "UNDELIVERABLE"),
		CreatedAfter: q.time("createdAfter"), CreatedBefore: q.time("createdBefore"),
	}
	limit := q.limit()
	p.AfterID = q.afterID("webhook-events")
	if q.err != nil {
		return q.err
	}
	p.RowLimit = limit + 1
	rows, err := s.q.WebhookEventList(r.Context(), p)
	if err != nil {
		return fmt.Errorf("list webhook events: %w", err)
	}
	total, err := s.q.WebhookEventCount(r.Context(), db.WebhookEventCountParams{
		PlatformID: p.PlatformID, Type: p.Type, Status: p.Status, CreatedAfter: p.CreatedAfter, CreatedBefore: p.CreatedBefore,
	})
	if err != nil {
		return fmt.Errorf("count webhook events: %w", err)
	}
	writeJSON(w, http.StatusOK, page(rows, limit, total, webhookEventOf, func(e db.WebhookEvent) string {
		return cursor.Encode("webhook-events", idCursor{ID: e.ID})
	}))
	return nil
}

var errEventNotFound = notFound(CodeWebhookNotFound, "webhook event")

func (s *Server) getWebhookEvent(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "eventId", ids.Webhook, errEventNotFound)
	if err != nil {
		return err
	}
	ev, err := s.q.WebhookEventGet(r.Context(), db.WebhookEventGetParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id})
	if isNoRows(err) {
		return errEventNotFound
	}
	if err != nil {
		return fmt.Errorf("get webhook event: %w", err)
	}
	attempts, err := s.q.WebhookAttemptList(r.Context(), ev.ID)
	if err != nil {
		return fmt.Errorf("list webhook attempts: %w", err)
	}
	out := webhookEventOf(ev)
	out.Attempts = make([]WebhookAttempt, 0, len(attempts))
	for _, a := range attempts {
		out.Attempts = append(out.Attempts, WebhookAttempt{StartedAt: a.StartedAt, URL: a.Url, LatencyMs: a.LatencyMs,
			StatusCode: a.StatusCode, Error: a.Error, ResponseBody: a.ResponseBody})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// redeliverWebhook delivers an event again (same id, so receivers can de-duplicate) with
// the full retry schedule.
func (s *Server) redeliverWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "eventId", ids.Webhook, errEventNotFound)
	if err != nil {
		return err
	}
	pr := principalFrom(r.Context())
	var ev, before db.WebhookEvent
	err = db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		var err error
		before, err = q.WebhookEventGet(r.Context(), db.WebhookEventGetParams{PlatformID: pr.PlatformID, ID: id})
		if isNoRows(err) {
			return errEventNotFound
		}
		if err != nil {
			return err
		}
		p, err := q.PlatformGet(r.Context(), pr.PlatformID)
		if err != nil {
			return fmt.Errorf("load platform: %w", err)
		}
		if p.WebhookEndpoint == "" || p.WebhookDisabledAt != nil {
			return &Error{Status: http.StatusBadRequest, Code: CodeWebhookNotSet, Message: "no enabled webhookEndpoint is configured; set one with PATCH /config"}
		}
		ev, err = q.WebhookEventResetForRedelivery(r.Context(), db.WebhookEventResetForRedeliveryParams{PlatformID: pr.PlatformID, ID: id})
		return err
	})
	if err != nil {
		return err
	}
	// Started after the commit, so the delivery sees the event PENDING again.
	err = s.start.WebhookDelivery(r.Context(), ids.Format(ids.Webhook, id), pr.PlatformID, ev.Type, s.webhookRetry(), true)
	if errors.Is(err, start.ErrDeliveryRunning) {
		return &Error{Status: http.StatusConflict, Code: CodeDeliveryInProgress, Message: "a delivery of this event is still in progress"}
	}
	if err != nil {
		// Nothing will deliver it: put the event back as it was.
		_ = s.q.WebhookEventMarkFinal(context.WithoutCancel(r.Context()), db.WebhookEventMarkFinalParams{ID: id, Status: before.Status})
		return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "the delivery could not be started; try again"}
	}
	writeJSON(w, http.StatusAccepted, webhookEventOf(ev))
	return nil
}

// SigningKey is the public half of the X-Service-Signature key.
type SigningKey struct {
	Algorithm string `json:"algorithm"`
	Header    string `json:"header"`
	PublicKey string `json:"publicKey"`
}

func (s *Server) getSigningKey(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, SigningKey{Algorithm: "ECDSA_P256_SHA256", Header: webhooksig.HeaderServiceSignature, PublicKey: s.Signer.PublicKeyPEM()})
	return nil
}

// WebhookSecret is the Standard Webhooks secret of the platform.
type WebhookSecret struct {
	Secret                  string     `json:"secret"`
	CreatedAt               time.Time  `json:"createdAt"`
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt,omitempty"`
}

// secretGrace is how long a rotated-out secret keeps signing beside the new one.
const secretGrace = 24 * time.Hour

func (s *Server) getWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	rows, err := s.q.WebhookSecretListActive(r.Context(), principalFrom(r.Context()).PlatformID)
	if err != nil {
		return fmt.Errorf("load webhook secrets: %w", err)
	}
	if len(rows) == 0 {
		return errors.New("platform has no webhook secret")
	}
	out, err := s.secretOf(rows)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) secretOf(rows []db.WebhookSecret) (WebhookSecret, error) {
	raw, err := s.Box.Open(webhooksig.SealLabel, rows[0].SecretSealed)
	if err != nil {
		return WebhookSecret{}, err
	}
	out := WebhookSecret{Secret: webhooksig.FormatSecret(raw), CreatedAt: rows[0].CreatedAt}
	if len(rows) > 1 {
		out.PreviousSecretExpiresAt = rows[1].ExpiresAt
	}
	return out, nil
}

func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	pid := principalFrom(r.Context()).PlatformID
	var rows []db.WebhookSecret
	err := db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		if _, err := q.PlatformGetForUpdate(r.Context(), pid); err != nil {
			return err
		}
		expires := time.Now().Add(secretGrace)
		if err := q.WebhookSecretExpireCurrent(r.Context(), db.WebhookSecretExpireCurrentParams{PlatformID: pid, ExpiresAt: &expires}); err != nil {
			return err
		}
		raw, _ := webhooksig.NewSecret()
		if _, err := q.WebhookSecretCreate(r.Context(), db.WebhookSecretCreateParams{ID: ids.New(), PlatformID: pid, SecretSealed: s.Box.Seal(webhooksig.SealLabel, raw)}); err != nil {
			return err
		}
		var err error
		rows, err = q.WebhookSecretListActive(r.Context(), pid)
		return err
	})
	if err != nil {
		return fmt.Errorf("rotate webhook secret: %w", err)
	}
	out, err := s.secretOf(rows)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
