package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/view"
	"paycore/internal/bulkimport"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
	"paycore/internal/infra/devserver"
	"paycore/worker"
	"paycore/workflows"
	"paycore/workflows/start"
)

const bulkHeaderLine = "customerType,platformCustomerId,umaAddress,fullName,birthDate,email,businessLegalName,businessTaxId," +
	"addressLine1,addressLine2,city,state,postalCode,country,platformAccountId,description\n"

// bulkLine is row r of a generated file for a platform whose UMA domain is domain, and the
// refusal it gets ("CODE field", "" for a row that imports). Most rows are individuals,
// some businesses; some are refused: a bad birth date, the platformCustomerId of an
// existing customer ("existing-1") or of an earlier row, an earlier row's umaAddress, too
// few fields.
func bulkLine(r int, domain string) (line, refusal string) {
	pcid, uma, birth := fmt.Sprintf("cust-%d", r), fmt.Sprintf("$c%d@%s", r, domain), "1990-04-01"
	switch {
	case r%50 == 7:
		birth, refusal = "1990-02-30", "INVALID_INPUT birthDate"
	case r == 100:
		pcid, refusal = "existing-1", "PLATFORM_CUSTOMER_ID_EXISTS platformCustomerId"
	case r == 200:
		pcid, refusal = "cust-150", "PLATFORM_CUSTOMER_ID_EXISTS platformCustomerId"
	case r == 300:
		uma, refusal = fmt.Sprintf("$c299@%s", domain), "UMA_ADDRESS_EXISTS umaAddress"
	case r == 400:
		return "INDIVIDUAL,cust-400,\n", "INVALID_INPUT "
	}
	if r%100 == 33 {
		return fmt.Sprintf("BUSINESS,%s,%s,,,,\"Acme %d, Inc.\",TAX-%d,%d Market St,Suite 2,San Francisco,CA,94105,US,acct-%d,imported\n",
			pcid, uma, r, r, r, r), refusal
	}
	return fmt.Sprintf("INDIVIDUAL,%s,%s,Ana Lima %d,%s,ana%d@example.com,,,%d Main St,,Springfield,IL,62701,US,,\n",
		pcid, uma, r, birth, r, r), refusal
}

// bulkFile generates a file of rows customer rows as it is read, never all in memory.
func bulkFile(rows int, domain string) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.WriteString(pw, bulkHeaderLine)
		for r := bulkimport.FirstRow; err == nil && r < bulkimport.FirstRow+rows; r++ {
			line, _ := bulkLine(r, domain)
			_, err = io.WriteString(pw, line)
		}
		pw.CloseWithError(err)
	}()
	return pr
}

func bulkJob(t testing.TB, c *apitest.Client, id string) view.BulkCustomerImportJob {
	t.Helper()
	r := c.Do("GET", "/customers/bulk/jobs/"+id, nil)
	if r.Status != 200 {
		t.Fatalf("get job: %d %s", r.Status, r.Body)
	}
	var j view.BulkCustomerImportJob
	r.Decode(t, &j)
	return j
}

func uploadBulk(t testing.TB, c *apitest.Client, file io.Reader) string {
	t.Helper()
	r := c.Upload("/customers/bulk/csv", "file", "customers.csv", "text/csv", file)
	if r.Status != 202 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	return r.JSON(t)["jobId"].(string)
}

// A file of 1,000 rows with refused rows of every kind is imported by a worker process
// that is killed (SIGKILL) in the middle of the import and started again: every good row
// becomes exactly one customer with its account, every refused row is reported once with
// its row number and column, the counts are exact, the job continued as new along the
// way, and one BULK_UPLOAD_COMPLETED webhook with the job is delivered.
func TestBulkImportSurvivesAWorkerKill(t *testing.T) {
	t.Parallel()
	const rows = 1000
	s := newStack(t, func(c *config.Config) { c.BulkImportBatchSize = 25; c.BulkImportBatchesPerRun = 4 })
	s.stopWorkerAndWait() // the worker runs as a separate process here
	c, p := s.platform(true)
	rc := newReceiver(t, nil)
	setEndpointDirect(t, s, p, rc.srv.URL)
	if r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "platformCustomerId": "existing-1"}); r.Status != 201 {
		t.Fatalf("existing customer: %d %s", r.Status, r.Body)
	}
	workerPort, _ := devserver.FreePort()
	env := []string{
		"PAYCORE_DATABASE_URL=" + s.cfg.DatabaseURL, "PAYCORE_MASTER_KEY=" + s.cfg.MasterKey,
		"PAYCORE_TEMPORAL_ADDRESS=" + s.cfg.TemporalAddress, "PAYCORE_TASK_QUEUE=" + s.cfg.TaskQueue,
		fmt.Sprintf("PAYCORE_WORKER_HTTP_ADDR=127.0.0.1:%d", workerPort), "PAYCORE_LOG_LEVEL=warn",
		"PAYCORE_SANDBOX_WEBHOOKS_ALLOW_PRIVATE=true", "PAYCORE_WEBHOOK_RETRY_INITIAL=100ms",
	}
	workerProc := startProc(t, env, "worker")

	jobID := uploadBulk(t, c, bulkFile(rows, p.UmaDomain))
	var atKill view.BulkCustomerImportJob
	eventually(t, 60*time.Second, "the import to be under way", func() bool {
		atKill = bulkJob(t, c, jobID)
		return atKill.Progress.Processed >= 100
	})
	workerProc.kill()
	atKill = bulkJob(t, c, jobID) // what the killed worker committed
	if atKill.Status != "PROCESSING" || atKill.Progress.Processed >= rows {
		t.Fatalf("the worker was not killed in the middle of the import: %+v", atKill.Progress)
	}
	t.Logf("killed the worker at %d of %d rows", atKill.Progress.Processed, rows)
	startProc(t, env, "worker")
	var job view.BulkCustomerImportJob
	eventually(t, 120*time.Second, "the import to end", func() bool {
		job = bulkJob(t, c, jobID)
		return job.Status == "COMPLETED" || job.Status == "FAILED"
	})

	// The refusals the file was made with, row by row.
	var want []string
	for r := bulkimport.FirstRow; r < bulkimport.FirstRow+rows; r++ {
		if _, refusal := bulkLine(r, p.UmaDomain); refusal != "" {
			want = append(want, fmt.Sprintf("%d %s", r, refusal))
		}
	}
	var got []string
	for _, e := range job.Errors {
		field := ""
		if e.Details.Field != nil {
			field = *e.Details.Field
		}
		got = append(got, fmt.Sprintf("%d %s %s", e.Details.Row, e.Code, field))
		wantCorr := fmt.Sprintf("cust-%d", e.Details.Row)
		if e.Details.Row == 100 {
			wantCorr = "existing-1"
		} else if e.Details.Row == 200 {
			wantCorr = "cust-150"
		}
		if e.CorrelationID != wantCorr || e.Message == "" {
			t.Errorf("row %d: correlationId %q, message %q", e.Details.Row, e.CorrelationID, e.Message)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("errors:\n%v\nwant:\n%v", got, want)
	}
	ok := rows - len(want)
	if job.Status != "COMPLETED" || job.Progress.Total != rows || job.Progress.Processed != rows || int(job.Progress.Successful) != ok ||
		int(job.Progress.Failed) != len(want) || job.CompletedAt == nil {
		t.Fatalf("job %+v", job)
	}
	// Each good row is one customer, with the id of its row and one USD account.
	ctx := context.Background()
	jid, _ := ids.Parse(ids.Job, jobID)
	var customers, fromJob, distinct, accounts, staged int
	err := s.app.pool.QueryRow(ctx, `
		SELECT count(*), count(*) FILTER (WHERE c.id::text LIKE $2 || '%'), count(DISTINCT platform_customer_id),
		       (SELECT count(*) FROM internal_accounts a WHERE a.platform_id = $1 AND a.customer_id IS NOT NULL),
		       (SELECT count(*) FROM bulk_import_rows WHERE job_id = $3)
		FROM customers c WHERE c.platform_id = $1`, p.ID, jid.String()[:28], jid).Scan(&customers, &fromJob, &distinct, &accounts, &staged)
	if err != nil {
		t.Fatal(err)
	}
	if customers != ok+1 || fromJob != ok || distinct != customers || accounts != customers || staged != 0 {
		t.Fatalf("%d customers (%d from the job, %d distinct), %d accounts, %d staged rows; want %d imported", customers, fromJob, distinct, accounts, staged, ok)
	}
	for r, typ := range map[int]string{2: "INDIVIDUAL", 133: "BUSINESS", 1001: "INDIVIDUAL"} {
		var cust map[string]any
		c.Do("GET", "/customers/"+ids.Format(ids.Customer, bulkimport.CustomerID(jid, r)), nil).Decode(t, &cust)
		if cust["platformCustomerId"] != fmt.Sprintf("cust-%d", r) || cust["customerType"] != typ {
			t.Fatalf("row %d: %v", r, cust)
		}
	}
	// The job ran as several workflow runs (continue-as-new).
	runs, err := s.app.temporal.ListWorkflow(ctx, listRequest(fmt.Sprintf(`WorkflowId = %q`, workflows.BulkImportWorkflowID(jid))))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs.Executions) < 2 {
		t.Fatalf("%d workflow runs, want the job to have continued as new", len(runs.Executions))
	}
	// One BULK_UPLOAD_COMPLETED event, delivered, carrying the job as GET shows it.
	var n int
	_ = s.app.pool.QueryRow(ctx, "SELECT count(*) FROM webhook_events WHERE platform_id = $1 AND type LIKE 'BULK_UPLOAD%'", p.ID).Scan(&n)
	if n != 1 {
		t.Fatalf("%d bulk upload events", n)
	}
	eventually(t, 30*time.Second, "the webhook", func() bool { return rc.count() > 0 })
	body := rc.get(0).body
	if errs := apitest.SchemaErrors(t, "WebhookEnvelope", body); len(errs) > 0 {
		t.Fatalf("webhook: %v", errs)
	}
	var env2 struct {
		Type string
		Data view.BulkCustomerImportJob
	}
	if err := json.Unmarshal(body, &env2); err != nil {
		t.Fatal(err)
	}
	want2, _ := json.Marshal(job)
	got2, _ := json.Marshal(env2.Data)
	if env2.Type != events.BulkUploadCompleted || string(got2) != string(want2) {
		t.Fatalf("webhook %s %s\nwant %s", env2.Type, got2, want2)
	}
}

// A job whose workflow never started (the API's start failed after the upload committed)
// is started by the worker's BulkImportStarter and imported; starting it again changes
// nothing.
func TestBulkImportStrandedJobIsStarted(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, p := s.platform(true)
	var b strings.Builder
	b.WriteString(bulkHeaderLine)
	for r := bulkimport.FirstRow; r < bulkimport.FirstRow+30; r++ {
		line, _ := bulkLine(r, p.UmaDomain)
		b.WriteString(line)
	}
	header, rows := csvRowsOf(t, b.String())
	job, err := db.BulkImportCreate(context.Background(), s.app.pool, p.ID, header, rows)
	if err != nil {
		t.Fatal(err)
	}
	id := ids.Format(ids.Job, job.ID)
	starter := &worker.BulkImportStarter{Pool: s.app.pool, Starter: start.Starter{Client: s.app.temporal, TaskQueue: s.cfg.TaskQueue},
		Logger: s.app.log, BatchSize: 10, BatchesPerRun: 2}
	if n, err := starter.StartPending(context.Background(), time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("a job younger than the wait was started: %d %v", n, err)
	}
	if bulkJob(t, c, id).Status != "PENDING" {
		t.Fatal("the job moved without a workflow")
	}
	if n, err := starter.StartPending(context.Background(), time.Now()); err != nil || n != 1 {
		t.Fatalf("started %d: %v", n, err)
	}
	var got view.BulkCustomerImportJob
	eventually(t, 60*time.Second, "the import to end", func() bool {
		got = bulkJob(t, c, id)
		return got.Status == "COMPLETED"
	})
	if got.Progress.Successful != 29 || got.Progress.Failed != 1 || got.Errors[0].Details.Row != 7 {
		t.Fatalf("job %+v", got.Progress)
	}
	if n, err := starter.StartPending(context.Background(), time.Now()); err != nil || n != 0 {
		t.Fatalf("an ended job was started again: %d %v", n, err)
	}
}

// csvRowsOf reads a whole CSV text: its checked header and its rows.
func csvRowsOf(t *testing.T, text string) (bulkimport.Header, db.BulkImportRows) {
	t.Helper()
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	h, err := bulkimport.CheckHeader(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	return h, &recordRows{recs: recs[1:]}
}

type recordRows struct{ recs [][]string }

func (r *recordRows) Next() ([]string, error) {
	if len(r.recs) == 0 {
		return nil, io.EOF
	}
	rec := r.recs[0]
	r.recs = r.recs[1:]
	return rec, nil
}

// A job under way whose workflow ended without finishing it (terminated by an operator)
// is resumed by the worker from its cursor: every row is imported once.
func TestBulkImportStalledJobIsResumed(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, p := s.platform(true)
	var b strings.Builder
	b.WriteString(bulkHeaderLine)
	for r := bulkimport.FirstRow; r < bulkimport.FirstRow+30; r++ {
		line, _ := bulkLine(r, p.UmaDomain)
		b.WriteString(line)
	}
	header, rows := csvRowsOf(t, b.String())
	ctx := context.Background()
	job, err := db.BulkImportCreate(ctx, s.app.pool, p.ID, header, rows)
	if err != nil {
		t.Fatal(err)
	}
	// One batch ran, then its workflow was gone: the job is PROCESSING at row 11.
	if job, err = db.BulkImportBatch(ctx, s.app.pool, s.app.box, db.BulkImportBatchParams{JobID: job.ID, After: int(job.LastRow), Size: 10,
		Render: view.BulkImportRender}, time.Now()); err != nil || job.Status != "PROCESSING" || job.LastRow != 11 {
		t.Fatalf("first batch: %+v %v", job, err)
	}
	starter := &worker.BulkImportStarter{Pool: s.app.pool, Starter: start.Starter{Client: s.app.temporal, TaskQueue: s.cfg.TaskQueue},
		Logger: s.app.log, BatchSize: 10, BatchesPerRun: 2}
	if n, err := starter.ResumeStalled(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("a job that just moved was resumed: %d %v", n, err)
	}
	if n, err := starter.ResumeStalled(ctx, time.Now().Add(time.Second)); err != nil || n != 1 {
		t.Fatalf("resumed %d: %v", n, err)
	}
	id := ids.Format(ids.Job, job.ID)
	var got view.BulkCustomerImportJob
	eventually(t, 60*time.Second, "the import to end", func() bool {
		got = bulkJob(t, c, id)
		return got.Status == "COMPLETED"
	})
	var customers int
	_ = s.app.pool.QueryRow(ctx, "SELECT count(*) FROM customers WHERE platform_id = $1", p.ID).Scan(&customers)
	if got.Progress.Processed != 30 || got.Progress.Successful != 29 || got.Progress.Failed != 1 || customers != 29 {
		t.Fatalf("job %+v, %d customers", got.Progress, customers)
	}
}
