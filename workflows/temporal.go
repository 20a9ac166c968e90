// Package workflows holds the deterministic workflow code and the Temporal conventions every
// workflow follows: one task queue, workflow ids derived from resource ids, Keyword search
// attributes, and activity option presets.
package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// TaskQueue is the one task queue every workflow and activity runs on.
const TaskQueue = "paycore"

// Search attributes (all Keyword) let operators find executions in the Temporal UI, e.g.
// TransactionStatus="PROCESSING" or PlatformId="…".
var (
	AttrPlatformID        = temporal.NewSearchAttributeKeyKeyword("PlatformId")
	AttrCustomerID        = temporal.NewSearchAttributeKeyKeyword("CustomerId")
	AttrTransactionID     = temporal.NewSearchAttributeKeyKeyword("TransactionId")
	AttrTransactionStatus = temporal.NewSearchAttributeKeyKeyword("TransactionStatus")
	AttrWebhookEventType  = temporal.NewSearchAttributeKeyKeyword("WebhookEventType")
	AttrQuoteID           = temporal.NewSearchAttributeKeyKeyword("QuoteId")
	// AttrPaymentHash is the payment hash of a payment a Lightning rail paid (hex), set
	// once its rail answered.
	AttrPaymentHash = temporal.NewSearchAttributeKeyKeyword("PaymentHash")
)

// SearchAttributeNames lists the Keyword attributes the Temporal namespace must register.
var SearchAttributeNames = []string{
	AttrPlatformID.GetName(), AttrCustomerID.GetName(), AttrTransactionID.GetName(),
	AttrTransactionStatus.GetName(), AttrWebhookEventType.GetName(), AttrQuoteID.GetName(), AttrPaymentHash.GetName(),
}

// WebhookDeliveryWorkflowID is the id of the delivery workflow of one webhook event
// ("Webhook:<uuid>"), so an event can never have two deliveries running at once.
func WebhookDeliveryWorkflowID(eventID string) string {
	return "webhook-delivery/" + eventID
}

// LocalStep is the preset for the database steps of payments, run as local activities: no
// server round trip each. Transient errors are retried quickly and without end (the steps
// are idempotent); refusals are non-retryable application errors and end at once.
//
// "Without end" needs ScheduleToCloseTimeout: left unset, a local activity's defaults to
// its StartToCloseTimeout, and a step failing for more than 15 s in all (the database
// away) failed its workflow and left its payment unfinished. Only the markers of local
// activities are recorded, so the limit is not part of any history.
func LocalStep(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		ScheduleToCloseTimeout: retryWithoutEnd,
		StartToCloseTimeout:    15 * time.Second,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second},
	})
}

// RailCall is the preset for submitting a payment to its rail: an OutboundCall (a regular
// activity, visible in the UI with its attempts) retried from a second up to a minute
// between attempts, without end.
func RailCall(ctx workflow.Context) workflow.Context {
	return OutboundCall(ctx, time.Second, time.Minute, 0, 0)
}

// CancelCall is the preset for asking a rail to cancel a payment while its platform waits
// for the answer: an OutboundCall retried for up to 30 seconds.
func CancelCall(ctx workflow.Context) workflow.Context {
	return OutboundCall(ctx, time.Second, 10*time.Second, 30*time.Second, 0)
}

// DatabaseStep is the preset for short database activities: quick timeout, fast retries
// that never give up on transient errors (the steps are idempotent).
func DatabaseStep(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    200 * time.Millisecond,
			BackoffCoefficient: 2,
			MaximumInterval:    30 * time.Second,
		},
	})
}

// OutboundCall is the preset for calls to the outside world (webhooks, rails, e-mail):
// a bounded attempt, exponential backoff from initial up to maxInterval, giving up after
// maxAge in total. nonRetryable names application error types that end the retries.
func OutboundCall(ctx workflow.Context, initial, maxInterval, maxAge time.Duration, maxAttempts int32, nonRetryable ...string) workflow.Context {
	opts := workflow.ActivityOptions{
		StartToCloseTimeout: 45 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        initial,
			BackoffCoefficient:     2,
			MaximumInterval:        maxInterval,
			MaximumAttempts:        maxAttempts,
			NonRetryableErrorTypes: nonRetryable,
		},
	}
	if maxAge > 0 {
		opts.ScheduleToCloseTimeout = maxAge
	}
	return workflow.WithActivityOptions(ctx, opts)
}

// retryWithoutEnd is the ScheduleToCloseTimeout of local activities retried without end.
const retryWithoutEnd = 10 * 365 * 24 * time.Hour

// BatchStep is the preset for the steps of bulk work (a bulk import's batches of rows), run
// as local activities: each is a few database transactions over up to a few thousand rows
// each, so it gets longer than a payment's step. Transient errors are retried quickly and
// without end (a batch that committed answers where its job stands); refusals end at once.
func BatchStep(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second},
	})
}
