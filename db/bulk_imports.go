package db

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/bulkimport"
	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/kit/sealbox"
	"paycore/internal/platformconfig"
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

// BulkImportBatchParams describe one batch of a job.
type BulkImportBatchParams struct {
	JobID uuid.UUID
	// After is the cursor the batch starts from: the last row done.
	After int
	// Size is how many rows the batch imports at most.
	Size int
	// Render is the resource the job's final webhook event carries (its
	// BulkCustomerImportJob).
	Render func(BulkImportReport) any
}

// BulkImportBatch imports the next rows of a job in one transaction, under the job's row
// lock: each row goes through the customer rules (bulkimport.Reader.Decide, which is
// customer.Create with the platform's settings) and becomes a customer with its accounts,
// exactly as POST /customers makes one, or a refused row (an invalid field, a
// platformCustomerId or umaAddress already taken — by an existing customer or an earlier
// row of the file); the job's counts and cursor advance, the staged rows are deleted, and
// after the last row the job ends (bulkimport.Outcome) with its BULK_UPLOAD_COMPLETED or
// BULK_UPLOAD_FAILED event.
//
// A batch whose cursor is not the job's (a batch run again after it committed) or of an
// ended job changes nothing and returns the job as it is: the caller carries on from its
// cursor. A customer's id derives from the job and the row (bulkimport.CustomerID), so no
// row can make two customers in any case.
func BulkImportBatch(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, p BulkImportBatchParams, now time.Time) (BulkImportJob, error) {
	var out BulkImportJob
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		job, err := q.BulkImportJobLock(ctx, p.JobID)
		if err != nil {
			return fmt.Errorf("lock bulk import job %s: %w", p.JobID, err)
		}
		if BulkImportEnded(job) || int(job.LastRow) != p.After {
			out = job
			return nil
		}
		out, err = bulkImportBatch(ctx, q, box, job, p, now)
		return err
	})
	return out, err
}

// BulkImportEnded reports whether a job is COMPLETED or FAILED.
func BulkImportEnded(job BulkImportJob) bool {
	return job.Status == catalog.BulkCompleted || job.Status == catalog.BulkFailed
}

func bulkImportBatch(ctx context.Context, q *queries, box *sealbox.Box, job BulkImportJob, p BulkImportBatchParams, now time.Time) (BulkImportJob, error) {
	settings, err := platformSettingsGet(ctx, q, job.PlatformID)
	if err != nil {
		return job, err
	}
	rows, err := q.BulkImportRowsNext(ctx, BulkImportRowsNextParams{JobID: job.ID, RowNumber: job.LastRow, Limit: int32(p.Size)})
	if err != nil {
		return job, fmt.Errorf("read staged rows: %w", err)
	}
	if len(rows) == 0 {
		return job, fmt.Errorf("bulk import job %s: no staged rows after row %d, %d of %d processed", job.ID, job.LastRow, job.Processed, job.Total)
	}
	r := bulkimport.NewReader(job.Columns)
	stored := min(int(job.Failed), bulkimport.MaxErrors)
	var successful, failed int32
	for _, staged := range rows {
		row := bulkimport.Row{Number: int(staged.RowNumber), Fields: staged.Fields}
		err := bulkImportRow(ctx, q, box, job, settings, r, row)
		if err == nil {
			successful++
			continue
		}
		e, refused := r.EntryOf(row, err)
		if !refused {
			return job, fmt.Errorf("row %d: %w", row.Number, err)
		}
		failed++
		if stored < bulkimport.MaxErrors {
			stored++
			var field *string
			if e.Field != "" {
				field = &e.Field
			}
			if err := q.BulkImportErrorCreate(ctx, BulkImportErrorCreateParams{JobID: job.ID, RowNumber: int32(e.Row), Code: string(e.Code),
				Message: e.Message, Field: field, CorrelationID: e.CorrelationID}); err != nil {
				return job, fmt.Errorf("record the error of row %d: %w", row.Number, err)
			}
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
	errs, err := q.BulkImportErrorList(ctx, job.ID)
	if err != nil {
		return job, fmt.Errorf("read bulk import errors: %w", err)
	}
	typ := events.BulkUploadCompleted
	if out.Status == catalog.BulkFailed {
		typ = events.BulkUploadFailed
	}
	if _, err := eventRecord(ctx, q, job.PlatformID, typ, p.Render(BulkImportReport{Job: out, Errors: errs}), nil); err != nil {
		return job, err
	}
	return out, nil
}

// bulkImportRow imports one row: the customer it creates with its accounts, or the
// refusal (a domain error). A customer whose platformCustomerId or umaAddress is taken is
// not inserted and the transaction goes on.
func bulkImportRow(ctx context.Context, q *queries, box *sealbox.Box, job BulkImportJob, settings platformconfig.Settings, r *bulkimport.Reader, row bulkimport.Row) error {
	n, err := r.Decide(job.ID, settings, row)
	if err != nil {
		return err
	}
	params, err := customerCreateParams(box, job.PlatformID, n.Record)
	if err != nil {
		return err
	}
	c, err := q.CustomerCreateIfAbsent(ctx, CustomerCreateIfAbsentParams(params))
	if IsNotFound(err) {
		return customerTaken(ctx, q, job.ID, params)
	}
	if err != nil {
		return fmt.Errorf("create customer: %w", err)
	}
	return customerAccountsOpen(ctx, q, box, job.PlatformID, c.ID, n)
}

// customerTaken says why a new customer of a bulk import was not inserted: its
// platformCustomerId belongs to another customer of the platform (one made by an earlier
// row of the file included), or its umaAddress to another customer of the deployment. When its own id is taken, the row's customer exists
// already and nothing is refused (bulkimport.Conflict decides).
func customerTaken(ctx context.Context, q *queries, jobID uuid.UUID, p CustomerCreateParams) error {
	taken, err := q.CustomerConflicts(ctx, CustomerConflictsParams{PlatformID: p.PlatformID, ID: p.ID,
		PlatformCustomerID: p.PlatformCustomerID, UmaAddress: p.UmaAddress})
	if err != nil {
		return fmt.Errorf("find the customer taking the row's identifiers: %w", err)
	}
	holders := make([]bulkimport.Identity, len(taken))
	for i, c := range taken {
		holders[i] = bulkimport.Identity(c)
	}
	want := bulkimport.Identity{ID: p.ID, PlatformID: p.PlatformID, PlatformCustomerID: p.PlatformCustomerID, UmaAddress: p.UmaAddress}
	if found, refusal := bulkimport.Conflict(jobID, want, holders); found {
		return refusal
	}
	return fmt.Errorf("customer %s was not inserted, yet nothing takes its identifiers", p.ID)
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
