// Package start is the client side of the workflows: the one place that knows how each
// workflow is started (id, reuse policy, search attributes), used by the API and the worker.
package start

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"paycore/internal/ids"
	"paycore/workflows"
)

// Starter starts workflows on one task queue (workflows.TaskQueue unless configured
// otherwise, e.g. to isolate test stacks sharing a Temporal server).
type Starter struct {
	Client    client.Client
	TaskQueue string
}

func (s Starter) queue() string {
	if s.TaskQueue == "" {
		return workflows.TaskQueue
	}
	return s.TaskQueue
}

// WebhookDelivery starts the delivery workflow of an event. A delivery that already ran (or
// runs) under the same workflow id is not started again unless redeliver is set, in which
// case a closed delivery may run anew.
func (s Starter) WebhookDelivery(ctx context.Context, eventID string, platformID uuid.UUID, eventType string, retry workflows.WebhookRetry, redeliver bool) error {
	opts := client.StartWorkflowOptions{
		ID:                    workflows.WebhookDeliveryWorkflowID(eventID),
		TaskQueue:             s.queue(),
		WorkflowIDReusePolicy: enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		EnableEagerStart:      true,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			workflows.AttrPlatformID.ValueSet(ids.Format(ids.Platform, platformID)),
			workflows.AttrWebhookEventType.ValueSet(eventType),
		),
	}
	if redeliver {
		opts.WorkflowIDReusePolicy = enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	}
	_, err := s.Client.ExecuteWorkflow(ctx, opts, workflows.WebhookDelivery, workflows.WebhookDeliveryInput{EventID: eventID, Retry: retry})
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	switch {
	case errors.As(err, &already) && redeliver:
		return ErrDeliveryRunning
	case errors.As(err, &already):
		return nil
	case err != nil:
		return fmt.Errorf("start delivery of %s: %w", eventID, err)
	}
	return nil
}

// ErrDeliveryRunning is returned by WebhookTest and redelivery when a delivery of the same
// event is still in progress.
var ErrDeliveryRunning = errors.New("a delivery of this event is in progress")

// WebhookTest delivers an event once, synchronously, and returns what the receiver said.
func (s Starter) WebhookTest(ctx context.Context, eventID string, platformID uuid.UUID, eventType string) (workflows.WebhookDeliveryResult, error) {
	opts := client.StartWorkflowOptions{
		ID:                    workflows.WebhookDeliveryWorkflowID(eventID),
		TaskQueue:             s.queue(),
		WorkflowIDReusePolicy: enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		EnableEagerStart:      true,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			workflows.AttrPlatformID.ValueSet(ids.Format(ids.Platform, platformID)),
			workflows.AttrWebhookEventType.ValueSet(eventType),
		),
	}
	run, err := s.Client.ExecuteWorkflow(ctx, opts, workflows.WebhookDelivery, workflows.WebhookDeliveryInput{EventID: eventID, Once: true})
	if err != nil {
		return workflows.WebhookDeliveryResult{}, fmt.Errorf("start test delivery: %w", err)
	}
	var out workflows.WebhookDeliveryResult
	if err := run.Get(ctx, &out); err != nil {
		return out, fmt.Errorf("test delivery: %w", err)
	}
	return out, nil
}
