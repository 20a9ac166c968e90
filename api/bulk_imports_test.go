package api_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/workflows"
)

// startRecorder is a Temporal client that records workflow starts (and fails them when
// fail is set); nothing else of it is used by the upload.
type startRecorder struct {
	client.Client
	mu     sync.Mutex
	fail   error
	starts []client.StartWorkflowOptions
	inputs []workflows.BulkImportInput
}

func (c *startRecorder) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ any, args ...any) (client.WorkflowRun, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.starts = append(c.starts, o)
	if in, ok := args[0].(workflows.BulkImportInput); ok {
		c.inputs = append(c.inputs, in)
	}
	return nil, c.fail
}

func bulkEnv(t *testing.T, fail error, tweak ...func(*config.Config)) (*env, *startRecorder) {
	t.Helper()
	rec := &startRecorder{fail: fail}
	e := newEnvWith(t, func(d *api.Deps) { d.Temporal = rec }, tweak...)
	return e, rec
}

const bulkCSVHeader = "customerType,platformCustomerId,umaAddress,fullName,birthDate,addressLine1,city,state,postalCode,country\n"

// bulkCSV is a file of n individuals of the platform whose UMA domain is domain.
func bulkCSV(n int, domain string) string {
	var b strings.Builder
	b.WriteString(bulkCSVHeader)
	for i := range n {
		fmt.Fprintf(&b, "INDIVIDUAL,c-%d,$c%d@%s,Ana Lima,1990-04-01,1 Main St,Springfield,IL,62701,US\n", i, i, domain)
	}
	return b.String()
}

func (e *env) stagedJobs(t *testing.T) (jobs, rows int) {
	t.Helper()
	if err := e.pool.QueryRow(context.Background(), "SELECT (SELECT count(*) FROM bulk_import_jobs), (SELECT count(*) FROM bulk_import_rows)").Scan(&jobs, &rows); err != nil {
		t.Fatal(err)
	}
	return jobs, rows
}

// An upload stores its rows and starts the job's workflow (its id derived from the job's)
// before it answers 202; the job is then readable by its platform only. The route takes
// bodies larger than the API's general limit.
func TestBulkUploadStagesTheRowsAndStartsTheImport(t *testing.T) {
	t.Parallel()
	e, rec := bulkEnv(t, nil, func(c *config.Config) {
		c.MaxBodyBytes = 1024
		c.BulkImportBatchSize = 7
		c.BulkImportBatchesPerRun = 3
	})
	c, p := e.platform(true)
	other, _ := e.platform(true)
	file := bulkCSV(40, p.UmaDomain) // several times MaxBodyBytes
	r := c.Upload("/customers/bulk/csv", "file", "customers.csv", "text/csv", strings.NewReader(file))
	if r.Status != 202 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	var accepted view.BulkCustomerImportJobAccepted
	r.Decode(t, &accepted)
	if accepted.Status != "PENDING" || !strings.HasPrefix(accepted.JobID, "Job:") {
		t.Fatalf("answer %s", r.Body)
	}
	if len(rec.starts) != 1 || rec.starts[0].ID != "bulk-import/"+accepted.JobID || len(rec.inputs) != 1 ||
		rec.inputs[0].After != 1 || rec.inputs[0].BatchSize != 7 || rec.inputs[0].BatchesPerRun != 3 || rec.inputs[0].PlatformID != p.ID {
		t.Fatalf("workflow starts %+v %+v", rec.starts, rec.inputs)
	}
	if jobs, rows := e.stagedJobs(t); jobs != 1 || rows != 40 {
		t.Fatalf("%d jobs, %d staged rows", jobs, rows)
	}
	var job view.BulkCustomerImportJob
	c.Do("GET", "/customers/bulk/jobs/"+accepted.JobID, nil).Decode(t, &job)
	if job.ID != accepted.JobID || job.Status != "PENDING" || job.Progress.Total != 40 || job.Progress.Processed != 0 || len(job.Errors) != 0 {
		t.Fatalf("job %+v", job)
	}
	expectError(t, other.Do("GET", "/customers/bulk/jobs/"+accepted.JobID, nil), 404, "BULK_UPLOAD_JOB_NOT_FOUND")
	for _, id := range []string{"Job:0190a000-0000-7000-8000-000000000001", "Customer:" + strings.TrimPrefix(accepted.JobID, "Job:"), "nope"} {
		expectError(t, c.Do("GET", "/customers/bulk/jobs/"+id, nil), 404, "BULK_UPLOAD_JOB_NOT_FOUND")
	}
	// Other routes keep the general limit.
	expectError(t, c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "fullName": strings.Repeat("x", 2000)}), 413, "PAYLOAD_TOO_LARGE")
	// Reading jobs is for every token; uploading needs MANAGE.
	var tok view.Token
	c.Do("POST", "/tokens", map[string]any{"name": "reader", "permissions": []string{"VIEW"}}).Decode(t, &tok)
	viewer := c.With(tok.ClientID, tok.ClientSecret)
	expectError(t, viewer.Upload("/customers/bulk/csv", "file", "c.csv", "text/csv", strings.NewReader(file)), 403, "FORBIDDEN")
	if r := viewer.Do("GET", "/customers/bulk/jobs/"+accepted.JobID, nil); r.Status != 200 {
		t.Fatalf("VIEW token reading the job: %d %s", r.Status, r.Body)
	}
}

// A workflow start that fails after the rows are stored does not lose the upload: the
// answer is still 202 and the job waits, PENDING with its rows, for the worker to start
// it (worker.BulkImportStarter; end to end in cmd/paycore).
func TestBulkUploadWhoseStartFailsIsKept(t *testing.T) {
	t.Parallel()
	e, rec := bulkEnv(t, errors.New("temporal is unreachable"))
	c, p := e.platform(true)
	r := c.Upload("/customers/bulk/csv", "file", "customers.csv", "", strings.NewReader(bulkCSV(3, p.UmaDomain)))
	if r.Status != 202 || len(rec.starts) != 1 {
		t.Fatalf("upload: %d %s (%d starts)", r.Status, r.Body, len(rec.starts))
	}
	var job view.BulkCustomerImportJob
	c.Do("GET", "/customers/bulk/jobs/"+r.JSON(t)["jobId"].(string), nil).Decode(t, &job)
	if job.Status != "PENDING" || job.Progress.Total != 3 {
		t.Fatalf("job %+v", job)
	}
	if jobs, rows := e.stagedJobs(t); jobs != 1 || rows != 3 {
		t.Fatalf("%d jobs, %d staged rows", jobs, rows)
	}
}

// Every malformed upload is a clear 4xx naming what is wrong, and stores nothing.
func TestBulkUploadRefusals(t *testing.T) {
	t.Parallel()
	const limit = 3 << 20
	e, rec := bulkEnv(t, nil, func(c *config.Config) { c.BulkImportMaxBytes = limit })
	c, p := e.platform(true)
	good := bulkCSV(2, p.UmaDomain)
	upload := func(body string) *apitest.Response {
		return c.Upload("/customers/bulk/csv", "file", "customers.csv", "text/csv", strings.NewReader(body))
	}
	for name, tc := range map[string]struct {
		r      func() *apitest.Response
		status int
		msg    string
	}{
		"JSON body": {func() *apitest.Response { return c.Do("POST", "/customers/bulk/csv", map[string]any{"file": good}) }, 415, "multipart/form-data"},
		"no file part": {func() *apitest.Response {
			return c.Upload("/customers/bulk/csv", "document", "customers.csv", "text/csv", strings.NewReader(good))
		}, 400, "no part named file"},
		"an image": {func() *apitest.Response {
			return c.Upload("/customers/bulk/csv", "file", "photo.png", "image/png", strings.NewReader("\x89PNG\r\n\x1a\n"))
		}, 415, "CSV"},
		"empty file":     {func() *apitest.Response { return upload("") }, 400, "empty"},
		"header only":    {func() *apitest.Response { return upload(bulkCSVHeader) }, 400, "no customer rows"},
		"unknown column": {func() *apitest.Response { return upload("customerType,platformCustomerId,umaAddress,kycStatus\n") }, 400, `unknown column "kycStatus"`},
		"missing column": {func() *apitest.Response { return upload("customerType,fullName\nINDIVIDUAL,Ana\n") }, 400, "umaAddress, platformCustomerId"},
		"bad quoting": {func() *apitest.Response {
			return upload(good + "INDIVIDUAL,\"c-9,$c9@x\n")
		}, 400, "not valid CSV: line 4"},
		"binary file": {func() *apitest.Response { return upload(good + "INDIVIDUAL,c\x00,x\n") }, 400, "NUL"},
		"not UTF-8":   {func() *apitest.Response { return upload(good + "INDIVIDUAL,c-\xff,x\n") }, 400, "not UTF-8"},
		"too large": {func() *apitest.Response {
			return upload(good + strings.Repeat("INDIVIDUAL,c,$c@x,Ana Lima,1990-04-01,1 Main St,Springfield,IL,62701,US\n", limit/60))
		}, 413, "larger than"},
		"too large, declared": {func() *apitest.Response {
			var b bytes.Buffer
			mw := multipart.NewWriter(&b)
			w, _ := mw.CreateFormFile("file", "customers.csv")
			_, _ = io.WriteString(w, good+strings.Repeat("x", limit))
			_ = mw.Close()
			raw := *c
			raw.SkipValidation = true // a request the client could not have streamed
			return raw.Stream("POST", "/customers/bulk/csv", mw.FormDataContentType(), bytes.NewReader(b.Bytes()))
		}, 413, "larger than"},
		"a record over 1 MiB": {func() *apitest.Response {
			return upload(good + "INDIVIDUAL,\"" + strings.Repeat("y", 1<<20+8<<10) + "\",x\n")
		}, 400, "longer than"},
		"two files": {func() *apitest.Response {
			var b bytes.Buffer
			mw := multipart.NewWriter(&b)
			for range 2 {
				w, _ := mw.CreateFormFile("file", "customers.csv")
				_, _ = io.WriteString(w, good)
			}
			_ = mw.Close()
			return c.Stream("POST", "/customers/bulk/csv", mw.FormDataContentType(), &b)
		}, 400, "more than one part named file"},
		"cut short": {func() *apitest.Response {
			var b bytes.Buffer
			mw := multipart.NewWriter(&b)
			w, _ := mw.CreateFormFile("file", "customers.csv")
			_, _ = io.WriteString(w, good)
			return c.Stream("POST", "/customers/bulk/csv", mw.FormDataContentType(), &b) // no closing boundary
		}, 400, "multipart"},
	} {
		t.Run(name, func(t *testing.T) {
			r := tc.r()
			code := map[int]string{400: "INVALID_INPUT", 413: "PAYLOAD_TOO_LARGE", 415: "INVALID_INPUT"}[tc.status]
			m := expectError(t, r, tc.status, code)
			if !strings.Contains(m["message"].(string), tc.msg) {
				t.Fatalf("message %q, want it to mention %q", m["message"], tc.msg)
			}
		})
	}
	if jobs, rows := e.stagedJobs(t); jobs != 0 || rows != 0 || len(rec.starts) != 0 {
		t.Fatalf("refused uploads left %d jobs, %d staged rows, %d workflow starts", jobs, rows, len(rec.starts))
	}
	// The form may carry other fields around the file.
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("note", "first import")
	w, _ := mw.CreateFormFile("file", "customers.csv")
	_, _ = io.WriteString(w, good)
	_ = mw.WriteField("more", "after the file")
	_ = mw.Close()
	if r := c.Stream("POST", "/customers/bulk/csv", mw.FormDataContentType(), &b); r.Status != http.StatusAccepted {
		t.Fatalf("upload with other fields: %d %s", r.Status, r.Body)
	}
}

// slowFile yields its lines one at a time, pausing before each.
type slowFile struct {
	lines []string
	pause time.Duration
}

func (f *slowFile) Read(p []byte) (int, error) {
	if len(f.lines) == 0 {
		return 0, io.EOF
	}
	time.Sleep(f.pause)
	n := copy(p, f.lines[0])
	f.lines[0] = f.lines[0][n:]
	if f.lines[0] == "" {
		f.lines = f.lines[1:]
	}
	return n, nil
}

// An upload may take longer than the server's read timeout allows other requests
// (PAYCORE_BULK_IMPORT_UPLOAD_TIMEOUT instead), and holds no database connection while
// its file arrives.
func TestBulkUploadOutlastsTheReadTimeout(t *testing.T) {
	t.Parallel()
	e, _ := bulkEnv(t, nil, func(c *config.Config) {
		c.HTTPReadHeaderTimeout, c.HTTPReadTimeout, c.HTTPWriteTimeout = time.Second, time.Second, time.Second
	})
	srv := api.NewHTTPServer(e.cfg, e.api)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	c, p := e.platform(true)
	c.BaseURL = "http://" + ln.Addr().String() + e.cfg.BasePath()
	lines := strings.SplitAfter(bulkCSV(8, p.UmaDomain), "\n")
	// While the file arrives, the upload holds no database connection (it is spooled,
	// then staged at once): slow clients cannot take the pool.
	held := make(chan int32, 1)
	go func() {
		time.Sleep(600 * time.Millisecond)
		most := int32(0)
		for range 20 {
			most = max(most, e.pool.Stat().AcquiredConns())
			time.Sleep(50 * time.Millisecond)
		}
		held <- most
	}()
	r := c.Upload("/customers/bulk/csv", "file", "customers.csv", "text/csv", &slowFile{lines: lines, pause: 300 * time.Millisecond})
	if r.Status != 202 {
		t.Fatalf("slow upload: %d %s", r.Status, r.Body)
	}
	if n := <-held; n != 0 {
		t.Fatalf("the upload held %d database connections while its file arrived", n)
	}
	if jobs, rows := e.stagedJobs(t); jobs != 1 || rows != 8 {
		t.Fatalf("%d jobs, %d staged rows", jobs, rows)
	}
}
