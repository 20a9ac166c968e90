package db

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/bulkimport"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/kit/sealbox"
)

// BulkImportRows are the customer rows of an upload, read one at a time: Next returns the
// next record's fields, and io.EOF after the last.
type BulkImportRows interface {
	Next() ([]string, error)
}

// BulkImportCreate stages an upload of a platform in one transaction: the job (PENDING)
// with the file's checked header, every row streamed into bulk_import_rows with COPY as it
// is read (the file is never held in memory), and the job's total. A file without rows or
// with more than bulkimport.MaxRows is refused. An error from rows (a malformed file, a
// body over its limit) is returned as it is. Either way nothing is written.
func BulkImportCreate(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID, header bulkimport.Header, rows BulkImportRows) (BulkImportJob, error) {
	var job BulkImportJob
	err := withTx(ctx, pool, func(q *queries, tx pgx.Tx) error {
		var err error
		if job, err = q.BulkImportJobCreate(ctx, BulkImportJobCreateParams{ID: ids.New(), PlatformID: platformID, Columns: header}); err != nil {
			return fmt.Errorf("create bulk import job: %w", err)
		}
		src := &copyRows{jobID: job.ID, rows: rows}
		n, err := tx.CopyFrom(ctx, pgx.Identifier{"bulk_import_rows"}, []string{"job_id", "row_number", "fields"}, src)
		if src.err != nil {
			return src.err
		}
		if err != nil {
			return fmt.Errorf("stage bulk import rows: %w", err)
		}
		if err := bulkimport.CheckCount(int(n)); err != nil {
			return err
		}
		if job, err = q.BulkImportJobSetTotal(ctx, BulkImportJobSetTotalParams{ID: job.ID, Total: int32(n)}); err != nil {
			return fmt.Errorf("set bulk import total: %w", err)
		}
		return nil
	})
	return job, err
}

// copyRows feeds COPY from an upload's rows, numbering them from bulkimport.FirstRow.
type copyRows struct {
	jobID  uuid.UUID
	rows   BulkImportRows
	n      int
	fields []string
	err    error
}

func (c *copyRows) Next() bool {
	f, err := c.rows.Next()
	switch {
	case errors.Is(err, io.EOF):
		return false
	case err != nil:
		c.err = err
		return false
	case c.n == bulkimport.MaxRows:
		c.err = bulkimport.CheckCount(c.n + 1)
		return false
	}
	c.n++
	c.fields = f
	return true
}

func (c *copyRows) Values() ([]any, error) {
	return []any{c.jobID, int32(bulkimport.FirstRow + c.n - 1), c.fields}, nil
}

func (c *copyRows) Err() error { return c.err }

// BulkImportReport is a job as the API shows it: the job and the rows it refused (up to
// bulkimport.MaxErrors, by row number).
type BulkImportReport struct {
	Job    BulkImportJob
	Errors []BulkImportError
}

// BulkImportReportGet reads a job of a platform with its errors; another platform's job
// is pgx.ErrNoRows.
func BulkImportReportGet(ctx context.Context, d DBTX, platformID, id uuid.UUID) (BulkImportReport, error) {
	q := newQueries(d)
	job, err := q.BulkImportJobGet(ctx, BulkImportJobGetParams{PlatformID: platformID, ID: id})
	if err != nil {
		return BulkImportReport{}, err
	}
	errs, err := q.BulkImportErrorList(ctx, id)
	if err != nil {
		return BulkImportReport{}, fmt.Errorf("read bulk import errors: %w", err)
	}
	return BulkImportReport{Job: job, Errors: errs}, nil
}

// BulkImportBatchParams describe a step of a job: its next batches.
type BulkImportBatchParams struct {
	JobID uuid.UUID
	// After is the cursor the step starts from: the last row done.
	After int
	// Size is how many rows a batch imports at most.
	Size int
	// Batches is how many batches the step imports at most, one after the other (0: one).
	Batches int
	// Render is the resource the job's final webhook event carries (its
	// BulkCustomerImportJob).
	Render func(BulkImportReport) any
}

// BulkImportBatch imports the next batches of a job, each in one transaction under the
// job's row lock: each row goes through the customer rules (bulkimport.Reader.Decide,
// which is customer.Create with the platform's settings), and the customers of the rows
// that pass are opened together by the operation POST /customers opens one with
// (customersPrepare, then customersPrepared.open, with the batch), each with its accounts;
// a row is refused for an invalid field or for a platformCustomerId or umaAddress already
// taken — by an existing customer or an earlier row of the file, in this batch or an
// earlier one — exactly as when the rows were opened one at a time. The refused rows are
// recorded in one statement, the job's counts and cursor advance, the staged rows are
// deleted, and after the last row the job ends (bulkimport.Outcome) with its
// BULK_UPLOAD_COMPLETED or BULK_UPLOAD_FAILED event. A batch costs a fixed number of
// statements whatever its size.
//
// The batches are pipelined: while one batch's transaction runs, the next is read,
// decided and prepared (bulkImportPrepare writes nothing but draws account numbers), so
// the service's work and the database's overlap. The transactions still commit one after
// the other, in the file's order.
//
// A batch whose cursor is not the job's (a step run again after it committed) or of an
// ended job changes nothing, and the step returns the job as it is: the caller carries on
// from its cursor. A customer's id derives from the job and the row
// (bulkimport.CustomerID), so no row can make two customers in any case.
func BulkImportBatch(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, p BulkImportBatchParams, now time.Time) (BulkImportJob, error) {
	job, err := newQueries(pool).BulkImportJobRead(ctx, p.JobID)
	if err != nil {
		return job, fmt.Errorf("read bulk import job %s: %w", p.JobID, err)
	}
	if BulkImportEnded(job) || int(job.LastRow) != p.After {
		return job, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	remaining := int(job.Total - job.Processed)
	next := bulkImportPrepareAsync(ctx, pool, box, job, job.LastRow, p.Size)
	defer func() {
		if next != nil {
			cancel()
			<-next // the preparation under way ends before the step returns
		}
	}()
	for i := range max(p.Batches, 1) {
		b := <-next
		next = nil
		if b.err != nil {
			return job, b.err
		}
		if remaining -= len(b.rows); remaining > 0 && i+1 < max(p.Batches, 1) {
			next = bulkImportPrepareAsync(ctx, pool, box, job, b.lastRow(), p.Size)
		}
		out, err := bulkImportCommit(ctx, pool, b, p.Render, now)
		if err != nil {
			return job, err
		}
		if job = out; BulkImportEnded(job) || job.LastRow != b.lastRow() {
			return job, nil
		}
	}
	return job, nil
}

// BulkImportEnded reports whether a job is COMPLETED or FAILED.
func BulkImportEnded(job BulkImportJob) bool {
	return job.Status == catalog.BulkCompleted || job.Status == catalog.BulkFailed
}

// bulkImportPrepared is a batch of a job read and made ready to import, all but its
// writes.
type bulkImportPrepared struct {
	job    BulkImportJob // as it stood when the step began: its id, platform and columns
	after  int32         // the cursor the batch starts from
	rows   []BulkImportRowsNextRow
	reader *bulkimport.Reader
	// refusals holds each row's refusal by the customer rules, nil for a row that passed.
	refusals []error
	// customers are the customers of the rows that passed, in order; from is the row of
	// each.
	customers customersPrepared
	from      []int
	err       error
}

// lastRow is the number of the batch's last row: the job's cursor once it is imported.
func (b bulkImportPrepared) lastRow() int32 { return b.rows[len(b.rows)-1].RowNumber }

// bulkImportPrepareAsync runs bulkImportPrepare on its own goroutine; the channel yields
// its outcome.
func bulkImportPrepareAsync(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, job BulkImportJob, after int32, size int) chan bulkImportPrepared {
	c := make(chan bulkImportPrepared, 1)
	go func() { c <- bulkImportPrepare(ctx, pool, box, job, after, size) }()
	return c
}

// bulkImportPrepare reads up to size staged rows of job after row after, puts each
// through the customer rules with the platform's settings, and prepares the customers of
// those that pass (customersPrepare). The staged rows of a cursor do not change until the
// batch that imports them deletes them, so no lock is needed: the transaction that
// imports the batch checks the job's cursor is still after.
func bulkImportPrepare(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, job BulkImportJob, after int32, size int) bulkImportPrepared {
	b := bulkImportPrepared{job: job, after: after, reader: bulkimport.NewReader(job.Columns)}
	q := newQueries(pool)
	settings, err := platformSettingsGet(ctx, q, job.PlatformID)
	if err != nil {
		b.err = err
		return b
	}
	if b.rows, err = q.BulkImportRowsNext(ctx, BulkImportRowsNextParams{JobID: job.ID, RowNumber: after, Limit: int32(size)}); err != nil {
		b.err = fmt.Errorf("read staged rows: %w", err)
		return b
	}
	if len(b.rows) == 0 {
		b.err = fmt.Errorf("bulk import job %s: no staged rows after row %d", job.ID, after)
		return b
	}
	b.refusals = make([]error, len(b.rows))
	batch := make([]customer.New, 0, len(b.rows))
	for i, staged := range b.rows {
		n, err := b.reader.Decide(job.ID, settings, bulkimport.Row{Number: int(staged.RowNumber), Fields: staged.Fields})
		if err != nil {
			b.refusals[i] = err
			continue
		}
		batch, b.from = append(batch, n), append(b.from, i)
	}
	if b.customers, err = customersPrepare(ctx, q, box, batch); err != nil {
		b.err = err
	}
	return b
}

// bulkImportCommit imports a prepared batch in one transaction, under the job's row lock;
// a batch whose cursor is no longer the job's, or of an ended job, changes nothing.
func bulkImportCommit(ctx context.Context, pool *pgxpool.Pool, b bulkImportPrepared, render func(BulkImportReport) any, now time.Time) (BulkImportJob, error) {
	var out BulkImportJob
	err := withTx(ctx, pool, func(q *queries, tx pgx.Tx) error {
		job, err := q.BulkImportJobLock(ctx, b.job.ID)
		if err != nil {
			return fmt.Errorf("lock bulk import job %s: %w", b.job.ID, err)
		}
		if BulkImportEnded(job) || job.LastRow != b.after {
			out = job
			return nil
		}
		out, err = bulkImportBatch(ctx, tx, job, b, render, now)
		return err
	})
	return out, err
}

func bulkImportBatch(ctx context.Context, tx pgx.Tx, job BulkImportJob, b bulkImportPrepared, render func(BulkImportReport) any, now time.Time) (BulkImportJob, error) {
	q := newQueries(tx)
	rows, r, refusals := b.rows, b.reader, slices.Clone(b.refusals) // the prepared batch stays as it was
	verdicts, err := b.customers.open(ctx, tx, job.PlatformID)
	if err != nil {
		return job, err
	}
	for k, v := range verdicts {
		if c := v.Clash; c != nil {
			refusals[b.from[k]] = bulkimport.Taken(job.ID, job.PlatformID, *c)
		}
	}
	stored := min(int(job.Failed), bulkimport.MaxErrors)
	var successful, failed int32
	var errs BulkImportErrorsCreateParams
	for i, staged := range rows {
		if refusals[i] == nil {
			successful++
			continue
		}
		row := bulkimport.Row{Number: int(staged.RowNumber), Fields: staged.Fields}
		e, refused := r.EntryOf(row, refusals[i])
		if !refused {
			return job, fmt.Errorf("row %d: %w", row.Number, refusals[i])
		}
		failed++
		if stored < bulkimport.MaxErrors {
			stored++
			errs.RowNumbers, errs.Codes = append(errs.RowNumbers, int32(e.Row)), append(errs.Codes, string(e.Code))
			errs.Messages, errs.Fields = append(errs.Messages, e.Message), append(errs.Fields, e.Field)
			errs.CorrelationIds = append(errs.CorrelationIds, e.CorrelationID)
		}
	}
	if len(errs.RowNumbers) > 0 {
		errs.JobID = job.ID
		if err := q.BulkImportErrorsCreate(ctx, errs); err != nil {
			return job, fmt.Errorf("record the refused rows: %w", err)
		}
	}
	last := rows[len(rows)-1].RowNumber
	if err := q.BulkImportRowsDelete(ctx, BulkImportRowsDeleteParams{JobID: job.ID, RowNumber: last}); err != nil {
		return job, fmt.Errorf("delete staged rows: %w", err)
	}
	adv := BulkImportJobAdvanceParams{ID: job.ID, ExpectedLastRow: job.LastRow, LastRow: last, Successful: successful, Failed: failed,
		Status: catalog.BulkProcessing}
	done := job.Processed+successful+failed == job.Total
	if done {
		adv.Status, adv.CompletedAt = bulkimport.Outcome(int(job.Successful+successful)), &now
	}
	out, err := q.BulkImportJobAdvance(ctx, adv)
	if err != nil {
		return job, fmt.Errorf("advance bulk import job: %w", err)
	}
	if !done {
		return out, nil
	}
	report, err := q.BulkImportErrorList(ctx, job.ID)
	if err != nil {
		return job, fmt.Errorf("read bulk import errors: %w", err)
	}
	typ := events.BulkUploadCompleted
	if out.Status == catalog.BulkFailed {
		typ = events.BulkUploadFailed
	}
	if _, err := eventRecord(ctx, q, job.PlatformID, typ, render(BulkImportReport{Job: out, Errors: report}), nil); err != nil {
		return job, err
	}
	return out, nil
}

// BulkImportPending lists up to limit jobs created before a moment that still wait for
// their first batch.
func BulkImportPending(ctx context.Context, d DBTX, before time.Time, limit int) ([]BulkImportJobsPendingRow, error) {
	q := newQueries(d)
	rows, err := q.BulkImportJobsPending(ctx, BulkImportJobsPendingParams{CreatedAt: before, Limit: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("list pending bulk import jobs: %w", err)
	}
	return rows, nil
}

// BulkImportStalled lists up to limit jobs under way whose progress has not moved since
// before.
func BulkImportStalled(ctx context.Context, d DBTX, before time.Time, limit int) ([]BulkImportJobsStalledRow, error) {
	q := newQueries(d)
	rows, err := q.BulkImportJobsStalled(ctx, BulkImportJobsStalledParams{UpdatedAt: before, Limit: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("list stalled bulk import jobs: %w", err)
	}
	return rows, nil
}
