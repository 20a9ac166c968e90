package worker

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/internal/bulkimport"
	"paycore/internal/ids"
	"paycore/workflows"
	"paycore/workflows/start"
)

// BulkImportStarter starts the workflows of bulk import jobs that still wait for their
// first batch a while after their upload, and resumes jobs under way whose workflow ended
// without finishing them: the API starts a job's workflow right after the
// upload commits, and when that start failed (Temporal unreachable, the API process gone)
// the job would otherwise wait for ever. Starting a job whose workflow runs or ran starts
// nothing (the workflow id derives from the job's).
type BulkImportStarter struct {
	Pool    *pgxpool.Pool
	Starter start.Starter
	Logger  *slog.Logger
	// BatchSize and BatchesPerRun are the workflow's (PAYCORE_BULK_IMPORT_BATCH_SIZE,
	// PAYCORE_BULK_IMPORT_BATCHES_PER_RUN).
	BatchSize, BatchesPerRun int
	// Interval is how often jobs are looked at (default 30 s); MinAge how old a pending
	// job must be (default 1 minute), so a start the API is making is not raced; StallAge
	// how long a job under way may go without progress before its workflow is resumed
	// (default 10 minutes; a workflow still running is left alone).
	Interval, MinAge, StallAge time.Duration
}

// Run starts stranded jobs until ctx ends.
func (b *BulkImportStarter) Run(ctx context.Context) {
	if b.Interval <= 0 {
		b.Interval = 30 * time.Second
	}
	if b.MinAge <= 0 {
		b.MinAge = time.Minute
	}
	if b.StallAge <= 0 {
		b.StallAge = 10 * time.Minute
	}
	t := time.NewTicker(b.Interval)
	defer t.Stop()
	for {
		if _, err := b.StartPending(ctx, time.Now().Add(-b.MinAge)); err != nil && ctx.Err() == nil {
			b.Logger.Warn("bulk imports: start pending jobs", "error", err)
		}
		if _, err := b.ResumeStalled(ctx, time.Now().Add(-b.StallAge)); err != nil && ctx.Err() == nil {
			b.Logger.Warn("bulk imports: resume stalled jobs", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// StartPending starts the workflow of every job created before a moment that waits for
// its first batch, and returns how many it started (or found running).
func (b *BulkImportStarter) StartPending(ctx context.Context, before time.Time) (int, error) {
	jobs, err := db.BulkImportPending(ctx, b.Pool, before, 100)
	if err != nil {
		return 0, err
	}
	for i, j := range jobs {
		in := workflows.BulkImportInput{JobID: j.ID, PlatformID: j.PlatformID, After: bulkimport.FirstRow - 1,
			BatchSize: b.BatchSize, BatchesPerRun: b.BatchesPerRun}
		if err := b.Starter.BulkImport(ctx, in); err != nil {
			return i, err
		}
		b.Logger.Debug("bulk imports: started a pending job", "job", ids.Format(ids.Job, j.ID))
	}
	return len(jobs), nil
}

// ResumeStalled starts a new workflow run, from the job's cursor, for every job under way
// whose progress has not moved since before and whose workflow no longer runs (it was
// terminated, or failed); a job whose workflow still runs is left to it. It returns how
// many jobs it looked at.
func (b *BulkImportStarter) ResumeStalled(ctx context.Context, before time.Time) (int, error) {
	jobs, err := db.BulkImportStalled(ctx, b.Pool, before, 100)
	if err != nil {
		return 0, err
	}
	for i, j := range jobs {
		in := workflows.BulkImportInput{JobID: j.ID, PlatformID: j.PlatformID, After: int(j.LastRow),
			BatchSize: b.BatchSize, BatchesPerRun: b.BatchesPerRun}
		if err := b.Starter.BulkImportResume(ctx, in); err != nil {
			return i, err
		}
	}
	return len(jobs), nil
}
