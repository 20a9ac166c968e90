package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/incoming"
	"paycore/internal/infra/config"
)

func (w *world) refund(id string) *apitest.Response {
	return w.c.Do("POST", "/transactions/"+id+"/refund", nil)
}

// refundEnds waits until the refund of id is no longer PENDING and returns the transaction.
func (w *world) refundEnds(id string) view.Transaction {
	w.t.Helper()
	var tx view.Transaction
	eventually(w.t, 30*time.Second, "the refund of "+id+" to end", func() bool {
		tx = w.transaction(id)
		return tx.Refund != nil && tx.Refund.Status != "PENDING"
	}, func() string { return fmt.Sprintf("%+v", tx.Refund) })
	return tx
}

// transferredIn is a completed transfer in of amount from a new external account whose
// identifier ends in suffix.
func (w *world) transferredIn(suffix string, amount int64) string {
	w.t.Helper()
	r := w.transferIn(w.external(suffix), amount)
	if r.Status != 201 {
		w.t.Fatalf("transfer in: %d %s", r.Status, r.Body)
	}
	id := r.JSON(w.t)["id"].(string)
	if tx := w.waitFinal(id, 20*time.Second); tx.Status != "COMPLETED" {
		w.t.Fatalf("transfer in: %s", tx.Status)
	}
	return id
}

// A platform sends completed incoming payments back: the amount is held at once, then
// leaves (REFUNDED, refund COMPLETED) or comes back (refund FAILED, still COMPLETED), each
// step announced; a second refund, an outgoing payment, a refund the account cannot cover
// and another platform's payment are refused with nothing moved; the ledger stays
// balanced.
func TestRefundIncomingPayments(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) { c.SandboxSlowDelay = 2 * time.Second })
	w := newWorld(t, s)

	// A transfer in goes back to its external account.
	in := w.transferredIn("001", 5_000)
	r := w.refund(in)
	if r.Status != 200 {
		t.Fatalf("refund: %d %s", r.Status, r.Body)
	}
	var answered view.Transaction
	r.Decode(t, &answered)
	if answered.Refund == nil || answered.Refund.Reason == nil || *answered.Refund.Reason != "USER_CANCELLATION" {
		t.Fatalf("answer: %s", r.Body)
	}
	tx := w.refundEnds(in)
	if tx.Status != "REFUNDED" || tx.Refund.Status != "COMPLETED" || tx.Refund.SettledAt == nil || w.balance() != 0 {
		t.Fatalf("refunded: %s %+v, balance %d", tx.Status, tx.Refund, w.balance())
	}
	if got := w.events(in); !slices.Equal(got, []string{"INCOMING_PAYMENT_PENDING", "INCOMING_PAYMENT_COMPLETED", "INCOMING_PAYMENT_REFUND_PENDING", "INCOMING_PAYMENT_REFUND_COMPLETED"}) {
		t.Errorf("events: %v", got)
	}
	if r := w.refund(in); r.Status != 409 || r.Code(t) != "TRANSACTION_NOT_REFUNDABLE" {
		t.Fatalf("second refund: %d %s", r.Status, r.Body)
	}

	// The sender's bank refuses the refund (009): the money stays on the account.
	rejected := w.transferredIn("009", 3_000)
	if r := w.refund(rejected); r.Status != 200 {
		t.Fatalf("refund: %d %s", r.Status, r.Body)
	}
	tx = w.refundEnds(rejected)
	if tx.Status != "COMPLETED" || tx.Refund.Status != "FAILED" || tx.Refund.SettledAt != nil || w.balance() != 3_000 {
		t.Fatalf("failed refund: %s %+v, balance %d", tx.Status, tx.Refund, w.balance())
	}
	if got := w.events(rejected); !slices.Contains(got, "INCOMING_PAYMENT_REFUND_FAILED") {
		t.Errorf("events: %v", got)
	}

	// Money the account no longer has cannot go back; nothing is written.
	spent := w.transferredIn("001", 2_000)
	if r := w.transferOut(w.external("001"), 4_000); r.Status != 201 {
		t.Fatalf("transfer out: %d %s", r.Status, r.Body)
	}
	if r := w.refund(spent); r.Status != 400 || r.Code(t) != "INSUFFICIENT_FUNDS" {
		t.Fatalf("uncovered refund: %d %s", r.Status, r.Body)
	}
	if tx := w.transaction(spent); tx.Refund != nil || tx.Status != "COMPLETED" {
		t.Fatalf("an uncovered refund was written: %+v", tx)
	}

	// A UMA payment received from a sandbox address goes back to the sender.
	r = w.c.Do("POST", "/sandbox/uma/receive", map[string]any{"senderUmaAddress": "$success.usd@" + incoming.SandboxDomain,
		"customerId": w.customer, "receivingCurrencyCode": "USD", "receivingCurrencyAmount": 1_200})
	if r.Status != 200 && r.Status != 201 {
		t.Fatalf("receive: %d %s", r.Status, r.Body)
	}
	uma := r.JSON(t)["id"].(string)
	eventually(t, 20*time.Second, "the UMA payment to complete", func() bool { return w.transaction(uma).Status == "COMPLETED" })
	before := w.balance()
	if r := w.refund(uma); r.Status != 200 {
		t.Fatalf("refund UMA: %d %s", r.Status, r.Body)
	}
	if tx := w.refundEnds(uma); tx.Status != "REFUNDED" || w.balance() != before-1_200 {
		t.Fatalf("UMA refund: %s %+v, balance %d", tx.Status, tx.Refund, w.balance())
	}

	// Outgoing payments are not refunded; another platform's payment is not found.
	out := w.transferOut(w.external("001"), 100).JSON(t)["id"].(string)
	if r := w.refund(out); r.Status != 409 || r.Code(t) != "TRANSACTION_NOT_REFUNDABLE" {
		t.Fatalf("outgoing: %d %s", r.Status, r.Body)
	}
	other := newWorld(t, s)
	if r := other.refund(rejected); r.Status != 404 {
		t.Fatalf("another platform's payment: %d %s", r.Status, r.Body)
	}
	checkLedger(t, s)
}

// An operator fails a refund stuck at its rail (a refund to `$pending.long.usd`, made to
// wait an hour) with `payments fail`: the refund is FAILED, the held amount is back on the
// account and the payment stays COMPLETED.
func TestOperatorFailsRefund(t *testing.T) {
	s := newStack(t, func(c *config.Config) { c.SandboxSlowDelay, c.QuoteSlowDelay = time.Hour, time.Second })
	w := newWorld(t, s)
	r := w.c.Do("POST", "/sandbox/uma/receive", map[string]any{"senderUmaAddress": "$pending.long.usd@" + incoming.SandboxDomain,
		"customerId": w.customer, "receivingCurrencyCode": "USD", "receivingCurrencyAmount": 900})
	if r.Status != 200 && r.Status != 201 {
		t.Fatalf("receive: %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["id"].(string)
	eventually(t, 30*time.Second, "the UMA payment to complete", func() bool { return w.transaction(id).Status == "COMPLETED" })
	if r := w.refund(id); r.Status != 200 {
		t.Fatalf("refund: %d %s", r.Status, r.Body)
	}
	if w.balance() != 0 {
		t.Fatalf("available balance %d while the refund waits", w.balance())
	}
	var out string
	eventually(t, 20*time.Second, "the refund to wait at its rail", func() bool {
		var err error
		out, err = operate(t, s, "payments", "fail", "-transaction", id, "-operator", "alice", "-reason", "the sender's provider is gone")
		return err == nil
	})
	if !strings.Contains(out, workflowsRefundPrefix) {
		t.Fatalf("payments fail: %s", out)
	}
	tx := w.transaction(id)
	if tx.Status != "COMPLETED" || tx.Refund == nil || tx.Refund.Status != "FAILED" || w.balance() != 900 {
		t.Fatalf("after the operator: %s %+v, balance %d", tx.Status, tx.Refund, w.balance())
	}
	checkLedger(t, s)
}

const workflowsRefundPrefix = `"workflowId": "refund/Transaction:`
