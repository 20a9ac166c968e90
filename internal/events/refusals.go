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
