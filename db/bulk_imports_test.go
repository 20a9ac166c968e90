package db_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/db/view"
	"paycore/internal/bulkimport"
	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/kit/sealbox"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

var bulkHeader = bulkimport.Header{bulkimport.ColCustomerType, bulkimport.ColPlatformCustomerID, bulkimport.ColUmaAddress,
	bulkimport.ColFullName, bulkimport.ColBirthDate, bulkimport.ColAddressLine1, bulkimport.ColCity, bulkimport.ColState,
	bulkimport.ColPostalCode, bulkimport.ColCountry}

// sliceRows are staged rows from memory; err, when set, is returned after them.
type sliceRows struct {
	rows [][]string
	err  error
}

func (s *sliceRows) Next() ([]string, error) {
	if len(s.rows) == 0 {
		if s.err != nil {
			return nil, s.err
		}
		return nil, io.EOF
	}
	r := s.rows[0]
	s.rows = s.rows[1:]
	return r, nil
}

func personRow(id, uma string) []string {
	return []string{"INDIVIDUAL", id, uma, "Ana Lima", "1990-04-01", "1 Main St", "Springfield", "IL", "62701", "US"}
}

type bulkWorld struct {
	t        *testing.T
	pool     *pgxpool.Pool
	box      *sealbox.Box
	platform db.Platform
	settings platformconfig.Settings
}

func newBulkWorld(t *testing.T) *bulkWorld {
	pool, _ := dbtest.NewPool(t)
	box := newBox(t)
	p, s := provision(t, pool, box)
	return &bulkWorld{t: t, pool: pool, box: box, platform: p, settings: s}
}

func (w *bulkWorld) uma(handle string) string { return "$" + handle + "@" + w.settings.UmaDomain }

// open opens a customer of the platform with platformCustomerId id at the address of handle.
func (w *bulkWorld) open(id, handle string) {
	w.t.Helper()
	if _, err := db.CustomerOpen(context.Background(), w.pool, w.box, w.platform.ID, newCustomer(w.t, w.settings, id, w.uma(handle))); err != nil {
		w.t.Fatal(err)
	}
}

func (w *bulkWorld) stage(rows [][]string) db.BulkImportJob {
	w.t.Helper()
	job, err := db.BulkImportCreate(context.Background(), w.pool, w.platform.ID, bulkHeader, &sliceRows{rows: rows})
	if err != nil {
		w.t.Fatal(err)
	}
	return job
}

// run imports a job in batches of size, as its workflow does, and returns the batches' cursors.
func (w *bulkWorld) run(job db.BulkImportJob, size int) (db.BulkImportJob, []int32) {
	w.t.Helper()
	var cursors []int32
	after := int(job.LastRow)
	for range 10_000 {
		j, err := db.BulkImportBatch(context.Background(), w.pool, w.box, db.BulkImportBatchParams{JobID: job.ID, After: after, Size: size,
			Render: view.BulkImportRender}, time.Now())
		if err != nil {
			w.t.Fatal(err)
		}
		cursors = append(cursors, j.LastRow)
		if db.BulkImportEnded(j) {
			return j, cursors
		}
		after = int(j.LastRow)
	}
	w.t.Fatal("the job never ended")
	return job, nil
}

func (w *bulkWorld) count(query string, args ...any) int {
	w.t.Helper()
	var n int
	if err := w.pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		w.t.Fatal(err)
	}
	return n
}

// A job with good rows, invalid rows, and rows whose platformCustomerId or umaAddress an
// existing customer or an earlier row of the file took: the good rows become customers
// with their accounts, each refused row is reported with its number and column, a batch
// replayed with a cursor the job passed changes nothing, and the last batch ends the job
// with its BULK_UPLOAD_COMPLETED event in the same transaction.
func TestBulkImportBatches(t *testing.T) {
	t.Parallel()
	w := newBulkWorld(t)
	ctx := context.Background()
	rows := w.mixedRows()
	job := w.stage(rows)
	if job.Status != catalog.BulkPending || job.Total != 11 || job.LastRow != 1 || w.count("SELECT count(*) FROM bulk_import_rows WHERE job_id = $1", job.ID) != 11 {
		t.Fatalf("staged job %+v", job)
	}
	// The first batch, then the same batch again (a replay after it committed): nothing more.
	first, err := db.BulkImportBatch(ctx, w.pool, w.box, db.BulkImportBatchParams{JobID: job.ID, After: 1, Size: 3, Render: view.BulkImportRender}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	again, err := db.BulkImportBatch(ctx, w.pool, w.box, db.BulkImportBatchParams{JobID: job.ID, After: 1, Size: 3, Render: view.BulkImportRender}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != catalog.BulkProcessing || first.LastRow != 4 || first.Successful != 2 || first.Failed != 1 || again.LastRow != first.LastRow || again.Successful != first.Successful || again.Failed != first.Failed {
		t.Fatalf("first batch %+v, replayed %+v", first, again)
	}
	end, cursors := w.run(first, 3)
	if fmt.Sprint(cursors) != "[7 10 12]" {
		t.Fatalf("cursors %v", cursors)
	}
	if end.Status != catalog.BulkCompleted || end.Total != 11 || end.Processed != 11 || end.Successful != 5 || end.Failed != 6 || end.CompletedAt == nil {
		t.Fatalf("job %+v", end)
	}
	report := w.wantErrors(job.ID, mixedRowsRefused...)
	// Customers: the 5 imported, each once, with the ids of their rows and one USD account.
	if n := w.count("SELECT count(*) FROM customers WHERE platform_id = $1", w.platform.ID); n != 6 {
		t.Fatalf("%d customers, want 1 + 5", n)
	}
	for _, r := range []int{2, 3, 7, 9, 12} {
		id := bulkimport.CustomerID(job.ID, r)
		if w.count("SELECT count(*) FROM customers c JOIN internal_accounts a ON a.customer_id = c.id WHERE c.id = $1 AND a.currency = 'USD' AND c.kyc_status = 'UNVERIFIED'", id) != 1 {
			t.Errorf("row %d: no customer %s with its USD account", r, id)
		}
	}
	if n := w.count("SELECT count(*) FROM bulk_import_rows WHERE job_id = $1", job.ID); n != 0 {
		t.Fatalf("%d staged rows left", n)
	}
	// One event, carrying the job as the API shows it.
	var data []byte
	if n := w.count("SELECT count(*) FROM webhook_events WHERE platform_id = $1 AND type = $2", w.platform.ID, events.BulkUploadCompleted); n != 1 {
		t.Fatalf("%d BULK_UPLOAD_COMPLETED events", n)
	}
	if err := w.pool.QueryRow(ctx, "SELECT data FROM webhook_events WHERE platform_id = $1 AND type = $2", w.platform.ID, events.BulkUploadCompleted).Scan(&data); err != nil {
		t.Fatal(err)
	}
	var ev view.BulkCustomerImportJob
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.ID != view.BulkImportJobID(job) || ev.Status != catalog.BulkCompleted || ev.Progress.Successful != 5 || len(ev.Errors) != len(report.Errors) ||
		ev.Errors[0].Details.Row != 4 || *ev.Errors[0].Details.Field != "birthDate" || ev.CompletedAt == nil {
		t.Fatalf("event data %s", data)
	}
	// An ended job takes no more batches.
	after, err := db.BulkImportBatch(ctx, w.pool, w.box, db.BulkImportBatchParams{JobID: job.ID, After: int(end.LastRow), Size: 3, Render: view.BulkImportRender}, time.Now())
	if err != nil || after.LastRow != end.LastRow || after.Status != end.Status || !after.UpdatedAt.Equal(end.UpdatedAt) {
		t.Fatalf("batch of an ended job: %+v %v", after, err)
	}
}

// mixedRows opens a customer "taken" and returns rows 2 to 12 of a file: good rows, invalid
// rows, and rows whose platformCustomerId or umaAddress an existing customer or an earlier
// row of the file took (mixedRowsRefused); in batches of 3, the clashes are both within a
// batch and across batches.
func (w *bulkWorld) mixedRows() [][]string {
	w.open("taken", "taken")
	bad := personRow("c-bad-date", w.uma("bad"))
	bad[4] = "1990-13-01"
	return [][]string{
		personRow("c-1", w.uma("c1")),    // row 2
		personRow("c-2", w.uma("c2")),    // 3
		bad,                              // 4: birthDate
		personRow("taken", w.uma("x1")),  // 5: an existing customer's platformCustomerId
		personRow("c-5", w.uma("taken")), // 6: an existing customer's umaAddress
		personRow("c-6", w.uma("c6")),    // 7
		personRow("c-1", w.uma("again")), // 8: row 2's platformCustomerId, in another batch
		personRow("c-8", w.uma("c8")),    // 9
		personRow("c-9", w.uma("c8")),    // 10: row 9's umaAddress, in the same batch
		{"INDIVIDUAL", "c-short"},        // 11: too few fields
		personRow("c-11", w.uma("c11")),  // 12
	}
}

// mixedRowsRefused are the refused rows of mixedRows, as wantErrors takes them.
var mixedRowsRefused = []string{
	"4 INVALID_INPUT birthDate c-bad-date: birthDate must be a date YYYY-MM-DD",
	"5 PLATFORM_CUSTOMER_ID_EXISTS platformCustomerId taken: another customer of the platform already has this platformCustomerId",
	"6 UMA_ADDRESS_EXISTS umaAddress c-5: another customer of the platform already has this umaAddress",
	"8 PLATFORM_CUSTOMER_ID_EXISTS platformCustomerId c-1: the customer of row 2 of this file already has this platformCustomerId",
	"10 UMA_ADDRESS_EXISTS umaAddress c-9: the customer of row 9 of this file already has this umaAddress",
	"11 INVALID_INPUT  c-short: the row has 2 fields; the header has 10 columns",
}

// A step of several batches imports them one after the other, each prepared while the one
// before commits: it stops after its batches with the job's cursor there, and the file's
// rows are judged exactly as batch by batch (a row clashing with a row of an earlier
// batch, prepared before that batch committed, is still refused naming it).
func TestBulkImportStepPipelinesBatches(t *testing.T) {
	t.Parallel()
	w := newBulkWorld(t)
	ctx := context.Background()
	job := w.stage(w.mixedRows())
	step := func(after, batches int) db.BulkImportJob {
		t.Helper()
		j, err := db.BulkImportBatch(ctx, w.pool, w.box, db.BulkImportBatchParams{JobID: job.ID, After: after, Size: 3, Batches: batches,
			Render: view.BulkImportRender}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	two := step(1, 2)
	if two.Status != catalog.BulkProcessing || two.LastRow != 7 || two.Processed != 6 || two.Successful != 3 {
		t.Fatalf("after a step of 2 batches: %+v", two)
	}
	if stale := step(1, 2); stale.LastRow != 7 || !stale.UpdatedAt.Equal(two.UpdatedAt) {
		t.Fatalf("a step from a cursor the job passed: %+v", stale)
	}
	end := step(int(two.LastRow), 100) // more batches than rows are left: it ends with the job
	if end.Status != catalog.BulkCompleted || end.Processed != 11 || end.Successful != 5 || end.Failed != 6 {
		t.Fatalf("job %+v", end)
	}
	w.wantErrors(job.ID, mixedRowsRefused...)
	if n := w.count("SELECT count(*) FROM customers c JOIN internal_accounts a ON a.customer_id = c.id WHERE c.platform_id = $1", w.platform.ID); n != 6 {
		t.Fatalf("%d customers with an account, want 1 + 5", n)
	}
	if n := w.count("SELECT count(*) FROM webhook_events WHERE platform_id = $1 AND type = $2", w.platform.ID, events.BulkUploadCompleted); n != 1 {
		t.Fatalf("%d BULK_UPLOAD_COMPLETED events", n)
	}
}

// One batch is judged row by row in its order, as the rows were imported one at a time: a
// row refused for an existing customer's platformCustomerId or for an invalid field holds
// nothing, so a later row of the batch with its umaAddress or platformCustomerId is
// imported; a row clashing with an earlier row of the batch names it.
func TestBulkImportBatchJudgedInOrder(t *testing.T) {
	t.Parallel()
	w := newBulkWorld(t)
	w.open("taken", "taken")
	bad := personRow("c-7", w.uma("c7"))
	bad[4] = "1990-02-30"
	rows := [][]string{
		personRow("c-1", w.uma("c1")),    // row 2
		personRow("taken", w.uma("c3")),  // 3: an existing customer's platformCustomerId
		personRow("c-4", w.uma("c3")),    // 4: row 3's umaAddress, row 3 refused
		personRow("c-4", w.uma("c5")),    // 5: row 4's platformCustomerId
		personRow("c-6", w.uma("c1")),    // 6: row 2's umaAddress
		bad,                              // 7: birthDate
		personRow("c-7", w.uma("c7")),    // 8: row 7's identifiers, row 7 refused
		personRow("c-9", w.uma("taken")), // 9: an existing customer's umaAddress
	}
	end, cursors := w.run(w.stage(rows), 100)
	if fmt.Sprint(cursors) != "[9]" || end.Status != catalog.BulkCompleted || end.Successful != 3 || end.Failed != 5 {
		t.Fatalf("job %+v, cursors %v", end, cursors)
	}
	w.wantErrors(end.ID,
		"3 PLATFORM_CUSTOMER_ID_EXISTS platformCustomerId taken: another customer of the platform already has this platformCustomerId",
		"5 PLATFORM_CUSTOMER_ID_EXISTS platformCustomerId c-4: the customer of row 4 of this file already has this platformCustomerId",
		"6 UMA_ADDRESS_EXISTS umaAddress c-6: the customer of row 2 of this file already has this umaAddress",
		"7 INVALID_INPUT birthDate c-7: birthDate must be a date YYYY-MM-DD",
		"9 UMA_ADDRESS_EXISTS umaAddress c-9: another customer of the platform already has this umaAddress",
	)
	for r, uma := range map[int]string{2: w.uma("c1"), 4: w.uma("c3"), 8: w.uma("c7")} {
		if w.count("SELECT count(*) FROM customers c JOIN internal_accounts a ON a.customer_id = c.id WHERE c.id = $1 AND c.uma_address = $2", bulkimport.CustomerID(end.ID, r), uma) != 1 {
			t.Errorf("row %d: no customer with %s and its account", r, uma)
		}
	}
	if n := w.count("SELECT count(*) FROM customers WHERE platform_id = $1", w.platform.ID); n != 4 {
		t.Fatalf("%d customers, want 1 + 3", n)
	}
}

// wantErrors fails the test unless the job's refused rows are want, each as "row CODE
// field correlationId: message", and returns the job's report.
func (w *bulkWorld) wantErrors(jobID uuid.UUID, want ...string) db.BulkImportReport {
	w.t.Helper()
	report, err := db.BulkImportReportGet(context.Background(), w.pool, w.platform.ID, jobID)
	if err != nil {
		w.t.Fatal(err)
	}
	var got []string
	for _, e := range report.Errors {
		field := ""
		if e.Field != nil {
			field = *e.Field
		}
		got = append(got, fmt.Sprintf("%d %s %s %s: %s", e.RowNumber, e.Code, field, e.CorrelationID, e.Message))
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		w.t.Fatalf("errors:\n%s\nwant:\n%s", joinLines(got), joinLines(want))
	}
	return report
}

func joinLines(s []string) string {
	out := ""
	for _, l := range s {
		out += "  " + l + "\n"
	}
	return out
}

// Two runs of the same batch at once (a local activity retried while its first attempt
// still runs) import it once.
func TestBulkImportConcurrentBatchesImportOnce(t *testing.T) {
	t.Parallel()
	w := newBulkWorld(t)
	var rows [][]string
	for i := range 40 {
		rows = append(rows, personRow(fmt.Sprintf("c-%d", i), w.uma(fmt.Sprintf("c%d", i))))
	}
	job := w.stage(rows)
	var wg sync.WaitGroup
	results := make([]db.BulkImportJob, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, err := db.BulkImportBatch(context.Background(), w.pool, w.box, db.BulkImportBatchParams{JobID: job.ID, After: 1, Size: 25,
				Render: view.BulkImportRender}, time.Now())
			if err != nil {
				t.Error(err)
			}
			results[i] = j
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.LastRow != 26 || r.Successful != 25 {
			t.Fatalf("a concurrent run saw %+v", r)
		}
	}
	end, _ := w.run(results[0], 25)
	if end.Successful != 40 || w.count("SELECT count(*) FROM customers WHERE platform_id = $1", w.platform.ID) != 40 ||
		w.count("SELECT count(*) FROM internal_accounts WHERE platform_id = $1 AND customer_id IS NOT NULL", w.platform.ID) != 40 {
		t.Fatalf("job %+v", end)
	}
}

// A job none of whose rows could be imported ends FAILED with BULK_UPLOAD_FAILED; it
// keeps the first bulkimport.MaxErrors refused rows and counts them all.
func TestBulkImportAllRefused(t *testing.T) {
	t.Parallel()
	w := newBulkWorld(t)
	var rows [][]string
	for i := range bulkimport.MaxErrors + 5 {
		r := personRow(fmt.Sprintf("c-%d", i), w.uma(fmt.Sprintf("c%d", i)))
		r[9] = "ZZ"
		rows = append(rows, r)
	}
	end, _ := w.run(w.stage(rows), 500)
	if end.Status != catalog.BulkFailed || end.Failed != int32(len(rows)) || end.Successful != 0 {
		t.Fatalf("job %+v", end)
	}
	report, err := db.BulkImportReportGet(context.Background(), w.pool, w.platform.ID, end.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Errors) != bulkimport.MaxErrors || report.Errors[0].RowNumber != 2 || report.Errors[len(report.Errors)-1].RowNumber != bulkimport.MaxErrors+1 {
		t.Fatalf("%d errors kept, from row %d", len(report.Errors), report.Errors[0].RowNumber)
	}
	if w.count("SELECT count(*) FROM webhook_events WHERE platform_id = $1 AND type = $2", w.platform.ID, events.BulkUploadFailed) != 1 ||
		w.count("SELECT count(*) FROM customers WHERE platform_id = $1", w.platform.ID) != 0 {
		t.Fatal("want one BULK_UPLOAD_FAILED event and no customer")
	}
}

// An upload that fails while its rows are read, or has none, stores nothing.
func TestBulkImportCreateStoresNothingOnFailure(t *testing.T) {
	t.Parallel()
	w := newBulkWorld(t)
	broken := errors.New("the body was cut short")
	_, err := db.BulkImportCreate(context.Background(), w.pool, w.platform.ID, bulkHeader,
		&sliceRows{rows: [][]string{personRow("a", w.uma("a")), personRow("b", w.uma("b"))}, err: broken})
	if !errors.Is(err, broken) {
		t.Fatalf("err %v, want the source's", err)
	}
	_, err = db.BulkImportCreate(context.Background(), w.pool, w.platform.ID, bulkHeader, &sliceRows{})
	var fe *problem.FieldError
	if !errors.As(err, &fe) || fe.Field != "file" {
		t.Fatalf("an upload without rows: %v", err)
	}
	if w.count("SELECT count(*) FROM bulk_import_jobs") != 0 || w.count("SELECT count(*) FROM bulk_import_rows") != 0 {
		t.Fatal("a failed upload left rows behind")
	}
	// Another platform's job reads as no row.
	job := w.stage([][]string{personRow("a", w.uma("a"))})
	if _, err := db.BulkImportReportGet(context.Background(), w.pool, uuid.New(), job.ID); !db.IsNotFound(err) {
		t.Fatalf("another platform's job: %v", err)
	}
}
