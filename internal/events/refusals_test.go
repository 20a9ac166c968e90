package events

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The refusals are answered byte for byte as before they moved here.
func TestRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "ErrWebhookEventNotFound", Err: ErrWebhookEventNotFound(), Want: problem.Wire{Code: catalog.WebhookEventNotFound, Message: "webhook event not found"}},
		problemtest.Case{Name: "TestNotDelivered", Err: TestNotDelivered("https://hooks.example/in", "connection refused"), Want: problem.Wire{Code: catalog.WebhookDeliveryError,
			Message: "test webhook could not be delivered: connection refused", Details: map[string]any{"url": "https://hooks.example/in"}}},
		problemtest.Case{Name: "TestNotDelivered without an answer", Err: TestNotDelivered("https://hooks.example/in", ""), Want: problem.Wire{Code: catalog.WebhookDeliveryError,
			Message: "test webhook could not be delivered: no response", Details: map[string]any{"url": "https://hooks.example/in"}}},
		problemtest.Case{Name: "DeliveryInProgress", Err: DeliveryInProgress(), Want: problem.Wire{Code: catalog.WebhookDeliveryInProgress,
			Message: "a delivery of this event is still in progress"}},
	)
}
