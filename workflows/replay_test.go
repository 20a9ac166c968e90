package workflows

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Histories recorded from real runs must replay against the current code: webhooks
// (delivered, 410 then undeliverable, a one-attempt TEST send, redelivered), transfers
// (completed, slow then failed, refused), quotes (completed, refunded, returned, expired,
// funded by a deposit, paid to a customer of another platform), incoming payments
// (approved, timed out), invitations (claimed, cancelled, expired), verifications (a business
// approved, its owner's KYC), bulk imports (a run continued as new, the last run) and
// agent actions (executed at once, approved then executed, rejected, expired).
// cmd/paycore's TestRecordHistories refreshes them. A change that breaks replay needs
// workflow.GetVersion.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) < 6 {
		t.Fatalf("recorded histories missing: %v %v", files, err)
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(WebhookDelivery, workflow.RegisterOptions{Name: "WebhookDelivery"})
	r.RegisterWorkflowWithOptions(Transfer, workflow.RegisterOptions{Name: "Transfer"})
	r.RegisterWorkflowWithOptions(Quote, workflow.RegisterOptions{Name: "Quote"})
	r.RegisterWorkflowWithOptions(IncomingPayment, workflow.RegisterOptions{Name: "IncomingPayment"})
	r.RegisterWorkflowWithOptions(Invitation, workflow.RegisterOptions{Name: "Invitation"})
	r.RegisterWorkflowWithOptions(CustomerVerification, workflow.RegisterOptions{Name: "CustomerVerification"})
	r.RegisterWorkflowWithOptions(OwnerKyc, workflow.RegisterOptions{Name: "OwnerKyc"})
	r.RegisterWorkflowWithOptions(BulkImport, workflow.RegisterOptions{Name: "BulkImport"})
	r.RegisterWorkflowWithOptions(AgentAction, workflow.RegisterOptions{Name: "AgentAction"})
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, f := range files {
		if err := r.ReplayWorkflowHistoryFromJSONFile(logger, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
