// Package start is the client side of the workflows: the one place that knows how each
// workflow is started (id, reuse policy, search attributes), used by the API and the worker.
package start

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"paycore/internal/ids"
	"paycore/internal/transfer"
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

// ErrTransferExists reports that the workflow of this transaction already ran to its end
// (a replayed request): the transaction is read from the database instead.
var ErrTransferExists = errors.New("the transfer already exists")

// Transfer starts (or joins) the workflow of a transfer with Update-with-Start and waits
// for its "create" update: when it returns nil the transaction is persisted. A business
// refusal comes back as a *temporal.ApplicationError whose type is one of the transfer
// package's error types. On success it returns the Transaction resource (JSON) as created.
func (s Starter) Transfer(ctx context.Context, req transfer.Request) (json.RawMessage, error) {
	attrs := []temporal.SearchAttributeUpdate{
		workflows.AttrPlatformID.ValueSet(ids.Format(ids.Platform, uuid.MustParse(req.PlatformID))),
		workflows.AttrTransactionID.ValueSet(ids.Format(ids.Transaction, uuid.MustParse(req.TransactionID))),
		workflows.AttrTransactionStatus.ValueSet("PENDING"),
	}
	if req.CustomerID != "" {
		attrs = append(attrs, workflows.AttrCustomerID.ValueSet(ids.Format(ids.Customer, uuid.MustParse(req.CustomerID))))
	}
	op := s.Client.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       workflows.TransferWorkflowID(req.Kind, req.TransactionID),
		TaskQueue:                s.queue(),
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes:    temporal.NewSearchAttributes(attrs...),
	}, workflows.Transfer, req)
	h, err := s.Client.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: op,
		UpdateOptions:          client.UpdateWorkflowOptions{UpdateName: workflows.UpdateCreateTransfer, WaitForStage: client.WorkflowUpdateStageCompleted},
	})
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		return nil, ErrTransferExists
	}
	if err != nil {
		return nil, fmt.Errorf("start transfer: %w", err)
	}
	var out json.RawMessage
	err = h.Get(ctx, &out)
	return out, err
}
