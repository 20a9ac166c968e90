package main

import (
	"strconv"
	"testing"

	"paycore/internal/infra/config"
	"paycore/internal/paylimits"
)

// The deployment's payment limits: a payment above the largest single one in its currency
// is 400 TRANSACTION_SIZE_LIMIT_EXCEEDED (a transfer out, a quote when it is made); one that
// would pass the platform's volume of the day is 429 DAILY_VOLUME_LIMIT_EXCEEDED with
// Retry-After (a transfer out, a quote when it is executed); a refused payment holds and
// counts nothing, and a currency without limits is not limited.
func TestPaymentLimits(t *testing.T) {
	t.Parallel()
	s := newStack(t, quoteFast, func(c *config.Config) {
		c.PaymentLimits = paylimits.Limits{"USD": {MaxTransaction: 5_000, DailyVolume: 8_000}}
	})
	w := fxWorld(t, s)
	w.fund(100_000)
	ext := w.external("001")

	r := w.transferOut(ext, 5_001)
	if r.Status != 400 || r.Code(t) != "TRANSACTION_SIZE_LIMIT_EXCEEDED" || r.Field(t) != "amount" {
		t.Fatalf("above the largest payment: %d %s", r.Status, r.Body)
	}
	if r := w.transferOut(ext, 5_000); r.Status != 201 {
		t.Fatalf("at the largest payment: %d %s", r.Status, r.Body)
	}
	r = w.transferOut(ext, 3_001)
	if r.Status != 429 || r.Code(t) != "DAILY_VOLUME_LIMIT_EXCEEDED" {
		t.Fatalf("past the day's volume: %d %s", r.Status, r.Body)
	}
	if wait, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || wait < 1 || wait > 86_400 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	if d := r.JSON(t)["details"].(map[string]any); d["used"] != 5_000.0 || d["remaining"] != 3_000.0 || d["limit"] != 8_000.0 {
		t.Fatalf("details %v", d)
	}
	if got := w.balance(); got != 95_000 {
		t.Fatalf("balance %d after the refusals, want 95000", got)
	}
	if r := w.transferOut(ext, 3_000); r.Status != 201 {
		t.Fatalf("up to the day's volume: %d %s", r.Status, r.Body)
	}

	// Quotes: the size when made, the day's volume when executed.
	eur := w.euroAccount("001")
	if r := w.quote(eur, "SENDING", 6_000); r.Status != 400 || r.Code(t) != "TRANSACTION_SIZE_LIMIT_EXCEEDED" || r.Field(t) != "lockedCurrencyAmount" {
		t.Fatalf("a quote above the largest payment: %d %s", r.Status, r.Body)
	}
	q := w.newQuote(eur, 1_000)
	r = w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil)
	if r.Status != 429 || r.Code(t) != "DAILY_VOLUME_LIMIT_EXCEEDED" {
		t.Fatalf("executing past the day's volume: %d %s", r.Status, r.Body)
	}
	if got := w.balance(); got != 92_000 {
		t.Fatalf("balance %d after the refused execution, want 92000", got)
	}
	if tx := w.transaction(q.TransactionID); tx.Status != "PENDING" {
		t.Fatalf("the refused quote is %s, want PENDING", tx.Status)
	}
	checkLedger(t, s)
}
