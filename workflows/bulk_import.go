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
	// BatchSize is how many rows one batch imports; after BatchesPerRun batches the
	// workflow continues as new, so a long job's history stays small.
	BatchSize     int `json:"batchSize"`
	BatchesPerRun int `json:"batchesPerRun"`
}

// BulkImportWorkflowID is the id of a bulk import job's workflow: one per job.
func BulkImportWorkflowID(jobID uuid.UUID) string {
	return "bulk-import/" + ids.Format(ids.Job, jobID)
}

// BulkImport imports the staged rows of a bulk customer import job, one batch after the
// other, each a local activity committing in one database transaction the batch's
// customers, its refused rows and the job's progress and cursor (the last batch also ends
// the job and records its webhook event). The cursor each batch starts from guards it: a
// batch run again after it committed (a worker that died before the result was recorded)
// changes nothing and answers where the job stands, and the workflow carries on from
// there. After BatchesPerRun batches it continues as new with the cursor.
func BulkImport(ctx workflow.Context, in BulkImportInput) error {
	var a *activities.Activities
	step := BatchStep(ctx)
	for range max(in.BatchesPerRun, 1) {
		p, err := result[activities.BulkProgress](ctx, workflow.ExecuteLocalActivity(step, a.ImportBulkBatch,
			activities.BulkBatch{JobID: in.JobID, After: in.After, Size: in.BatchSize}))
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
