package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"

	"paycore/api"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
	"paycore/workflows"
)

// operate runs a paycore command against the stack, as an operator would.
func operate(t *testing.T, s *stack, args ...string) (string, error) {
	t.Helper()
	t.Setenv("PAYCORE_DATABASE_URL", s.cfg.DatabaseURL)
	t.Setenv("PAYCORE_MASTER_KEY", s.cfg.MasterKey)
	t.Setenv("PAYCORE_TEMPORAL_ADDRESS", s.cfg.TemporalAddress)
	t.Setenv("PAYCORE_TASK_QUEUE", s.cfg.TaskQueue)
	var out bytes.Buffer
	err := run(args, &out)
	return out.String(), err
}

// historyMentions reports whether the workflow's history has an event of type whose
// attributes mention text.
func historyMentions(t *testing.T, s *stack, workflowID string, typ enums.EventType, text string) bool {
	t.Helper()
	it := s.app.temporal.GetWorkflowHistory(context.Background(), workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.GetEventType() == typ && strings.Contains(ev.String(), text) {
			return true
		}
	}
	return false
}

// stuckPayments runs `paycore payments stuck -older-than olderThan` and decodes its list.
func stuckPayments(t *testing.T, s *stack, olderThan string) []map[string]any {
	t.Helper()
	out, err := operate(t, s, "payments", "stuck", "-older-than", olderThan)
	if err != nil {
		t.Fatalf("payments stuck: %v", err)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("payments stuck printed %q: %v", out, err)
	}
	return list
}

// The operator's runbook on a payment stuck at its rail (the sandbox's slow scenario, made
// to last an hour): `payments stuck` lists it with its workflow, `payments fail` fails it
// with the hold released and the reason recorded, `payments retry` submits another one
// again, `webhooks redeliver` sends an event again; each action is in the workflow's
// history with the operator's name.
func TestOperatorRunbook(t *testing.T) {
	s := newStack(t, func(c *config.Config) { c.SandboxSlowDelay = time.Hour })
	w := newWorld(t, s)
	w.fund(5_000)
	stuck := func() []map[string]any { t.Helper(); return stuckPayments(t, s, "0s") }
	slow := func() view.Transaction {
		t.Helper()
		var tx view.Transaction
		w.transferOut(w.external("005"), 1_000).Decode(t, &tx)
		eventually(t, 20*time.Second, "the payment to wait at its rail", func() bool {
			id, _ := ids.Parse(ids.Transaction, tx.ID)
			return historyMentions(t, s, workflows.TransferWorkflowID("TRANSFER_OUT", id), enums.EVENT_TYPE_TIMER_STARTED, "")
		})
		return tx
	}

	tx := slow()
	list := stuck()
	id, _ := ids.Parse(ids.Transaction, tx.ID)
	workflowID := workflows.TransferWorkflowID("TRANSFER_OUT", id)
	if len(list) != 1 || list[0]["transactionId"] != tx.ID || list[0]["status"] != "PROCESSING" || list[0]["workflowId"] != workflowID {
		t.Fatalf("stuck payments %v", list)
	}
	if w.balance() != 4_000 {
		t.Fatalf("balance %d with the hold", w.balance())
	}

	// Refused: no reason, no operator, a transaction that does not exist.
	for _, args := range [][]string{
		{"payments", "fail", "-transaction", tx.ID, "-operator", "alice"},
		{"payments", "fail", "-transaction", tx.ID, "-reason", "why not"},
		{"payments", "retry", "-transaction", "Transaction:00000000-0000-0000-0000-000000000000", "-operator", "alice"},
		{"payments", "stuck", "-status", "COMPLETED"},
	} {
		if _, err := operate(t, s, args...); err == nil {
			t.Fatalf("%v was not refused", args)
		}
	}

	out, err := operate(t, s, "payments", "fail", "-transaction", tx.ID, "-operator", "alice", "-reason", "the bank confirmed it never left")
	if err != nil || !strings.Contains(out, `"FAILED"`) {
		t.Fatalf("payments fail: %v %s", err, out)
	}
	final := w.transaction(tx.ID)
	if final.Status != "FAILED" || final.FailureDetails == nil || final.FailureDetails.Code != "FAILED_BY_OPERATOR" ||
		!strings.Contains(final.FailureDetails.Message, "alice") || !strings.Contains(final.FailureDetails.Message, "never left") {
		t.Fatalf("failed transaction %+v", final)
	}
	if w.balance() != 5_000 {
		t.Fatalf("balance %d: the hold was not released", w.balance())
	}
	if !historyMentions(t, s, workflowID, enums.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, "alice") {
		t.Fatal("the workflow's history does not show alice's action")
	}
	if got := stuck(); len(got) != 0 {
		t.Fatalf("still stuck: %v", got)
	}
	if _, err := operate(t, s, "payments", "fail", "-transaction", tx.ID, "-operator", "alice", "-reason", "again"); err == nil {
		t.Fatal("failing a failed payment was not refused")
	}

	// A retry submits the payment to its rail again at once (a second rail call).
	tx2 := slow()
	id2, _ := ids.Parse(ids.Transaction, tx2.ID)
	out, err = operate(t, s, "payments", "retry", "-transaction", tx2.ID, "-operator", "bob")
	if err != nil || !strings.Contains(out, `"PROCESSING"`) {
		t.Fatalf("payments retry: %v %s", err, out)
	}
	wf2 := workflows.TransferWorkflowID("TRANSFER_OUT", id2)
	eventually(t, 20*time.Second, "the second rail call", func() bool {
		n := 0
		it := s.app.temporal.GetWorkflowHistory(context.Background(), wf2, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if ev.GetEventType() == enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && strings.Contains(ev.String(), "SubmitTransfer") {
				n++
			}
		}
		return n == 2
	})
	if !historyMentions(t, s, wf2, enums.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, "bob") {
		t.Fatal("the workflow's history does not show bob's retry")
	}

	// Redelivering the failed payment's event: a new delivery run whose input names the
	// operator.
	var eventID string
	if err := s.app.pool.QueryRow(context.Background(), "SELECT 'Webhook:' || id FROM webhook_events WHERE data->>'id' = $1 AND type = 'OUTGOING_PAYMENT_FAILED'", tx.ID).Scan(&eventID); err != nil {
		t.Fatal(err)
	}
	if _, err := operate(t, s, "webhooks", "redeliver", "-event", eventID); err == nil {
		t.Fatal("a redelivery without an operator was not refused")
	}
	if out, err := operate(t, s, "webhooks", "redeliver", "-event", eventID, "-operator", "carol"); err != nil {
		t.Fatalf("webhooks redeliver: %v %s", err, out)
	}
	eventually(t, 20*time.Second, "the redelivery run", func() bool {
		return historyMentions(t, s, workflows.WebhookDeliveryWorkflowID(eventID), enums.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, "carol")
	})
}

// A payment whose workflow ended before it did can never finish on its own: `payments
// stuck` lists it at once, whatever -older-than says, with what Temporal says of its
// workflow (a payment whose workflow still runs waits -older-than first); `payments retry`
// is refused, and `payments fail` fails it through a workflow of its own (EndPayment),
// its hold released.
func TestStuckListsPaymentsWhoseWorkflowEnded(t *testing.T) {
	s := newStack(t, func(c *config.Config) { c.SandboxSlowDelay = time.Hour })
	w := newWorld(t, s)
	w.fund(5_000)
	stuck := func() []map[string]any { t.Helper(); return stuckPayments(t, s, "1h") }
	var tx view.Transaction
	w.transferOut(w.external("005"), 1_000).Decode(t, &tx)
	id, _ := ids.Parse(ids.Transaction, tx.ID)
	workflowID := workflows.TransferWorkflowID("TRANSFER_OUT", id)
	eventually(t, 20*time.Second, "the payment to wait at its rail", func() bool {
		return historyMentions(t, s, workflowID, enums.EVENT_TYPE_TIMER_STARTED, "")
	})
	if got := stuck(); len(got) != 0 {
		t.Fatalf("a payment whose workflow runs, waiting less than an hour, is listed: %v", got)
	}
	if err := s.app.temporal.TerminateWorkflow(context.Background(), workflowID, "", "the workflow is gone under its payment"); err != nil {
		t.Fatal(err)
	}
	list := stuck()
	if len(list) != 1 || list[0]["transactionId"] != tx.ID || list[0]["status"] != "PROCESSING" || list[0]["workflowId"] != workflowID ||
		list[0]["workflowStatus"] != "TERMINATED" || list[0]["stuck"] != "WORKFLOW_NOT_RUNNING" {
		t.Fatalf("stuck payments once the workflow ended: %v", list)
	}
	if _, err := operate(t, s, "payments", "retry", "-transaction", tx.ID, "-operator", "alice"); err == nil || !strings.Contains(err.Error(), "has ended") {
		t.Fatalf("retrying a payment whose workflow ended: %v", err)
	}
	// The operator fails it: a workflow of its own finishes it, FAILED with the hold released.
	out, err := operate(t, s, "payments", "fail", "-transaction", tx.ID, "-operator", "alice", "-reason", "its workflow was terminated")
	if err != nil || !strings.Contains(out, `"FAILED"`) {
		t.Fatalf("payments fail: %v %s", err, out)
	}
	final := w.transaction(tx.ID)
	if final.Status != "FAILED" || final.FailureDetails == nil || final.FailureDetails.Code != "FAILED_BY_OPERATOR" || !strings.Contains(final.FailureDetails.Message, "alice") {
		t.Fatalf("failed transaction %+v", final)
	}
	if w.balance() != 5_000 {
		t.Fatalf("balance %d: the hold was not released", w.balance())
	}
	if !historyMentions(t, s, workflows.EndPaymentWorkflowID(id), enums.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, "alice") {
		t.Fatal("the failing workflow's history does not name alice")
	}
	if got := stuck(); len(got) != 0 {
		t.Fatalf("still stuck: %v", got)
	}
	checkLedger(t, s)
}

// A verification waiting in PENDING_MANUAL_REVIEW (the sandbox's 001 suffix; every
// production verification) is decided by an operator: `verifications review` approves it,
// the customer follows with its webhook, the workflow's history names the operator, and a
// second decision is refused.
func TestOperatorReviewsVerification(t *testing.T) {
	s := newStack(t, kycFast)
	c, _ := s.unregulatedPlatform()
	var cust api.Customer
	c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "fullName": "Ana García 001",
		"birthDate": "1990-05-17", "nationality": "US", "currencies": []string{"USD"},
		"address": map[string]any{"line1": "1 Main St", "postalCode": "94105", "country": "US"}}).Decode(t, &cust)
	upload(t, c, cust.ID, "PASSPORT")
	var v view.Verification
	c.Do("POST", "/verifications", map[string]any{"customerId": cust.ID}).Decode(t, &v)
	if v = waitVerification(t, c, v.ID); v.VerificationStatus != "PENDING_MANUAL_REVIEW" {
		t.Fatalf("verification %+v", v)
	}
	for _, args := range [][]string{
		{"verifications", "review", "-verification", v.ID, "-decision", "REJECTED", "-operator", "dora"}, // no reason
		{"verifications", "review", "-verification", v.ID, "-decision", "APPROVED"},                      // no operator
		{"verifications", "review", "-verification", v.ID, "-decision", "MAYBE", "-operator", "dora"},
	} {
		if _, err := operate(t, s, args...); err == nil {
			t.Fatalf("%v was not refused", args)
		}
	}
	out, err := operate(t, s, "verifications", "review", "-verification", v.ID, "-decision", "APPROVED", "-operator", "dora", "-reason", "passport checked by hand")
	if err != nil || !strings.Contains(out, `"APPROVED"`) {
		t.Fatalf("verifications review: %v %s", err, out)
	}
	var after api.Customer
	c.Do("GET", "/customers/"+cust.ID, nil).Decode(t, &after)
	if after.KycStatus == nil || *after.KycStatus != "APPROVED" {
		t.Fatalf("customer after the review: %+v", after.KycStatus)
	}
	if got := kycEvents(t, s, cust.ID); len(got) < 2 || got[len(got)-2] != "CUSTOMER_KYC_APPROVED" || got[len(got)-1] != "VERIFICATION_APPROVED" {
		t.Fatalf("events %v", got)
	}
	custID, _ := ids.Parse(ids.Customer, cust.ID)
	if !historyMentions(t, s, workflows.CustomerVerificationWorkflowID(custID), enums.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, "dora") {
		t.Fatal("the verification workflow's history does not name the operator")
	}
	if _, err := operate(t, s, "verifications", "review", "-verification", v.ID, "-decision", "REJECTED", "-operator", "dora", "-reason", "changed my mind"); err == nil {
		t.Fatal("a second decision was not refused")
	}
}
