package activities

import (
	"context"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
)

// BulkBatch is a step of a bulk customer import job: up to Batches batches of up to Size
// rows each, after row After (the job's cursor as the workflow knows it).
type BulkBatch struct {
	JobID   uuid.UUID `json:"jobId"`
	After   int       `json:"after"`
	Size    int       `json:"size"`
	Batches int       `json:"batches,omitempty"` // 0: one
}

// BulkProgress is where a job stands after a batch: its cursor (the last row done) and
// whether it ended.
type BulkProgress struct {
	LastRow int                      `json:"lastRow"`
	Status  catalog.BulkImportStatus `json:"status"`
	Done    bool                     `json:"done"`
}

// ImportBulkBatch imports one batch of a job in one database transaction
// (db.BulkImportBatch): customers, refused rows, counts, cursor and, after the last row,
// the job's end with its webhook event. A batch whose cursor the job has passed (run again
// after it committed) changes nothing and answers where the job stands.
func (a *Activities) ImportBulkBatch(ctx context.Context, b BulkBatch) (BulkProgress, error) {
	job, err := db.BulkImportBatch(ctx, a.pool, a.box, db.BulkImportBatchParams{JobID: b.JobID, After: b.After, Size: b.Size, Batches: b.Batches,
		Render: view.BulkImportRender}, a.now())
	if db.IsNotFound(err) {
		return BulkProgress{}, temporal.NewNonRetryableApplicationError("no such bulk import job", string(catalog.BulkUploadJobNotFound), err)
	}
	if err != nil {
		return BulkProgress{}, err
	}
	return BulkProgress{LastRow: int(job.LastRow), Status: job.Status, Done: db.BulkImportEnded(job)}, nil
}
