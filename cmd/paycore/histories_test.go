package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/api/workflowservice/v1"

	"paycore/api"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/infra/config"
	"paycore/internal/operator"
	"paycore/workflows"
	"paycore/workflows/start"
)

// TestRecordHistories records the workflow histories that workflows/replay_test.go
// replays: PAYCORE_RECORD_HISTORIES=../../workflows/testdata go test -run RecordHistories.
// It is skipped otherwise. Each shape of a workflow gets files of its own (the _v2 names:
// the create step answering the rail, the redelivery's reopen step, a bulk import run's one step); the files of earlier
// shapes stay, so running workflows recorded with them keep replaying. One group can be
// recorded alone: -run 'RecordHistories/agent_actions'.
func TestRecordHistories(t *testing.T) {
	dir := os.Getenv("PAYCORE_RECORD_HISTORIES")
	if dir == "" {
		t.Skip("set PAYCORE_RECORD_HISTORIES to a directory to record workflow histories")
	}
	t.Run("payments", func(t *testing.T) { recordPayments(t, dir) })
	t.Run("agent_actions", func(t *testing.T) { recordAgentActions(t, dir) })
	t.Run("operator", func(t *testing.T) { recordOperator(t, dir) })
	t.Run("refunds", func(t *testing.T) { recordRefunds(t, dir) })
	t.Run("bulk_import", func(t *testing.T) { recordBulkImport(t, dir) })
}

// recordRefunds records refunds of transfers in: one completed, one its rail failed.
func recordRefunds(t *testing.T, dir string) {
	s := newStack(t, fast)
	w := newWorld(t, s)
	for name, suffix := range map[string]string{"refund_completed": "001", "refund_failed": "009"} {
		in := w.transferredIn(suffix, 1_000)
		if r := w.refund(in); r.Status != 200 {
			t.Fatalf("refund: %d %s", r.Status, r.Body)
		}
		w.refundEnds(in)
		id, err := ids.Parse(ids.Transaction, in)
		if err != nil {
			t.Fatal(err)
		}
		wid := workflows.RefundWorkflowID(id)
		eventually(t, 30*time.Second, "the workflow to complete", func() bool {
			d, err := s.app.temporal.DescribeWorkflowExecution(context.Background(), wid, "")
			return err == nil && d.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
		})
		recordHistory(t, s, dir, name, wid)
	}
}

// recordOperator records transfers an operator acted on at the rail: one failed during
// the rail's slow wait, one retried then failed.
func recordOperator(t *testing.T, dir string) {
	s := newStack(t, func(c *config.Config) { c.SandboxSlowDelay = time.Hour })
	w := newWorld(t, s)
	w.fund(5_000)
	starter := start.Starter{Client: s.app.temporal, TaskQueue: s.cfg.TaskQueue}
	for _, tc := range []struct {
		name    string
		actions []operator.Action
	}{
		{"transfer_out_failed_by_operator", []operator.Action{operator.Fail}},
		{"transfer_out_retried_then_failed_by_operator", []operator.Action{operator.RetryRail, operator.Fail}},
	} {
		var tx view.Transaction
		w.transferOut(w.external("005"), 1_000).Decode(t, &tx)
		id, err := ids.Parse(ids.Transaction, tx.ID)
		if err != nil {
			t.Fatal(err)
		}
		wid := workflows.TransferWorkflowID("TRANSFER_OUT", id)
		for _, act := range tc.actions {
			eventually(t, 20*time.Second, "the payment to wait at its rail", func() bool {
				_, err := starter.OperatePayment(context.Background(), wid, operator.Request{Action: act, Operator: "alice", Reason: "recorded"})
				return err == nil
			})
		}
		eventually(t, 30*time.Second, "the workflow to complete", func() bool {
			d, err := s.app.temporal.DescribeWorkflowExecution(context.Background(), wid, "")
			return err == nil && d.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
		})
		recordHistory(t, s, dir, tc.name, wid)
	}

	// A payment whose workflow was terminated under it, failed by an operator.
	var tx view.Transaction
	w.transferOut(w.external("005"), 1_000).Decode(t, &tx)
	id, err := ids.Parse(ids.Transaction, tx.ID)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the payment to wait at its rail", func() bool {
		return historyMentions(t, s, workflows.TransferWorkflowID("TRANSFER_OUT", id), enums.EVENT_TYPE_TIMER_STARTED, "")
	})
	if err := s.app.temporal.TerminateWorkflow(context.Background(), workflows.TransferWorkflowID("TRANSFER_OUT", id), "", "recorded"); err != nil {
		t.Fatal(err)
	}
	if _, err := starter.EndPayment(context.Background(), workflows.EndPaymentRequest{TransactionID: id, Kind: "TRANSFER_OUT",
		Request: operator.Request{Action: operator.Fail, Operator: "alice", Reason: "recorded"}}); err != nil {
		t.Fatal(err)
	}
	recordHistory(t, s, dir, "end_payment_failed_by_operator", workflows.EndPaymentWorkflowID(id))

	// A payment between platforms whose receiving account was closed before it ran.
	u := newStack(t, func(c *config.Config) { quoteFast(c); c.ApprovalDeadline = 3 * time.Second })
	q := payUmaToClosedAccount(t, u)
	qid, err := ids.Parse(ids.Quote, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the quote's workflow to complete", func() bool {
		d, err := u.app.temporal.DescribeWorkflowExecution(context.Background(), workflows.QuoteWorkflowID(qid), "")
		return err == nil && d.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
	})
	recordHistory(t, u, dir, "quote_uma_receiver_closed", workflows.QuoteWorkflowID(qid))
}

// recordPayments records transfers, quotes, incoming payments, a webhook redelivery and a
// bulk import.
func recordPayments(t *testing.T, dir string) {
	s := newStack(t, func(c *config.Config) {
		c.SandboxSlowDelay, c.QuoteLifetime, c.ApprovalDeadline = time.Second, 5*time.Second, time.Second
		quoteFast(c)
	})
	w := newWorld(t, s)
	w.fund(5000)
	record := func(name, workflowID string, runID ...string) { recordHistory(t, s, dir, name, workflowID, runID...) }
	for _, tc := range []struct{ name, suffix string }{{"transfer_out_completed_v2", "001"}, {"transfer_out_slow_failed_v2", "005"}} {
		var tx view.Transaction
		w.transferOut(w.external(tc.suffix), 1000).Decode(t, &tx)
		w.waitFinal(tx.ID, 30*time.Second)
		id, err := ids.Parse(ids.Transaction, tx.ID)
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, 10*time.Second, "workflow completion", func() bool {
			d, err := s.app.temporal.DescribeWorkflowExecution(context.Background(), workflows.TransferWorkflowID("TRANSFER_OUT", id), "")
			return err == nil && d.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
		})
		record(tc.name, workflows.TransferWorkflowID("TRANSFER_OUT", id))
	}
	// A refused transfer (insufficient funds): the update fails and the workflow ends.
	r := w.transferOut(w.external("001"), 1_000_000, "Idempotency-Key", "refused")
	if r.Status != 400 {
		t.Fatalf("refused transfer: %d %s", r.Status, r.Body)
	}
	rows, err := s.app.temporal.ListWorkflow(context.Background(), listRequest(`ExecutionStatus = "Completed" AND WorkflowType = "Transfer"`))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rows.Executions {
		if d, _ := s.app.temporal.DescribeWorkflowExecution(context.Background(), e.Execution.WorkflowId, ""); d != nil && d.WorkflowExecutionInfo.HistoryLength < 12 {
			record("transfer_out_refused_v2", e.Execution.WorkflowId)
		}
	}
	// Quotes: paid, refunded after a failed payout, returned by the receiving bank, expired.
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	w.fund(100_000)
	awaitClosed := func(workflowID string) {
		eventually(t, 30*time.Second, "workflow completion", func() bool {
			d, err := s.app.temporal.DescribeWorkflowExecution(context.Background(), workflowID, "")
			return err == nil && d.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
		})
	}
	for _, tc := range []struct{ name, suffix string }{{"quote_completed", "001"}, {"quote_refunded", "004"}, {"quote_returned", "005"}, {"quote_expired", ""}} {
		q := w.newQuote(w.euroAccount(tc.suffix+map[bool]string{true: "001"}[tc.suffix == ""]), 1000)
		if tc.suffix != "" {
			if r := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil); r.Status != 200 {
				t.Fatalf("execute: %d %s", r.Status, r.Body)
			}
		}
		id, err := ids.Parse(ids.Quote, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		awaitClosed(workflows.QuoteWorkflowID(id))
		record(tc.name, workflows.QuoteWorkflowID(id))
	}
	// A quote funded by a deposit, and one paying a customer of another platform (the
	// receiving side a child workflow).
	rq := w.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "REALTIME_FUNDING", "currency": "USD", "customerId": w.customer},
		"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": w.euroAccount("001")}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 1000})
	var fq view.Quote
	rq.Decode(t, &fq)
	if r := w.c.Do("POST", "/sandbox/send", map[string]any{"quoteId": fq.ID, "currencyCode": "USD"}); r.Status != 200 {
		t.Fatalf("deposit: %d %s", r.Status, r.Body)
	}
	fid, _ := ids.Parse(ids.Quote, fq.ID)
	awaitClosed(workflows.QuoteWorkflowID(fid))
	record("quote_realtime_funded", workflows.QuoteWorkflowID(fid))
	oc, _ := s.platform(true)
	if r := oc.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	var receiver api.Customer
	oc.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "DE", "fullName": "Grace Hopper", "currencies": []string{"EUR"}}).Decode(t, &receiver)
	uq := w.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": w.account},
		"destination": map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": receiver.UmaAddress}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 1000})
	var umaQuote view.Quote
	uq.Decode(t, &umaQuote)
	if r := w.c.Do("POST", "/quotes/"+umaQuote.ID+"/execute", nil); r.Status != 200 {
		t.Fatalf("execute: %d %s", r.Status, r.Body)
	}
	uid, _ := ids.Parse(ids.Quote, umaQuote.ID)
	awaitClosed(workflows.QuoteWorkflowID(uid))
	record("quote_uma_between_platforms", workflows.QuoteWorkflowID(uid))
	// Incoming UMA payments: approved by the platform's webhook, and timed out after a 202.
	ap := newApprover(t)
	ap.answer[1006] = reply(202, ``)
	setEndpointDirect(t, s, w.platform, ap.srv.URL)
	for _, tc := range []struct {
		name   string
		amount int64
	}{{"incoming_approved", 1000}, {"incoming_timed_out", 1006}} {
		r := w.c.Do("POST", "/sandbox/uma/receive", map[string]any{"senderUmaAddress": "$success.usd@" + incoming.SandboxDomain,
			"customerId": w.customer, "receivingCurrencyCode": "USD", "receivingCurrencyAmount": tc.amount})
		var tx view.Transaction
		r.Decode(t, &tx)
		id, err := ids.Parse(ids.Transaction, tx.ID)
		if err != nil {
			t.Fatalf("receive: %d %s", r.Status, r.Body)
		}
		awaitClosed(workflows.IncomingWorkflowID(id))
		record(tc.name, workflows.IncomingWorkflowID(id))
	}
	// A redelivery: its run reopens the event before delivering it.
	rc := newReceiver(t, nil)
	setEndpointDirect(t, s, w.platform, rc.srv.URL)
	ev := recordEvent(t, s, w.platform, map[string]any{})
	eventually(t, 20*time.Second, "the delivery", func() bool { return eventStatus(t, w.c, ev).Status == "DELIVERED" })
	eventually(t, 10*time.Second, "the delivery to close", func() bool {
		d, err := s.app.temporal.DescribeWorkflowExecution(context.Background(), workflows.WebhookDeliveryWorkflowID(ev), "")
		return err == nil && d.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
	})
	if r := w.c.Do("POST", "/webhooks/events/"+ev+"/redeliver", nil); r.Status != 202 {
		t.Fatalf("redeliver: %d %s", r.Status, r.Body)
	}
	eventually(t, 20*time.Second, "the redelivery to close", func() bool {
		d, err := s.app.temporal.DescribeWorkflowExecution(context.Background(), workflows.WebhookDeliveryWorkflowID(ev), "")
		return err == nil && d.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED && rc.count() == 2
	})
	record("webhook_delivery_redelivered", workflows.WebhookDeliveryWorkflowID(ev))
}

// recordAgentActions records agent actions: executed at once (AUTO), approved then
// executed, rejected, and expired (a short approval lifetime).
func recordAgentActions(t *testing.T, dir string) {
	s := newStack(t, func(c *config.Config) {
		fast(c)
		c.AgentApprovalLifetime = 3 * time.Second
	})
	w := newAgentWorld(t, s, 10_000, usdPolicy(5_000, map[string]any{
		"approvalThresholds": map[string]any{"currency": "USD", "amount": 1_000}}))
	recorded := func(name string, a view.AgentAction) {
		t.Helper()
		id, err := ids.Parse(ids.AgentAction, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		wid := workflows.AgentActionWorkflowID(id, "")
		eventually(t, 30*time.Second, "the action's workflow to complete", func() bool {
			d, err := s.app.temporal.DescribeWorkflowExecution(context.Background(), wid, "")
			return err == nil && d.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
		})
		recordHistory(t, s, dir, name, wid)
	}
	if a := w.action(w.transferOutAs(500), 201); a.Status != "APPROVED" || a.Transaction == nil {
		t.Fatalf("AUTO action %+v", a)
	} else {
		recorded("agent_action_auto", a)
	}
	approved := w.action(w.transferOutAs(1_500), 201)
	if a := w.action(w.c.Do("POST", "/agents/"+w.agentID+"/actions/"+approved.ID+"/approve", nil), 200); a.Status != "APPROVED" || a.Transaction == nil {
		t.Fatalf("approved action %+v", a)
	}
	recorded("agent_action_approved", approved)
	rejected := w.action(w.transferOutAs(2_000), 201)
	if a := w.action(w.c.Do("POST", "/agents/"+w.agentID+"/actions/"+rejected.ID+"/reject", map[string]any{"reason": "not this week"}), 200); a.Status != "REJECTED" {
		t.Fatalf("rejected action %+v", a)
	}
	recorded("agent_action_rejected", rejected)
	expired := w.action(w.transferOutAs(2_500), 201)
	if expired.Status != "PENDING_APPROVAL" {
		t.Fatalf("pending action %+v", expired)
	}
	recorded("agent_action_expired", expired)
	if a := w.action(w.as("GET", "/agents/me/actions/"+expired.ID, nil), 200); a.Status != "FAILED" || a.FailureReason == nil || *a.FailureReason != "APPROVAL_EXPIRED" {
		t.Fatalf("expired action %+v", a)
	}
}

// recordBulkImport records a bulk import of 12 rows in batches of 5, 2 per run: its first
// run (continued as new) and its last (the job's end).
func recordBulkImport(t *testing.T, dir string) {
	s := newStack(t, func(c *config.Config) { c.BulkImportBatchSize, c.BulkImportBatchesPerRun = 5, 2 })
	record := func(name, workflowID string, runID ...string) { recordHistory(t, s, dir, name, workflowID, runID...) }
	c, p := s.platform(true)
	id := uploadBulk(t, c, bulkFile(12, p.UmaDomain))
	eventually(t, 30*time.Second, "the import to end", func() bool { return bulkJob(t, c, id).Status == "COMPLETED" })
	jid, _ := ids.Parse(ids.Job, id)
	wid := workflows.BulkImportWorkflowID(jid)
	var runs *workflowservice.ListWorkflowExecutionsResponse
	eventually(t, 10*time.Second, "both runs to be listed", func() bool {
		var err error
		runs, err = s.app.temporal.ListWorkflow(context.Background(), listRequest(fmt.Sprintf(`WorkflowId = %q AND ExecutionStatus != "Running"`, wid)))
		return err == nil && len(runs.Executions) == 2
	})
	for _, e := range runs.Executions {
		switch e.Status {
		case enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
			record("bulk_import_continued_v2", wid, e.Execution.RunId)
		case enums.WORKFLOW_EXECUTION_STATUS_COMPLETED:
			record("bulk_import_completed_v2", wid, e.Execution.RunId)
		}
	}
}

// recordHistory writes the history of a workflow to dir/name.json.
func recordHistory(t *testing.T, s *stack, dir, name, workflowID string, runID ...string) {
	t.Helper()
	iter := s.app.temporal.GetWorkflowHistory(context.Background(), workflowID, strings.Join(runID, ""), false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, ev)
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	// Worker identities and sticky queues carry the machine's name; keep it out.
	if host, err := os.Hostname(); err == nil && host != "" {
		b = []byte(strings.ReplaceAll(string(b), "@"+host+"@", "@worker@"))
		b = []byte(strings.ReplaceAll(string(b), "\""+host+":", "\"worker:"))
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func listRequest(query string) *workflowservice.ListWorkflowExecutionsRequest {
	return &workflowservice.ListWorkflowExecutionsRequest{Query: query}
}
