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
	)
}
