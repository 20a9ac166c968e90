package api

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/bulkimport"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/kit/strictjson"
	"paycore/workflows"
)

// bulkUploadRoute is the route of a bulk customer import's upload; its body limit is
// PAYCORE_BULK_IMPORT_MAX_BYTES (bodyLimitOf).
const bulkUploadRoute = "/customers/bulk/csv"

// csvMediaTypes are the Content-Types a file part may declare (browsers and spreadsheet
// programs send CSV files under all of them); none declared is taken as CSV too.
var csvMediaTypes = []string{"text/csv", "application/csv", "text/plain", "application/vnd.ms-excel", "application/octet-stream"}

// bulkStartWait bounds the workflow start of an upload: a job whose start fails or takes
// longer is started by the worker's BulkImportStarter.
const bulkStartWait = 10 * time.Second

var errBulkJobNotFound = errorOf(bulkimport.ErrJobNotFound())

// uploadCustomersCSV is POST /customers/bulk/csv: the multipart form's `file` part, a CSV
// file, is read record by record (never held in memory) and its rows streamed into the
// job's staging table in one transaction with the job; then the job's BulkImport workflow
// is started and the answer is 202 with the job's id. A malformed upload (not multipart,
// no file part, not CSV, a bad header, no rows, a syntax error, a body over
// PAYCORE_BULK_IMPORT_MAX_BYTES) is refused and stores nothing. Rows are checked by the
// workflow, each through the rules of POST /customers.
func (s *Server) uploadCustomersCSV(w http.ResponseWriter, r *http.Request) error {
	// A large file takes longer to arrive than the server's read timeout allows a request.
	rc := http.NewResponseController(w)
	until := wall().Add(s.Config.BulkImportUploadTimeout)
	_ = rc.SetReadDeadline(until)
	_ = rc.SetWriteDeadline(until)
	header, rows, done, err := openCSVUpload(r)
	defer done()
	if err != nil {
		return err
	}
	pid := principalFrom(r.Context()).PlatformID
	job, err := db.BulkImportCreate(r.Context(), s.Pool, pid, header, rows)
	if err != nil {
		return err
	}
	// The rows are committed: the start is tried even when the client has gone.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), bulkStartWait)
	defer cancel()
	if err := s.start.BulkImport(ctx, s.bulkImportInput(job.ID, pid)); err != nil {
		// The job is committed: the worker starts its workflow (worker.BulkImportStarter).
		s.Logger.WarnContext(ctx, "bulk import: workflow not started; the worker will start it", "job", view.BulkImportJobID(job), "error", err)
	}
	writeJSON(w, http.StatusAccepted, view.BulkCustomerImportJobAccepted{JobID: view.BulkImportJobID(job), Status: job.Status})
	return nil
}

// bulkImportInput is the workflow input of a new job.
func (s *Server) bulkImportInput(jobID, platformID uuid.UUID) workflows.BulkImportInput {
	return workflows.BulkImportInput{JobID: jobID, PlatformID: platformID, After: bulkimport.FirstRow - 1,
		BatchSize: s.Config.BulkImportBatchSize, BatchesPerRun: s.Config.BulkImportBatchesPerRun}
}

// getBulkImportJob is GET /customers/bulk/jobs/{jobId}: a job of the caller's platform
// with its progress and refused rows; another platform's is 404 BULK_UPLOAD_JOB_NOT_FOUND.
func (s *Server) getBulkImportJob(w http.ResponseWriter, r *http.Request) error {
	return serveOne(w, r, "jobId", ids.Job, errBulkJobNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.BulkImportReport, error) {
		return db.BulkImportReportGet(ctx, s.Pool, pid, id)
	}, view.BulkImportJobOf)
}

// openCSVUpload finds the `file` part of a multipart upload, spools it to a temporary
// file (so the transaction that stages its rows never waits on a slow client, holding a
// database connection) and reads its header; rows reads the records after it. done removes
// the temporary file; it is always set.
func openCSVUpload(r *http.Request) (header bulkimport.Header, rows *csvRows, done func(), err error) {
	done = func() {}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return nil, nil, done, &Error{Status: http.StatusUnsupportedMediaType, Code: catalog.InvalidInput,
			Message: "Content-Type must be multipart/form-data with the CSV file in the part named file"}
	}
	if params["boundary"] == "" {
		return nil, nil, done, invalid("the multipart/form-data Content-Type has no boundary")
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, nil, done, invalid("the request is not a multipart form: %v", err)
	}
	part, err := filePart(mr)
	if err != nil {
		return nil, nil, done, err
	}
	spool, err := os.CreateTemp("", "paycore-bulk-*.csv")
	if err != nil {
		return nil, nil, done, fmt.Errorf("spool the upload: %w", err)
	}
	done = func() { _ = spool.Close(); _ = os.Remove(spool.Name()) }
	if _, err := io.Copy(spool, part); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, nil, done, fmt.Errorf("spool the upload: %w", err)
		}
		return nil, nil, done, formError(err)
	}
	if err := restOfForm(mr); err != nil {
		return nil, nil, done, err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return nil, nil, done, fmt.Errorf("spool the upload: %w", err)
	}
	guard := &rowGuard{r: bufio.NewReader(spool)}
	cr := csv.NewReader(guard)
	cr.FieldsPerRecord = -1 // a row with another number of fields is that row's error
	rows = &csvRows{csv: cr, guard: guard}
	first, err := rows.record()
	if errors.Is(err, io.EOF) {
		return nil, nil, done, invalidField("file", "the file is empty; its first line must be the header")
	}
	if err != nil {
		return nil, nil, done, err
	}
	header, err = bulkimport.CheckHeader(first)
	if err != nil {
		return nil, nil, done, err
	}
	return header, rows, done, nil
}

// filePart skips to the part named file and checks its declared type.
func filePart(mr *multipart.Reader) (*multipart.Part, error) {
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, invalidField("file", "the form has no part named file (the CSV file)")
		}
		if err != nil {
			return nil, formError(err)
		}
		if part.FormName() != "file" {
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, formError(err)
			}
			continue
		}
		if ct := part.Header.Get("Content-Type"); ct != "" {
			mt, _, err := mime.ParseMediaType(ct)
			if err != nil || !slices.Contains(csvMediaTypes, strings.ToLower(mt)) {
				return nil, &Error{Status: http.StatusUnsupportedMediaType, Code: catalog.InvalidInput,
					Message: fmt.Sprintf("the file must be a CSV file (text/csv), not %.100s", ct), Details: map[string]any{"field": "file"}}
			}
		}
		return part, nil
	}
}

// formError is the answer to a multipart form that cannot be read.
func formError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) || isTimeout(err) {
		return bodyReadError(err)
	}
	return invalid("the multipart form is malformed: %v", err)
}

func isTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}

// csvRows reads the records of the spooled file part (db.BulkImportRows).
type csvRows struct {
	csv   *csv.Reader
	guard *rowGuard
	// line is where the last record read began.
	line int
}

// Next is the next row's fields; io.EOF after the last.
func (c *csvRows) Next() ([]string, error) {
	return c.record()
}

// record reads one record, refusing malformed CSV, text that is not UTF-8 (or holds NUL
// characters) and records longer than bulkimport.MaxRowBytes.
func (c *csvRows) record() ([]string, error) {
	c.guard.n = 0
	rec, err := c.csv.Read()
	var pe *csv.ParseError
	switch {
	case errors.Is(err, io.EOF):
		return nil, io.EOF
	case errors.Is(err, errRowTooLong):
		return nil, atLine(invalidField("file", "the record after the one at line %d is longer than %d bytes", c.line, bulkimport.MaxRowBytes), c.line)
	case errors.As(err, &pe) && (errors.Is(pe.Err, csv.ErrQuote) || errors.Is(pe.Err, csv.ErrBareQuote)):
		return nil, atLine(invalidField("file", "the file is not valid CSV: line %d, column %d: %v", pe.Line, pe.Column, pe.Err), pe.Line)
	case err != nil:
		return nil, formError(err)
	}
	c.line, _ = c.csv.FieldPos(0)
	for i, f := range rec {
		if !strictjson.ValidText(f) {
			line, _ := c.csv.FieldPos(i)
			return nil, atLine(invalidField("file", "the file is not UTF-8 text (or holds a NUL character) at line %d", line), line)
		}
	}
	return rec, nil
}

// restOfForm reads the parts after the file: nil when there is no second file.
func restOfForm(form *multipart.Reader) error {
	for {
		part, err := form.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return formError(err)
		}
		if part.FormName() == "file" {
			return invalidField("file", "the form has more than one part named file; upload one CSV file")
		}
		if _, err := io.Copy(io.Discard, part); err != nil {
			return formError(err)
		}
	}
}

// atLine adds the file's line to a refusal's details.
func atLine(e *Error, line int) *Error {
	e.Details["line"] = line
	return e
}

var errRowTooLong = errors.New("a record is too long")

// rowGuard fails a read once more than bulkimport.MaxRowBytes were read since n was last
// reset (at each record), so one record can never make the reader hold much of the file.
type rowGuard struct {
	r io.Reader
	n int
}

func (g *rowGuard) Read(p []byte) (int, error) {
	if g.n > bulkimport.MaxRowBytes {
		return 0, errRowTooLong
	}
	n, err := g.r.Read(p)
	g.n += n
	return n, err
}
