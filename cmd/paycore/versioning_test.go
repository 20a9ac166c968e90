package main

import (
	"context"
	"testing"
	"time"

	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
	"paycore/workflows"
)

// buildOf is the worker build a payment's workflow runs on.
func buildOf(t *testing.T, s *stack, txID string) string {
	t.Helper()
	id, err := ids.Parse(ids.Transaction, txID)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.app.temporal.DescribeWorkflowExecution(context.Background(), workflows.TransferWorkflowID("TRANSFER_OUT", id), "")
	if err != nil {
		t.Fatal(err)
	}
	return d.GetWorkflowExecutionInfo().GetVersioningInfo().GetDeploymentVersion().GetBuildId()
}

// Worker versioning: build v2 of the workers is deployed beside v1 and becomes the
// current version; a payment under way stays pinned to v1 and finishes there, new
// payments run on v2.
func TestWorkerVersioning(t *testing.T) {
	t.Parallel()
	versioned := func(build string) func(*config.Config) {
		return func(c *config.Config) {
			c.SandboxSlowDelay = 6 * time.Second
			c.WorkerBuildID, c.WorkerDeployment, c.WorkerPromote = build, "paycore-"+c.TaskQueue, true
		}
	}
	s := newStack(t, versioned("v1"))
	w := newWorld(t, s)
	w.fund(10_000)
	var slow view.Transaction
	w.transferOut(w.external("005"), 1_000).Decode(t, &slow)
	eventually(t, 20*time.Second, "the slow payment to run on v1", func() bool { return buildOf(t, s, slow.ID) == "v1" })

	secondInstance(t, s, versioned("v2"))
	var next view.Transaction
	eventually(t, 30*time.Second, "a new payment to run on v2", func() bool {
		w.transferOut(w.external("001"), 100).Decode(t, &next)
		w.waitFinal(next.ID, 30*time.Second)
		return buildOf(t, s, next.ID) == "v2"
	})
	if tx := w.waitFinal(slow.ID, time.Minute); tx.Status != "FAILED" || buildOf(t, s, slow.ID) != "v1" {
		t.Fatalf("the pinned payment ended %s on %q", tx.Status, buildOf(t, s, slow.ID))
	}
}
