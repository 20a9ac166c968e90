package main

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"paycore/api"
	"paycore/db/view"
	"paycore/internal/infra/config"
)

// The receiving side of a payment between two platforms of this deployment cannot freeze
// the sender's money. Its platform cannot close the receiving account while the quote to
// its customer's UMA address is pending (the payment is money on its way in); and should
// the account be closed anyway before the payment runs (as it could be before, closed and
// reopened), the payment ends FAILED with ACCOUNT_CLOSED, the sender's hold released, the
// receiving side's INCOMING transaction FAILED, nothing credited, every currency balanced,
// and nothing left for `payments stuck`.
func TestUmaReceiverClosedBeforeThePaymentRan(t *testing.T) {
	s := newStack(t, func(c *config.Config) { quoteFast(c); c.ApprovalDeadline = 3 * time.Second })
	payUmaToClosedAccount(t, s)
}

// payUmaToClosedAccount plays TestUmaReceiverClosedBeforeThePaymentRan on s and returns the
// quote (its workflow's history is recorded by TestRecordHistories).
func payUmaToClosedAccount(t *testing.T, s *stack) view.Quote {
	t.Helper()
	payer := fxWorld(t, s)
	payer.fund(100_000)
	rc, rp := s.platform(true)
	if r := rc.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR"), currencyItem("USDC")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	if r := rc.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "DE", "fullName": "Grace Hopper", "currencies": []string{"USDC", "EUR"}}); r.Status != 201 {
		t.Fatalf("receiver: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &cust)
	}
	euroAccount := func() view.InternalAccount {
		t.Helper()
		var accts api.List[view.InternalAccount]
		rc.Do("GET", "/customers/internal-accounts?customerId="+cust.ID+"&currency=EUR", nil).Decode(t, &accts)
		if len(accts.Data) != 1 {
			t.Fatalf("want one EUR account, got %d", len(accts.Data))
		}
		return accts.Data[0]
	}
	first := euroAccount()
	setEndpointDirect(t, s, rp, newApprover(t).srv.URL) // approves every payment
	setCurrencies := func(currencies ...string) int {
		t.Helper()
		return rc.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "currencies": currencies}).Status
	}

	var lookup view.ReceiverLookup
	if r := payer.c.Do("GET", "/receiver/uma/"+url.PathEscape(cust.UmaAddress)+"?customerId="+payer.customer, nil); r.Status != 200 {
		t.Fatalf("lookup: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &lookup)
	}
	before := payer.balance()
	var q view.Quote
	if r := payer.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": payer.account},
		"destination":        map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": cust.UmaAddress, "currency": "EUR"},
		"lockedCurrencySide": "RECEIVING", "lockedCurrencyAmount": 2001, "lookupId": lookup.LookupID}); r.Status != 201 {
		t.Fatalf("quote: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &q)
	}

	// The quote is money on its way into the EUR account: dropping EUR is refused.
	r := rc.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "currencies": []string{"USDC"}})
	if r.Status != 409 || r.Code(t) != "ACCOUNT_NOT_EMPTY" || !strings.Contains(r.JSON(t)["message"].(string), "incoming transaction") {
		t.Fatalf("dropping the currency of a pending UMA payment: %d %s", r.Status, r.Body)
	}

	// Closed anyway (as the close counting only transfers in allowed), then reopened: a new
	// EUR account.
	if _, err := s.app.pool.Exec(context.Background(), "UPDATE internal_accounts SET status = 'CLOSED', updated_at = now() WHERE id = (SELECT id FROM internal_accounts WHERE platform_id = $1 AND customer_id IS NOT NULL AND currency = 'EUR')", rp.ID); err != nil {
		t.Fatal(err)
	}
	if st := setCurrencies("USDC", "EUR"); st != 200 {
		t.Fatalf("reopening EUR: %d", st)
	}
	if second := euroAccount(); second.ID == first.ID {
		t.Fatal("EUR was not reopened in a new account")
	}

	if r := payer.c.Do("POST", "/quotes/"+q.ID+"/execute", nil); r.Status != 200 {
		t.Fatalf("execute: %d %s", r.Status, r.Body)
	}
	tx := payer.waitFinal(q.TransactionID, 30*time.Second)
	if tx.Status != "FAILED" || tx.FailureDetails == nil || tx.FailureDetails.Code != "ACCOUNT_CLOSED" {
		t.Fatalf("the payment to a closed account ended %s %+v", tx.Status, tx.FailureDetails)
	}
	if got := payer.balance(); got != before {
		t.Fatalf("sender's balance %d, was %d: the hold was not released", got, before)
	}
	var incoming api.List[view.Transaction]
	rc.Do("GET", "/transactions?type=INCOMING&customerId="+cust.ID, nil).Decode(t, &incoming)
	if len(incoming.Data) != 1 || incoming.Data[0].Status != "FAILED" {
		t.Fatalf("the receiving side %+v", incoming.Data)
	}
	if got := euroAccount(); got.Balance.Amount != 0 {
		t.Fatalf("the reopened account got %d", got.Balance.Amount)
	}
	var failedEvents int
	if err := s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM webhook_events WHERE data->>'id' = $1 AND type = 'OUTGOING_PAYMENT_FAILED'", q.TransactionID).Scan(&failedEvents); err != nil || failedEvents != 1 {
		t.Fatalf("%d OUTGOING_PAYMENT_FAILED events (%v)", failedEvents, err)
	}
	checkLedger(t, s)
	checkNothingStranded(t, s)
	out, err := operate(t, s, "payments", "stuck", "-older-than", "0s")
	var stuck []map[string]any
	if err != nil || json.Unmarshal([]byte(out), &stuck) != nil || len(stuck) != 0 {
		t.Fatalf("payments stuck: %v %s", err, out)
	}
	return q
}
