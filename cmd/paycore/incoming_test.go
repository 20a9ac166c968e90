package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"paycore/api"
	"paycore/db/view"
	"paycore/internal/incoming"
	"paycore/internal/infra/config"
)

// approver is a platform's webhook endpoint that answers each INCOMING_PAYMENT_PENDING by
// the payment's amount, and records which payments it was asked about.
type approver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	asked  map[string]bool
	answer map[int64]func(w http.ResponseWriter)
}

func newApprover(t *testing.T) *approver {
	a := &approver{asked: map[string]bool{}, answer: map[int64]func(http.ResponseWriter){}}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var ev struct {
			Type string `json:"type"`
			Data struct {
				ID             string `json:"id"`
				ReceivedAmount struct {
					Amount int64 `json:"amount"`
				} `json:"receivedAmount"`
				Requested []map[string]any `json:"requestedReceiverCustomerInfoFields"`
			} `json:"data"`
		}
		_ = json.Unmarshal(b, &ev)
		if ev.Type != "INCOMING_PAYMENT_PENDING" {
			w.WriteHeader(200)
			return
		}
		a.mu.Lock()
		a.asked[ev.Data.ID] = len(ev.Data.Requested) == 1
		answer := a.answer[ev.Data.ReceivedAmount.Amount]
		a.mu.Unlock()
		if answer == nil {
			w.WriteHeader(200)
			return
		}
		answer(w)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func reply(status int, body string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// Every path of an incoming payment's approval: the synchronous answer approves (with the
// receiver's details, or the service's), rejects, asks for details or fails; after a 202
// the approve or reject call decides within the deadline, and nothing decides after it
// (PAYMENT_APPROVAL_TIMED_OUT, then 409); the sandbox's failing sender fails without
// asking; a platform without an endpoint is not asked. Only approved payments credit.
func TestIncomingPaymentApproval(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) { c.ApprovalDeadline = 2 * time.Second; c.QuoteSlowDelay = 2 * time.Second })
	w := newWorld(t, s)
	ap := newApprover(t)
	setEndpointDirect(t, s, w.platform, ap.srv.URL)
	ap.answer[1001] = reply(200, `{"receiverCustomerInfo":{"FULL_NAME":"Ada L."}}`)
	ap.answer[1002] = reply(403, `{"code":"FORBIDDEN","message":"no","reason":"RESTRICTED_JURISDICTION"}`)
	ap.answer[1003] = reply(422, `{"code":"INCOMPLETE","message":"need more","requiredFields":["TAX_ID"]}`)
	ap.answer[1004] = reply(202, ``)
	ap.answer[1005] = reply(202, ``)
	ap.answer[1006] = reply(202, ``)
	ap.answer[1007] = reply(500, `oops`)
	var cust api.Customer
	w.c.Do("GET", "/customers/"+w.customer, nil).Decode(t, &cust)
	receive := func(sender string, amount int64) view.Transaction {
		t.Helper()
		r := w.c.Do("POST", "/sandbox/uma/receive", map[string]any{"senderUmaAddress": sender + "@" + incoming.SandboxDomain,
			"receiverUmaAddress": cust.UmaAddress, "receivingCurrencyCode": "USD", "receivingCurrencyAmount": amount})
		if r.Status != 200 {
			t.Fatalf("receive %d: %d %s", amount, r.Status, r.Body)
		}
		var tx view.Transaction
		r.Decode(t, &tx)
		if tx.Status != "PENDING" || tx.Type != "INCOMING" || tx.Source.SourceType != "UMA_ADDRESS" || tx.Source.UmaAddress == "" {
			t.Fatalf("incoming transaction %+v", tx)
		}
		return tx
	}
	final := func(tx view.Transaction) view.Transaction {
		t.Helper()
		var got view.Transaction
		eventually(t, 20*time.Second, "payment "+tx.ID+" to end", func() bool {
			got = w.transaction(tx.ID)
			return got.Status != "PENDING" && got.Status != "PROCESSING"
		})
		return got
	}
	cases := []struct {
		sender         string
		amount         int64
		status, reason string
		decide         func(tx view.Transaction)
	}{
		{"$success.usd", 1001, "COMPLETED", "", nil},
		{"$success.usd", 1000, "COMPLETED", "", nil}, // 200 without details: the customer's name
		{"$success.eur", 1002, "REJECTED", "", nil},
		{"$success.mxn", 1003, "FAILED", "MISSING_MANDATORY_PAYEE_DATA", nil},
		{"$success.usd", 1004, "COMPLETED", "", func(tx view.Transaction) {
			r := w.c.Do("POST", "/transactions/"+tx.ID+"/approve", map[string]any{"receiverCustomerInfo": map[string]any{"FULL_NAME": "Ada"}})
			if r.Status != 200 || r.JSON(t)["status"] != "COMPLETED" {
				t.Fatalf("approve: %d %s", r.Status, r.Body)
			}
			if again := w.c.Do("POST", "/transactions/"+tx.ID+"/approve", nil); again.Status != 409 || again.Code(t) != "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL" {
				t.Fatalf("approve twice: %d %s", again.Status, again.Body)
			}
		}},
		{"$success.usd", 1005, "REJECTED", "", func(tx view.Transaction) {
			if r := w.c.Do("POST", "/transactions/"+tx.ID+"/reject", map[string]any{"reason": "RESTRICTED_JURISDICTION"}); r.Status != 200 {
				t.Fatalf("reject: %d %s", r.Status, r.Body)
			}
		}},
		{"$success.usd", 1006, "FAILED", "PAYMENT_APPROVAL_TIMED_OUT", nil},
		{"$success.usd", 1007, "FAILED", "PAYMENT_APPROVAL_WEBHOOK_ERROR", nil},
		{"$fail.compliance.usd", 1008, "FAILED", "PAY_REQUEST_FAILED", nil},
		{"$pending.long.usd", 1009, "COMPLETED", "", nil},
	}
	credited := int64(0)
	for _, tc := range cases {
		tx := receive(tc.sender, tc.amount)
		if tc.decide != nil {
			eventually(t, 10*time.Second, "the approval webhook", func() bool {
				ap.mu.Lock()
				defer ap.mu.Unlock()
				return ap.asked[tx.ID]
			})
			tc.decide(tx)
		}
		got := final(tx)
		if string(got.Status) != tc.status || ptr(got.FailureReason) != tc.reason {
			t.Fatalf("%s %d: %s %q, want %s %q (%+v)", tc.sender, tc.amount, got.Status, ptr(got.FailureReason), tc.status, tc.reason, got.FailureDetails)
		}
		if tc.status == "COMPLETED" {
			credited += tc.amount
		}
		ap.mu.Lock()
		asked, requested := ap.asked[tx.ID]
		ap.mu.Unlock()
		if (tc.sender == "$fail.compliance.usd") == asked || (asked && !requested) {
			t.Fatalf("%s %d: asked %v (with the requested fields %v)", tc.sender, tc.amount, asked, requested)
		}
	}
	late := receive("$success.usd", 1006)
	final(late)
	if r := w.c.Do("POST", "/transactions/"+late.ID+"/approve", nil); r.Status != 409 || r.Code(t) != "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL" {
		t.Fatalf("approve after the deadline: %d %s", r.Status, r.Body)
	}
	// A call during the sandbox sender's wait, before the platform is asked, reaches the
	// workflow (the stored transaction is PENDING) and is refused by its update's validator
	// with the same answer; the payment then goes on as the platform answers.
	early := receive("$pending.long.usd", 1010)
	if r := w.c.Do("POST", "/transactions/"+early.ID+"/reject", nil); r.Status != 409 || r.Code(t) != "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL" ||
		r.JSON(t)["message"] != "the payment is not waiting for the platform's approval" {
		t.Fatalf("reject before the platform was asked: %d %s", r.Status, r.Body)
	}
	if got := final(early); got.Status != "COMPLETED" {
		t.Fatalf("payment after the early call: %s", got.Status)
	}
	credited += early.ReceivedAmount.Amount
	if got := w.balance(); got != credited {
		t.Fatalf("balance %d, approved payments %d", got, credited)
	}
	// Refusals of the request itself.
	for _, tc := range []struct {
		body   map[string]any
		status int
		code   string
	}{
		{map[string]any{"senderUmaAddress": "$success.gbp@" + incoming.SandboxDomain, "receiverUmaAddress": cust.UmaAddress, "receivingCurrencyCode": "USD", "receivingCurrencyAmount": 5}, 400, "INVALID_UMA_ADDRESS"},
		{map[string]any{"senderUmaAddress": "$success.usd@" + incoming.SandboxDomain, "receiverUmaAddress": "$nobody@nowhere.example", "receivingCurrencyCode": "USD", "receivingCurrencyAmount": 5}, 404, "USER_NOT_FOUND"},
		{map[string]any{"senderUmaAddress": "$success.usd@" + incoming.SandboxDomain, "customerId": w.customer, "receivingCurrencyCode": "EUR", "receivingCurrencyAmount": 5}, 400, "INVALID_CURRENCY"},
	} {
		if r := w.c.Do("POST", "/sandbox/uma/receive", tc.body); r.Status != tc.status || r.Code(t) != tc.code {
			t.Fatalf("%v: %d %s", tc.body, r.Status, r.Body)
		}
	}
	// A platform without an endpoint has nobody to ask: approved.
	other := newWorld(t, s)
	var oc api.Customer
	other.c.Do("GET", "/customers/"+other.customer, nil).Decode(t, &oc)
	r := other.c.Do("POST", "/sandbox/uma/receive", map[string]any{"senderUmaAddress": "$success.usd@" + incoming.SandboxDomain,
		"customerId": other.customer, "receivingCurrencyCode": "USD", "receivingCurrencyAmount": 777})
	var tx view.Transaction
	r.Decode(t, &tx)
	if got := other.waitFinal(tx.ID, 20*time.Second); got.Status != "COMPLETED" || other.balance() != 777 {
		t.Fatalf("without an endpoint: %s, balance %d", got.Status, other.balance())
	}
	checkLedger(t, s)
}

// A customer of one platform pays the UMA address of a customer of another platform on
// this deployment: internally, with FX, the receiving platform approving (or rejecting) the
// INCOMING transaction it sees before any money moves; both transactions end together and
// every currency stays balanced.
func TestUmaBetweenPlatforms(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) { quoteFast(c); c.ApprovalDeadline = 3 * time.Second })
	payer := fxWorld(t, s)
	payer.fund(100_000)
	// The receiving platform: a EUR customer, and a webhook endpoint that decides by amount.
	rc, rp := s.platform(true)
	if r := rc.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	if r := rc.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "DE", "fullName": "Grace Hopper", "currencies": []string{"EUR"}}); r.Status != 201 {
		t.Fatalf("receiver: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &cust)
	}
	receiver := &world{t: t, s: s, c: rc, platform: rp, customer: cust.ID}
	var accts api.List[view.InternalAccount]
	rc.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	receiver.account = accts.Data[0].ID
	ap := newApprover(t)
	ap.answer[2002] = reply(403, `{"reason":"RESTRICTED_JURISDICTION"}`)
	ap.answer[2003] = reply(202, ``)
	setEndpointDirect(t, s, rp, ap.srv.URL)

	var lookup view.ReceiverLookup
	if r := payer.c.Do("GET", "/receiver/uma/"+url.PathEscape(cust.UmaAddress)+"?customerId="+payer.customer, nil); r.Status != 200 {
		t.Fatalf("lookup: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &lookup)
	}
	if len(lookup.SupportedCurrencies) != 1 || lookup.SupportedCurrencies[0].Currency.Code != "EUR" {
		t.Fatalf("lookup of a customer on this deployment %+v", lookup)
	}
	pay := func(amount int64) (view.Quote, view.Transaction) {
		t.Helper()
		r := payer.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": payer.account},
			"destination":        map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": cust.UmaAddress, "currency": "EUR"},
			"lockedCurrencySide": "RECEIVING", "lockedCurrencyAmount": amount, "lookupId": lookup.LookupID})
		if r.Status != 201 {
			t.Fatalf("quote to %s: %d %s", cust.UmaAddress, r.Status, r.Body)
		}
		var q view.Quote
		r.Decode(t, &q)
		if r := payer.c.Do("POST", "/quotes/"+q.ID+"/execute", nil); r.Status != 200 {
			t.Fatalf("execute: %d %s", r.Status, r.Body)
		}
		var incomingTx view.Transaction
		eventually(t, 20*time.Second, "the incoming payment", func() bool {
			var list api.List[view.Transaction]
			rc.Do("GET", "/transactions?type=INCOMING&customerId="+cust.ID, nil).Decode(t, &list)
			for _, tx := range list.Data {
				if tx.ReceivedAmount.Amount == amount {
					incomingTx = tx
					return true
				}
			}
			return false
		})
		return q, incomingTx
	}

	// A production platform's customer is out of a sandbox platform's reach, and the quote
	// shows no receiver's name before the receiving platform gives it.
	prod, _ := s.platform(false)
	var prodCust api.Customer
	prod.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US", "fullName": "Real Person", "currencies": []string{"USD"}}).Decode(t, &prodCust)
	if r := payer.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": payer.account},
		"destination": map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": prodCust.UmaAddress}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 1000}); r.Status != 400 || r.Code(t) != "INVALID_UMA_ADDRESS" {
		t.Fatalf("a sandbox platform paying a production customer: %d %s", r.Status, r.Body)
	}
	if r := payer.c.Do("GET", "/receiver/uma/"+url.PathEscape(prodCust.UmaAddress), nil); r.Status != 400 {
		t.Fatalf("a sandbox platform looking up a production customer: %d %s", r.Status, r.Body)
	}

	q, in := pay(2001) // approved by the webhook's 200
	if len(q.CounterpartyInformation) != 0 {
		t.Fatalf("the quote shows the receiver's details before approval: %s", q.CounterpartyInformation)
	}
	if tx := payer.waitFinal(q.TransactionID, 20*time.Second); tx.Status != "COMPLETED" {
		t.Fatalf("paid quote %s", tx.Status)
	}
	if got := receiver.transaction(in.ID); got.Status != "COMPLETED" || got.Source.SourceType != "UMA_ADDRESS" || got.Source.UmaAddress == "" {
		t.Fatalf("incoming side %+v", got)
	}
	before := payer.balance()
	q, in = pay(2002) // rejected
	if tx := payer.waitFinal(q.TransactionID, 20*time.Second); tx.Status != "FAILED" || ptr(tx.FailureReason) != "QUOTE_EXECUTION_FAILED" {
		t.Fatalf("rejected quote %+v", tx)
	}
	if got := receiver.transaction(in.ID); got.Status != "REJECTED" || payer.balance() != before {
		t.Fatalf("rejected incoming %s, payer balance %d (was %d)", got.Status, payer.balance(), before)
	}
	q, in = pay(2003) // 202, then approved by the receiving platform's call
	eventually(t, 10*time.Second, "the approval request", func() bool {
		ap.mu.Lock()
		defer ap.mu.Unlock()
		return ap.asked[in.ID]
	})
	if r := rc.Do("POST", "/transactions/"+in.ID+"/approve", nil); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	if tx := payer.waitFinal(q.TransactionID, 20*time.Second); tx.Status != "COMPLETED" {
		t.Fatalf("approved quote %s", tx.Status)
	}
	if got := receiver.waitFinal(in.ID, 20*time.Second); got.Status != "COMPLETED" {
		t.Fatalf("approved incoming %s", got.Status)
	}
	if got := receiver.balance(); got != 2001+2003 {
		t.Fatalf("receiver balance %d, want %d", got, 2001+2003)
	}
	checkLedger(t, s)
}
