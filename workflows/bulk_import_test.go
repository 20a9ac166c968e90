package workflows

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/catalog"
)

// fakeJob stands for a job's row in the database: batches advance its cursor when they
// start from it, and answer where it stands otherwise, as db.BulkImportBatch does.
type fakeJob struct {
	total   int // rows; the last is row total+1
	lastRow int
	batches []string // "after→lastRow" of every batch call, in order
	// commitThenFail makes the batch starting at this cursor commit, then fail (the worker
	// died before its result was recorded): the workflow runs it again.
	commitThenFail int
	// transient makes the first call fail without committing.
	transient bool
}

func (j *fakeJob) batch(_ context.Context, b activities.BulkBatch) (activities.BulkProgress, error) {
	if j.transient {
		j.transient = false
		j.batches = append(j.batches, fmt.Sprintf("%d→error", b.After))
		return activities.BulkProgress{}, errors.New("connection refused")
	}
	if b.After == j.lastRow && j.lastRow < j.total+1 {
		j.lastRow = min(j.lastRow+b.Size*max(b.Batches, 1), j.total+1)
	}
	j.batches = append(j.batches, fmt.Sprintf("%d→%d", b.After, j.lastRow))
	if b.After == j.commitThenFail {
		j.commitThenFail = -1
		return activities.BulkProgress{}, errors.New("worker lost")
	}
	p := activities.BulkProgress{LastRow: j.lastRow, Status: catalog.BulkProcessing, Done: j.lastRow == j.total+1}
	if p.Done {
		p.Status = catalog.BulkCompleted
	}
	return p, nil
}

// runBulkImport runs a job's workflow run after run (each continue-as-new starts the next
// with the input it carries) and returns the runs' inputs.
func runBulkImport(t *testing.T, job *fakeJob, in BulkImportInput) []BulkImportInput {
	t.Helper()
	var runs []BulkImportInput
	for range 100 {
		runs = append(runs, in)
		env := newEnv(t)
		var a *activities.Activities
		env.OnActivity(a.ImportBulkBatch, mock.Anything, mock.Anything).Return(job.batch)
		env.ExecuteWorkflow(BulkImport, in)
		if !env.IsWorkflowCompleted() {
			t.Fatal("the run did not complete")
		}
		err := env.GetWorkflowError()
		if err == nil {
			return runs
		}
		var cont *workflow.ContinueAsNewError
		if !errors.As(err, &cont) || cont.WorkflowType.Name != "BulkImport" {
			t.Fatalf("run %d ended with %v", len(runs), err)
		}
		if err := converter.GetDefaultDataConverter().FromPayloads(cont.Input, &in); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("the workflow never ended")
	return nil
}

// A job of 23 rows in batches of 5, 2 batches per run: each run's step takes two batches
// from the cursor it carries, then the run continues as new; the last batch ends it.
func TestBulkImportBatchesAndContinuesAsNew(t *testing.T) {
	job := &fakeJob{total: 23, lastRow: 1}
	in := BulkImportInput{JobID: uuid.New(), PlatformID: uuid.New(), After: 1, BatchSize: 5, BatchesPerRun: 2}
	runs := runBulkImport(t, job, in)
	if got := fmt.Sprint(job.batches); got != "[1→11 11→21 21→24]" {
		t.Fatalf("batches %s", got)
	}
	var afters []int
	for _, r := range runs {
		afters = append(afters, r.After)
		if r.JobID != in.JobID || r.BatchSize != 5 || r.BatchesPerRun != 2 {
			t.Fatalf("a run lost its job: %+v", r)
		}
	}
	if fmt.Sprint(afters) != "[1 11 21]" {
		t.Fatalf("runs started from %v", afters)
	}
}

// A batch that committed but whose result was lost runs again: the job answers where it
// stands and the workflow carries on from there, so no batch is imported twice; a
// transient failure is retried.
func TestBulkImportRetriedBatchesCarryOnFromTheJob(t *testing.T) {
	job := &fakeJob{total: 12, lastRow: 1, commitThenFail: 6, transient: true}
	runBulkImport(t, job, BulkImportInput{JobID: uuid.New(), After: 1, BatchSize: 5, BatchesPerRun: 1})
	if got := fmt.Sprint(job.batches); got != "[1→error 1→6 6→11 6→11 11→13]" {
		t.Fatalf("batches %s", got)
	}
	// A run started again from the first cursor (the worker's starter, a stale input) of
	// an ended job ends at once.
	again := runBulkImport(t, job, BulkImportInput{JobID: uuid.New(), After: 1, BatchSize: 5, BatchesPerRun: 10})
	if len(again) != 1 || fmt.Sprint(job.batches[len(job.batches)-1]) != "1→13" {
		t.Fatalf("a stale run: %v", job.batches)
	}
}
