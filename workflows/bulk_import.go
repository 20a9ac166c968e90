package workflows

import (
	"github.com/google/uuid"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/ids"
)

// BulkImportInput is the input of a bulk import job's workflow, and of each run it
// continues as.
type BulkImportInput struct {
	JobID      uuid.UUID `json:"jobId"`
	PlatformID uuid.UUID `json:"platformId"`
	// After is the job's cursor when the run starts: the last row done (1, the header, for
	// a new job).
	After int `json:"after"`
	// BatchSize is how many rows one batch imports; a run imports BatchesPerRun batches,
	// then the workflow continues as new.
	BatchSize     int `json:"batchSize"`
	BatchesPerRun int `json:"batchesPerRun"`
}

// BulkImportWorkflowID is the id of a bulk import job's workflow: one per job.
func BulkImportWorkflowID(jobID uuid.UUID) string {
	return "bulk-import/" + ids.Format(ids.Job, jobID)
}

// BulkImport imports the staged rows of a bulk customer import job. Each run is one step:
// a local activity importing up to BatchesPerRun batches one after the other, each
// committing in one database transaction the batch's customers, its refused rows and the
// job's progress and cursor (the last batch also ends the job and records its webhook
// event); then the run continues as new with the cursor, so a long job's history stays
// small. The cursor each batch starts from guards it: a step run again after batches of it
// committed (a worker that died before the result was recorded) changes nothing and answers
// where the job stands, and the workflow carries on from there.
//
// A run that began before steps (versionBulkSteps) goes on one batch per local activity.
func BulkImport(ctx workflow.Context, in BulkImportInput) error {
	var a *activities.Activities
	steps, batches := 1, max(in.BatchesPerRun, 1)
	if workflow.GetVersion(ctx, versionBulkSteps, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		steps, batches = max(in.BatchesPerRun, 1), 1
	}
	for range steps {
		p, err := result[activities.BulkProgress](ctx, workflow.ExecuteLocalActivity(BatchStep(ctx), a.ImportBulkBatch,
			activities.BulkBatch{JobID: in.JobID, After: in.After, Size: in.BatchSize, Batches: batches}))
		if err != nil {
			return err
		}
		if p.Done {
			return nil
		}
		in.After = p.LastRow
	}
	return workflow.NewContinueAsNewError(ctx, BulkImport, in)
}

// versionBulkSteps gates a run's one step of BatchesPerRun pipelined batches, instead of
// a local activity per batch.
const versionBulkSteps = "bulk-import-steps"
