package view

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/kit/sealbox"
	"paycore/internal/webhooksig"
)

// WebhookEvent is a recorded webhook event with its delivery state.
type WebhookEvent struct {
	ID             string                     `json:"id"`
	Type           string                     `json:"type"`
	Status         catalog.WebhookEventStatus `json:"status"`
	Data           json.RawMessage            `json:"data"`
	AttemptCount   int32                      `json:"attemptCount"`
	LastAttemptAt  *time.Time                 `json:"lastAttemptAt,omitempty"`
	LastStatusCode *int32                     `json:"lastStatusCode,omitempty"`
	LastError      *string                    `json:"lastError,omitempty"`
	DeliveredAt    *time.Time                 `json:"deliveredAt,omitempty"`
	CreatedAt      time.Time                  `json:"createdAt"`
	Attempts       []WebhookAttempt           `json:"attempts,omitempty"`
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

// WebhookEventOf renders an event without its attempts (as lists show it).
func WebhookEventOf(e db.WebhookEvent) WebhookEvent {
	return WebhookEvent{ID: ids.Format(ids.Webhook, e.ID), Type: e.Type, Status: e.Status, Data: e.Data,
		AttemptCount: e.AttemptCount, LastAttemptAt: e.LastAttemptAt, LastStatusCode: e.LastStatusCode,
		LastError: e.LastError, DeliveredAt: e.DeliveredAt, CreatedAt: e.CreatedAt}
}

// WebhookEventWithAttempts renders an event with every delivery attempt.
func WebhookEventWithAttempts(e db.WebhookEvent, attempts []db.WebhookAttempt) WebhookEvent {
	out := WebhookEventOf(e)
	out.Attempts = make([]WebhookAttempt, 0, len(attempts))
	for _, a := range attempts {
		out.Attempts = append(out.Attempts, WebhookAttempt{StartedAt: a.StartedAt, URL: a.Url, LatencyMs: a.LatencyMs,
			StatusCode: a.StatusCode, Error: a.Error, ResponseBody: a.ResponseBody})
	}
	return out
}

// TestWebhookResult is what the platform's endpoint answered a test send (the
// TestWebhookResponse of the catalogue, with snake_case names).
type TestWebhookResult struct {
	URL            string `json:"url"`
	ResponseStatus int    `json:"response_status"`
	ResponseBody   string `json:"response_body"`
}

// SigningKey is the public half of the X-Service-Signature key.
type SigningKey struct {
	Algorithm string `json:"algorithm"`
	Header    string `json:"header"`
	PublicKey string `json:"publicKey"`
}

// SigningKeyOf renders the service's signing key from its PEM public key.
func SigningKeyOf(publicKeyPEM string) SigningKey {
	return SigningKey{Algorithm: "ECDSA_P256_SHA256", Header: webhooksig.HeaderServiceSignature, PublicKey: publicKeyPEM}
}

// WebhookSecret is the Standard Webhooks secret of the platform.
type WebhookSecret struct {
	Secret                  string     `json:"secret"`
	CreatedAt               time.Time  `json:"createdAt"`
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt,omitempty"`
}

// WebhookSecretOf renders a platform's active secrets (newest first, as
// WebhookSecretListActive returns them): the current one, opened with box, and when the
// previous one expires.
func WebhookSecretOf(box *sealbox.Box, active []db.WebhookSecret) (WebhookSecret, error) {
	if len(active) == 0 {
		return WebhookSecret{}, errors.New("platform has no webhook secret")
	}
	raw, err := box.Open(webhooksig.SealLabel, active[0].SecretSealed)
	if err != nil {
		return WebhookSecret{}, fmt.Errorf("open webhook secret: %w", err)
	}
	out := WebhookSecret{Secret: webhooksig.FormatSecret(raw), CreatedAt: active[0].CreatedAt}
	if len(active) > 1 {
		out.PreviousSecretExpiresAt = active[1].ExpiresAt
	}
	return out, nil
}
