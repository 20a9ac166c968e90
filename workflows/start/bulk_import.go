package start

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"paycore/internal/ids"
	"paycore/workflows"
)

// BulkImport starts the workflow of a bulk import job whose rows are staged. Its id
// derives from the job's, so a job never has two workflows: a start of a job whose
// workflow runs or ran is no error and starts nothing.
func (s Starter) BulkImport(ctx context.Context, in workflows.BulkImportInput) error {
	return s.bulkImport(ctx, in, enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
}

// BulkImportResume starts a new run of the workflow of a job under way whose workflow
// ended without finishing it (terminated by an operator, or failed), from the cursor in
// in.After. A workflow of the job still running is no error and starts nothing.
func (s Starter) BulkImportResume(ctx context.Context, in workflows.BulkImportInput) error {
	return s.bulkImport(ctx, in, enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
}

func (s Starter) bulkImport(ctx context.Context, in workflows.BulkImportInput, reuse enums.WorkflowIdReusePolicy) error {
	_, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    workflows.BulkImportWorkflowID(in.JobID),
		TaskQueue:             s.queue(),
		WorkflowIDReusePolicy: reuse,
		TypedSearchAttributes: temporal.NewSearchAttributes(workflows.AttrPlatformID.ValueSet(ids.Format(ids.Platform, in.PlatformID))),
	}, workflows.BulkImport, in)
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if err != nil && !errors.As(err, &already) {
		return fmt.Errorf("start %s: %w", workflows.BulkImportWorkflowID(in.JobID), err)
	}
	return nil
}
