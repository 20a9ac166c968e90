package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"

	"github.com/google/uuid"

	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
	"paycore/workflows/start"
)

// The webhook resources (rendered by db/view).
type (
	// WebhookEvent is a recorded webhook event with its delivery state.
	WebhookEvent = view.WebhookEvent
	// SigningKey is the public half of the X-Service-Signature key.
	SigningKey = view.SigningKey
	// WebhookSecret is the Standard Webhooks secret of the platform.
	WebhookSecret = view.WebhookSecret
)

// testWebhook sends a TEST event to the platform's endpoint at once and reports what the
// endpoint answered. The event is recorded and delivered by the same workflow as every
// other event, limited to one attempt.
func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) error {
	p, err := db.PlatformGet(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID)
	if err != nil {
		return fmt.Errorf("load platform: %w", err)
	}
	if err := (platformconfig.Webhook{Endpoint: p.WebhookEndpoint}).CheckSet(); err != nil {
		return err
	}
	now := s.now() // the test event's delivery starts here, not from the relay
	ev, err := db.EventRecord(r.Context(), s.Pool, p.ID, events.Test, map[string]any{}, &now)
	if err != nil {
		return err
	}
	out, err := s.start.WebhookTest(r.Context(), ids.Format(ids.Webhook, ev.ID), p.ID, events.Test)
	if err != nil {
		return err
	}
	if out.StatusCode == 0 {
		return events.TestNotDelivered(p.WebhookEndpoint, out.Error)
	}
	writeJSON(w, http.StatusOK, view.TestWebhookResult{URL: out.URL, ResponseStatus: out.StatusCode, ResponseBody: out.Body})
	return nil
}

// listWebhookEvents is GET /webhooks/events, newest first.
func (s *Server) listWebhookEvents(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, listSpec[db.WebhookEventFilter, db.IDPos, db.WebhookEvent, WebhookEvent]{
		name: "webhook-events", params: []string{"type", "status", "createdAfter", "createdBefore", "limit", "cursor"},
		filter: func(q *query, pid uuid.UUID) db.WebhookEventFilter {
			return db.WebhookEventFilter{PlatformID: pid, Type: q.enum("type", events.Types...),
				Status:       q.enum("status", catalog.Names(catalog.WebhookEventStatuses)...),
				CreatedAfter: q.time("createdAfter"), CreatedBefore: q.time("createdBefore")}
		},
		read: db.WebhookEventPage, pos: idPos(func(e db.WebhookEvent) uuid.UUID { return e.ID }), view: view.WebhookEventOf,
	})
}

var errEventNotFound = errorOf(events.ErrWebhookEventNotFound())

func (s *Server) getWebhookEvent(w http.ResponseWriter, r *http.Request) error {
	return serveOne(w, r, "eventId", ids.Webhook, errEventNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.WebhookEventAttempts, error) {
		return db.WebhookEventAttemptsGet(ctx, s.Pool, pid, id)
	}, func(e db.WebhookEventAttempts) WebhookEvent {
		return view.WebhookEventWithAttempts(e.Event, e.Attempts)
	})
}

// redeliverWebhook delivers an event again (same id, so receivers can de-duplicate) with
// the full retry schedule. The delivery workflow reopens the event to PENDING before its
// first attempt; a delivery of the event that is still trying refuses the start and the
// event stays as it was.
func (s *Server) redeliverWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "eventId", ids.Webhook, errEventNotFound)
	if err != nil {
		return err
	}
	pid := principalFrom(r.Context()).PlatformID
	ev, err := db.WebhookEventForRedelivery(r.Context(), s.Pool, pid, id)
	if err != nil {
		return err
	}
	err = s.start.WebhookRedelivery(r.Context(), ids.Format(ids.Webhook, id), pid, ev.Type, s.webhookRetry(), ev.Status != catalog.WebhookPending, "")
	if errors.Is(err, start.ErrDeliveryRunning) {
		return events.DeliveryInProgress()
	}
	if err != nil {
		return problem.Refuse(catalog.Unavailable, "the delivery could not be started; try again")
	}
	ev.Status = catalog.WebhookPending // what the started delivery makes of it first
	writeJSON(w, http.StatusAccepted, view.WebhookEventOf(ev))
	return nil
}

func (s *Server) getSigningKey(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, view.SigningKeyOf(s.Signer.PublicKeyPEM()))
	return nil
}

// secretGrace is how long a rotated-out secret keeps signing beside the new one.
const secretGrace = 24 * time.Hour

func (s *Server) getWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	rows, err := db.WebhookSecretListActive(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID, s.now())
	if err != nil {
		return fmt.Errorf("load webhook secrets: %w", err)
	}
	return s.writeSecret(w, rows)
}

func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	rows, err := db.WebhookSecretRotate(r.Context(), s.Pool, s.Box, principalFrom(r.Context()).PlatformID, secretGrace, s.now())
	if err != nil {
		return err
	}
	return s.writeSecret(w, rows)
}

// writeSecret renders the platform's active secrets.
func (s *Server) writeSecret(w http.ResponseWriter, active []db.WebhookSecret) error {
	out, err := view.WebhookSecretOf(s.Box, active)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
