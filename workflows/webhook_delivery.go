package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/catalog"
)

// WebhookRetry is the delivery schedule: exponential backoff from Initial, each wait capped
// at MaxInterval, giving up MaxAge after the first attempt.
type WebhookRetry struct {
	Initial     time.Duration
	MaxInterval time.Duration
	MaxAge      time.Duration
}

// WebhookDeliveryInput starts the delivery of one recorded event.
type WebhookDeliveryInput struct {
	EventID string // "Webhook:<uuid>"
	// Once makes a single attempt and returns its outcome instead of retrying (TEST sends).
	Once  bool
	Retry WebhookRetry
	// Redeliver reopens the (closed) event to PENDING before the first attempt: POST
	// .../redeliver. The reopening is done here rather than by the API so that it comes
	// after every earlier delivery run of the event has closed.
	Redeliver bool
	// Operator is who asked for the redelivery when an operator did (paycore webhooks
	// redeliver); empty for a platform's request.
	Operator string `json:",omitempty"`
}

// WebhookDeliveryResult is what the last attempt saw.
type WebhookDeliveryResult struct {
	URL        string `json:"url"`
	StatusCode int    `json:"statusCode"`
	Body       string `json:"body"`
	Error      string `json:"error,omitempty"`
	Delivered  bool   `json:"delivered"`
}

// WebhookDelivery delivers one event to its platform's webhook endpoint. Every attempt is
// recorded by the activity; retries are scheduled by the Temporal server, so they survive
// restarts of every process. The event ends DELIVERED (2xx, or 409 duplicate), UNDELIVERABLE
// (410 disables the endpoint; no endpoint configured) or FAILED (retries exhausted).
func WebhookDelivery(ctx workflow.Context, in WebhookDeliveryInput) (WebhookDeliveryResult, error) {
	var a *activities.Activities
	var maxAttempts int32
	if in.Once {
		maxAttempts = 1
	}
	callCtx := OutboundCall(ctx, in.Retry.Initial, in.Retry.MaxInterval, in.Retry.MaxAge, maxAttempts,
		activities.ErrEndpointGone, activities.ErrNoEndpoint, activities.ErrEventClosed)
	if in.Redeliver {
		if err := workflow.ExecuteActivity(DatabaseStep(ctx), a.ReopenWebhookEvent, in.EventID).Get(ctx, nil); err != nil {
			return WebhookDeliveryResult{}, err
		}
	}
	var out activities.DeliveryOutcome
	err := workflow.ExecuteActivity(callCtx, a.DeliverWebhook, activities.DeliverInput{EventID: in.EventID, Once: in.Once}).Get(ctx, &out)
	res := WebhookDeliveryResult{URL: out.URL, StatusCode: out.StatusCode, Body: out.Body, Error: out.Error, Delivered: out.Delivered}
	if err == nil {
		return res, nil
	}
	final := catalog.WebhookFailed
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		switch appErr.Type() {
		case activities.ErrEndpointGone, activities.ErrNoEndpoint:
			final = catalog.WebhookUndeliverable
		case activities.ErrEventClosed:
			return res, nil
		}
	}
	if ferr := workflow.ExecuteActivity(DatabaseStep(ctx), a.MarkWebhookFinal, in.EventID, final).Get(ctx, nil); ferr != nil {
		return res, ferr
	}
	if res.Error == "" {
		res.Error = err.Error()
	}
	return res, nil
}
