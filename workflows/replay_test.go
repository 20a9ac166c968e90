package workflows

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Histories recorded from real runs must replay against the current code: webhooks
// (delivered, 410 then undeliverable, a one-attempt TEST send, redelivered), transfers
// (completed, slow then failed, refused), quotes (completed, refunded, returned, expired,
// funded by a deposit, paid to a customer of another platform), incoming payments
// (approved, timed out), invitations (claimed, cancelled, expired), verifications (a business
// approved, its owner's KYC), bulk imports (a run continued as new, the last run; one batch per step and one step per run) and
// agent actions (executed at once, approved then executed, rejected, expired) and transfers an
// operator failed at the rail (during the slow wait, after a retry), and refunds of incoming
// payments (completed, failed at the rail), and wallets' ownership verifications (a sandbox liveness check passed,
// failed).
// cmd/paycore's TestRecordHistories refreshes them. A change that breaks replay needs
// workflow.GetVersion.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) < 6 {
		t.Fatalf("recorded histories missing: %v %v", files, err)
	}
	r := worker.NewWorkflowReplayer()
	for _, d := range All() {
		r.RegisterWorkflowWithOptions(d.Func, workflow.RegisterOptions{Name: d.Name})
	}
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	replayed := map[string]bool{}
	for _, f := range files {
		if err := r.ReplayWorkflowHistoryFromJSONFile(logger, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		h, err := client.HistoryFromJSON(mustOpen(t, f), client.HistoryJSONOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		replayed[h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName()] = true
	}
	// Every workflow the worker runs is guarded by at least one recorded history.
	for _, d := range All() {
		if !replayed[d.Name] {
			t.Errorf("no recorded history replays the %s workflow: record one (cmd/paycore TestRecordHistories)", d.Name)
		}
	}
}

func mustOpen(t *testing.T, path string) io.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
