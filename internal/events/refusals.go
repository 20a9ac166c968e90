package events

import (
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
