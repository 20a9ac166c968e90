package main

import (
	"strings"
	"testing"
	"time"

	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/incoming"
	"paycore/internal/infra/config"
)

// slowSandbox keeps the sandbox's slow scenarios waiting long enough to cancel them.
func slowSandbox(c *config.Config) {
	c.SandboxSlowDelay, c.QuoteSlowDelay = 2*time.Minute, 2*time.Minute
}

// processing waits until the transaction id waits at its rail.
func (w *world) processing(id string) {
	w.t.Helper()
	eventually(w.t, 20*time.Second, id+" PROCESSING", func() bool { return w.transaction(id).Status == "PROCESSING" })
}

// cancel cancels the transaction id with reason.
func (w *world) cancel(id, reason string) *apitest.Response {
	return w.c.Do("POST", "/transactions/"+id+"/cancel", map[string]any{"reason": reason})
}

// cancelled checks that r answered the transaction FAILED by its platform's cancellation
// with reason, and returns it.
func (w *world) cancelled(r *apitest.Response, reason string) view.Transaction {
	w.t.Helper()
	if r.Status != 200 {
		w.t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	var tx view.Transaction
	r.Decode(w.t, &tx)
	if tx.Status != "FAILED" || tx.FailureDetails == nil || tx.FailureDetails.Code != "USER_CANCELLATION" || !strings.Contains(tx.FailureDetails.Message, reason) {
		w.t.Fatalf("cancelled transaction %s", r.Body)
	}
	if got := w.transaction(tx.ID); got.Status != "FAILED" {
		w.t.Fatalf("stored as %s", got.Status)
	}
	return tx
}

// A platform cancels its payments that wait at their rail: a transfer out and a transfer
// in of the sandbox's slow scenario, and a quote's payout to a bank account. Each ends
// FAILED with USER_CANCELLATION and its reason, its hold released, announced; cancelling
// again, a completed payment, an unexecuted quote, a payment over Lightning (a UMA
// address) and another platform's payment are refused, and a refusal changes nothing.
func TestCancelPayments(t *testing.T) {
	t.Parallel()
	s := newStack(t, slowSandbox)
	w := fxWorld(t, s)
	w.fund(100_000)

	// A transfer out waiting at its rail.
	r := w.transferOut(w.external("005"), 10_000)
	if r.Status != 201 {
		t.Fatalf("transfer-out: %d %s", r.Status, r.Body)
	}
	out := r.JSON(t)["id"].(string)
	w.processing(out)
	if got := w.balance(); got != 90_000 {
		t.Fatalf("balance %d while the transfer is held", got)
	}
	w.cancelled(w.cancel(out, "requested after hours"), "requested after hours")
	if got := w.balance(); got != 100_000 {
		t.Fatalf("balance %d after the cancellation, want the hold released", got)
	}
	if ev := w.events(out); strings.Join(ev, ",") != "PENDING,PROCESSING,FAILED" {
		t.Fatalf("events %v", ev)
	}
	expectConflict := func(what string, r *apitest.Response) {
		t.Helper()
		if r.Status != 409 || r.Code(t) != "TRANSACTION_NOT_CANCELLABLE" {
			t.Fatalf("%s: %d %s", what, r.Status, r.Body)
		}
	}
	expectConflict("cancelling again", w.cancel(out, "again"))

	// A transfer in, without a body.
	r = w.transferIn(w.external("005"), 7_000)
	if r.Status != 201 {
		t.Fatalf("transfer-in: %d %s", r.Status, r.Body)
	}
	in := r.JSON(t)["id"].(string)
	w.processing(in)
	w.cancelled(w.c.Do("POST", "/transactions/"+in+"/cancel", nil), "cancelled at the platform's request")
	if got := w.balance(); got != 100_000 {
		t.Fatalf("balance %d after the cancelled transfer in", got)
	}

	// A completed transfer.
	r = w.transferOut(w.external("001"), 1_000)
	done := r.JSON(t)["id"].(string)
	if tx := w.waitFinal(done, 20*time.Second); tx.Status != "COMPLETED" {
		t.Fatalf("transfer 001: %s", tx.Status)
	}
	expectConflict("a completed transfer", w.cancel(done, "late"))

	// A quote paid out to a bank account, executed and waiting at its rail; an unexecuted
	// quote.
	q := w.newQuote(w.euroAccount("003"), 20_000)
	expectConflict("an unexecuted quote", w.cancel(q.TransactionID, "not yet"))
	if r := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil); r.Status != 200 {
		t.Fatalf("execute: %d %s", r.Status, r.Body)
	}
	w.processing(q.TransactionID)
	if got := w.balance(); got != 79_000 {
		t.Fatalf("balance %d while the quote is held", got)
	}
	w.cancelled(w.cancel(q.TransactionID, "customer changed their mind"), "customer changed their mind")
	if got := w.balance(); got != 99_000 {
		t.Fatalf("balance %d after the cancelled quote", got)
	}

	// A quote paid to a UMA address over Lightning cannot be recalled: refused, and the
	// payment goes on.
	r = w.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "DE",
		"fullName": "Emmy Noether", "currencies": []string{"EUR"}, "umaAddress": "$emmy@" + w.platform.UmaDomain})
	if r.Status != 201 {
		t.Fatalf("EUR customer: %d %s", r.Status, r.Body)
	}
	var accts struct{ Data []view.InternalAccount }
	w.c.Do("GET", "/customers/internal-accounts?customerId="+r.JSON(t)["id"].(string), nil).Decode(t, &accts)
	eur := accts.Data[0].ID
	if r := w.c.Do("POST", "/sandbox/internal-accounts/"+eur+"/fund", map[string]any{"amount": 10_000}); r.Status != 200 {
		t.Fatalf("fund EUR: %d %s", r.Status, r.Body)
	}
	r = w.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": eur},
		"destination":        map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": "$pending.long.usd@" + incoming.SandboxDomain},
		"lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 3_000, "senderCustomerInfo": map[string]any{"FULL_NAME": "Ada Lovelace"}})
	if r.Status != 201 {
		t.Fatalf("UMA quote: %d %s", r.Status, r.Body)
	}
	var uq view.Quote
	r.Decode(t, &uq)
	if r := w.c.Do("POST", "/quotes/"+uq.ID+"/execute", nil); r.Status != 200 {
		t.Fatalf("execute the UMA quote: %d %s", r.Status, r.Body)
	}
	w.processing(uq.TransactionID)
	expectConflict("a UMA payment", w.cancel(uq.TransactionID, "too late"))
	if st := w.transaction(uq.TransactionID).Status; st != "PROCESSING" {
		t.Fatalf("the refused cancellation left the UMA payment %s", st)
	}

	// Another platform's transaction is not found; a reason too long is bad input.
	other := newWorld(t, s)
	if r := other.cancel(out, "not mine"); r.Status != 404 || r.Code(t) != "TRANSACTION_NOT_FOUND" {
		t.Fatalf("another platform's transaction: %d %s", r.Status, r.Body)
	}
	if r := w.cancel(q.TransactionID, strings.Repeat("x", 501)); r.Status != 400 {
		t.Fatalf("a reason too long: %d %s", r.Status, r.Body)
	}
	if r := w.c.Do("POST", "/transactions/"+q.TransactionID+"/cancel", map[string]any{"reason": 5}); r.Status != 400 {
		t.Fatalf("a reason not a string: %d %s", r.Status, r.Body)
	}
	checkLedger(t, s)
}
