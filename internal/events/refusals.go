package events

import (
	"time"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// ErrWebhookEventNotFound is the refusal of an unknown (or another platform's) webhook
// event.
func ErrWebhookEventNotFound() error {
	return problem.NotFound(catalog.WebhookEventNotFound, "webhook event")
}

// TestNotDelivered is the refusal of a test webhook the platform's endpoint (url) did not
// answer, failure saying why ("" for no response): 400 WEBHOOK_DELIVERY_ERROR naming url.
func TestNotDelivered(url, failure string) error {
	if failure == "" {
		failure = "no response"
	}
	return problem.Refuse(catalog.WebhookDeliveryError, "test webhook could not be delivered: %s", failure).
		With(map[string]any{"url": url})
}

// DeliveryInProgress is the refusal of a redelivery of an event a delivery of which is
// still trying: 409 WEBHOOK_DELIVERY_IN_PROGRESS.
func DeliveryInProgress() error {
	return problem.Refuse(catalog.WebhookDeliveryInProgress, "a delivery of this event is still in progress")
}

// StreamsPerPlatform is how many event streams (GET /webhooks/events/stream) one API process
// serves to one platform at a time: a developer's listener or two, not a delivery channel.
const StreamsPerPlatform = 5

// TooManyStreams is the refusal of an event stream beyond StreamsPerPlatform: 429
// RATE_LIMITED, to retry after a few seconds.
func TooManyStreams() error {
	return problem.RateLimited(5*time.Second, "too many event streams open for this platform (at most %d); close one and retry", StreamsPerPlatform)
}
