package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"paycore/activities"
	"paycore/api"
	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/view"
	"paycore/internal/banking"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/infra/config"
	"paycore/internal/quote"
)

// quoteFast shortens the sandbox's quote delays.
func quoteFast(c *config.Config) {
	c.QuoteSlowDelay, c.QuoteReturnDelay = 2*time.Second, time.Second
}

// currencyItem is a supportedCurrencies entry allowing both directions.
func currencyItem(code string, required ...string) map[string]any {
	fields := []any{}
	for _, f := range required {
		fields = append(fields, map[string]any{"name": f, "mandatory": true})
	}
	return map[string]any{"currencyCode": code, "minAmount": 1, "maxAmount": 1_000_000_000, "enabledTransactionTypes": []string{"INCOMING", "OUTGOING"},
		"requiredCounterpartyFields": fields}
}

// fxWorld is a sandbox platform supporting USD, EUR and MXN with one funded USD customer.
func fxWorld(t *testing.T, s *stack) *world {
	t.Helper()
	w := newWorld(t, s)
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR"), currencyItem("MXN")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	return w
}

// euroAccount registers a EUR external account of w's customer whose IBAN ends in suffix.
func (w *world) euroAccount(suffix string) string {
	w.t.Helper()
	bban := fmt.Sprintf("37040044%07d%s", accountSeq.Add(1), suffix)
	r := w.c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": w.customer, "currency": "EUR",
		"accountInfo": map[string]any{"accountType": "EUR_ACCOUNT", "iban": banking.MakeIBAN("DE", bban),
			"beneficiary": map[string]any{"beneficiaryType": "INDIVIDUAL", "fullName": "Grace Hopper",
				"address": map[string]any{"line1": "Unter den Linden 1", "city": "Berlin", "postalCode": "10117", "country": "DE"}}}})
	if r.Status != 201 {
		w.t.Fatalf("create EUR external account: %d %s", r.Status, r.Body)
	}
	return r.JSON(w.t)["id"].(string)
}

func (w *world) quote(dest string, side string, amount int64, extra ...map[string]any) *apitest.Response {
	body := map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": w.account},
		"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": dest}, "lockedCurrencySide": side, "lockedCurrencyAmount": amount}
	for _, e := range extra {
		for k, v := range e {
			body[k] = v
		}
	}
	return w.c.Do("POST", "/quotes", body)
}

func (w *world) newQuote(dest string, amount int64) view.Quote {
	w.t.Helper()
	r := w.quote(dest, "SENDING", amount)
	if r.Status != 201 {
		w.t.Fatalf("create quote: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(w.t, &q)
	return q
}

// events lists a transaction's webhook events as TYPE/status, in order.
func (w *world) events(txID string) []string {
	w.t.Helper()
	rows, err := w.s.app.pool.Query(context.Background(), "SELECT type, data->>'status', coalesce(data->'refund'->>'status', '') FROM webhook_events WHERE data->>'id' = $1 ORDER BY created_at, id", txID)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	var seq []string
	for rows.Next() {
		var typ, status, refund string
		_ = rows.Scan(&typ, &status, &refund)
		seq = append(seq, strings.TrimPrefix(typ, "OUTGOING_PAYMENT_"))
	}
	return seq
}

// checkLedger asserts every currency's ledger sums to zero and no internal account's
// available balance is negative.
func checkLedger(t *testing.T, s *stack) {
	t.Helper()
	rows, err := s.app.pool.Query(context.Background(), "SELECT currency, sum(balance)::bigint FROM ledger_balances GROUP BY currency")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var cur string
		var sum int64
		_ = rows.Scan(&cur, &sum)
		if sum != 0 {
			t.Errorf("%s ledger sums to %d", cur, sum)
		}
	}
	var negative int
	_ = s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM ledger_balances WHERE kind = 'INTERNAL' AND balance - held < 0").Scan(&negative)
	if negative != 0 {
		t.Errorf("%d internal accounts below zero", negative)
	}
}

// Every sandbox suffix of a quote to an external account ends as the spec's table says,
// with the money where it should be: converted and paid, released, refunded, or with the
// counterparty when both the payout and its refund fail.
func TestQuoteOutcomesBySuffix(t *testing.T) {
	t.Parallel()
	s := newStack(t, quoteFast)
	w := fxWorld(t, s)
	w.fund(1_000_000)
	cases := []struct {
		suffix, status, reason, refund string
		charged                        bool // the sender ends without the money
		events                         string
	}{
		{"001", "COMPLETED", "", "", true, "PENDING,PROCESSING,COMPLETED"},
		{"002", "FAILED", "QUOTE_EXECUTION_FAILED", "", false, "PENDING,PROCESSING,FAILED"},
		{"003", "COMPLETED", "", "", true, "PENDING,PROCESSING,COMPLETED"},
		{"004", "FAILED", "COUNTERPARTY_POST_TX_FAILED", "COMPLETED", false, "PENDING,PROCESSING,FAILED,REFUND_PENDING,REFUND_COMPLETED"},
		{"005", "FAILED", "PAYOUT_RETURNED", "COMPLETED", false, "PENDING,PROCESSING,COMPLETED,FAILED,REFUND_PENDING,REFUND_COMPLETED"},
		{"006", "FAILED", "", "COMPLETED", false, "PENDING,PROCESSING,FAILED,REFUND_PENDING,REFUND_COMPLETED"},
		{"007", "FAILED", "COUNTERPARTY_POST_TX_FAILED", "FAILED", true, "PENDING,PROCESSING,FAILED,REFUND_PENDING,REFUND_FAILED"},
		// The payout partner's granular refusals, before any money leaves.
		{"008", "FAILED", "LIMIT_EXCEEDED", "", false, "PENDING,PROCESSING,FAILED"},
		{"009", "FAILED", "ACCOUNT_CANNOT_RECEIVE", "", false, "PENDING,PROCESSING,FAILED"},
		{"010", "FAILED", "ACCOUNT_INVALID", "", false, "PENDING,PROCESSING,FAILED"},
		{"011", "FAILED", "COMPLIANCE_REJECTED", "", false, "PENDING,PROCESSING,FAILED"},
		{"012", "FAILED", "QUOTE_RATE_UNAVAILABLE", "", false, "PENDING,PROCESSING,FAILED"},
	}
	for _, tc := range cases {
		ext := w.euroAccount(tc.suffix)
		before := w.balance()
		q := w.newQuote(ext, 10_000)
		if q.Status != "PENDING" || q.TotalSendingAmount != 10_000 || q.TotalReceivingAmount <= 0 || q.FeesIncluded <= 0 || q.SendingCurrency.Code != "USD" ||
			q.ReceivingCurrency.Code != "EUR" || q.RateDetails == nil || !q.ExpiresAt.After(time.Now()) {
			t.Fatalf("%s: quote %+v", tc.suffix, q)
		}
		start := time.Now() // the slow scenario's wait starts after the request does
		r := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil, "Idempotency-Key", "exec-"+q.ID)
		if r.Status != 200 {
			t.Fatalf("%s: execute %d %s", tc.suffix, r.Status, r.Body)
		}
		var final view.Transaction
		eventually(t, 20*time.Second, tc.suffix+" final", func() bool {
			final = w.transaction(q.TransactionID)
			done := final.Status == "COMPLETED" || final.Status == "FAILED"
			if tc.refund != "" {
				done = final.Refund != nil && final.Refund.Status == tc.refund
			}
			return done
		})
		if string(final.Status) != tc.status {
			t.Fatalf("%s: status %s, want %s", tc.suffix, final.Status, tc.status)
		}
		if got := ptr(final.FailureReason); got != tc.reason {
			t.Fatalf("%s: failureReason %q, want %q", tc.suffix, got, tc.reason)
		}
		if final.QuoteID != q.ID || final.ReceivedAmount.Amount != q.TotalReceivingAmount || final.ReceivedAmount.Currency.Code != "EUR" ||
			final.SentAmount.Amount != 10_000 || final.Fees == nil || *final.Fees != q.FeesIncluded || final.ExchangeRate == nil {
			t.Fatalf("%s: transaction %+v", tc.suffix, final)
		}
		want := before
		if tc.charged {
			want -= 10_000
		}
		if got := w.balance(); got != want {
			t.Fatalf("%s: balance %d, want %d", tc.suffix, got, want)
		}
		if got := strings.Join(w.events(q.TransactionID), ","); got != tc.events {
			t.Fatalf("%s: events %s, want %s", tc.suffix, got, tc.events)
		}
		if tc.suffix == "003" && time.Since(start) < 2*time.Second {
			t.Fatalf("003 completed before the slow delay (%s)", time.Since(start))
		}
		var got view.Quote
		w.c.Do("GET", "/quotes/"+q.ID, nil).Decode(t, &got)
		if got.Status != final.Status {
			t.Fatalf("%s: quote status %s, transaction %s", tc.suffix, got.Status, final.Status)
		}
	}
	// The transaction list's filters find them: by account, type and status.
	for query, want := range map[string]int64{"accountIdentifier=" + w.account + "&type=OUTGOING": 12, "senderAccountIdentifier=" + w.account + "&status=FAILED": 10,
		"customerId=" + w.customer + "&status=COMPLETED&type=OUTGOING": 2} {
		var list api.List[view.Transaction]
		w.c.Do("GET", "/transactions?"+query, nil).Decode(t, &list)
		if list.TotalCount != want || int64(len(list.Data)) != want {
			t.Fatalf("%s: %d transactions (%d listed), want %d", query, list.TotalCount, len(list.Data), want)
		}
	}
	checkLedger(t, s)
	// The fees of the completed payments (001, 003) and of the one whose refund failed (007)
	// are in the fees account; the refunded ones gave theirs back.
	var fees int64
	_ = s.app.pool.QueryRow(context.Background(), "SELECT coalesce(sum(balance), 0)::bigint FROM ledger_balances WHERE kind = 'FEES' AND platform_id = $1", w.platform.ID).Scan(&fees)
	var want int64
	_ = s.app.pool.QueryRow(context.Background(), `SELECT coalesce(sum(fees), 0)::bigint FROM transactions WHERE platform_id = $1 AND kind = 'QUOTE'
		AND (status = 'COMPLETED' OR refund_status = 'FAILED')`, w.platform.ID).Scan(&want)
	if fees != want || fees == 0 {
		t.Fatalf("fees account holds %d, want %d", fees, want)
	}
}

func ptr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// A quote nobody executes expires on its durable timer: EXPIRED with QUOTE_EXPIRED and
// the OUTGOING_PAYMENT_EXPIRED event; executing it then is 409.
func TestQuoteExpires(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) { c.QuoteLifetime = 2 * time.Second })
	w := fxWorld(t, s)
	w.fund(50_000)
	q := w.newQuote(w.euroAccount("001"), 10_000)
	var tx view.Transaction
	eventually(t, 20*time.Second, "quote to expire", func() bool {
		tx = w.transaction(q.TransactionID)
		return tx.Status == "EXPIRED"
	})
	if ptr(tx.FailureReason) != "QUOTE_EXPIRED" {
		t.Fatalf("expired transaction %+v", tx)
	}
	if got := strings.Join(w.events(q.TransactionID), ","); got != "PENDING,EXPIRED" {
		t.Fatalf("events %s", got)
	}
	r := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil)
	if r.Status != 409 || r.Code(t) != "QUOTE_NOT_PENDING" || w.balance() != 50_000 {
		t.Fatalf("execute after expiry: %d %s (balance %d)", r.Status, r.Body, w.balance())
	}
}

// One quote is paid once: a repeated execute (same Idempotency-Key) answers the quote,
// another request is 409, and of many concurrent executes exactly one wins.
func TestQuoteExecutesOnce(t *testing.T) {
	t.Parallel()
	s := newStack(t, quoteFast)
	w := fxWorld(t, s)
	w.fund(100_000)
	ext := w.euroAccount("001")

	q := w.newQuote(ext, 10_000)
	first := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil, "Idempotency-Key", "k1")
	again := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil, "Idempotency-Key", "k1")
	other := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil, "Idempotency-Key", "k2")
	if first.Status != 200 || again.Status != 200 || other.Status != 409 || other.Code(t) != "QUOTE_NOT_PENDING" {
		t.Fatalf("execute: %d, again %d, other %d %s", first.Status, again.Status, other.Status, other.Body)
	}

	q2 := w.newQuote(ext, 10_000)
	const n = 8
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = w.c.Do("POST", "/quotes/"+q2.ID+"/execute", nil, "Idempotency-Key", fmt.Sprintf("c%d", i)).Status
		}()
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case 200:
			ok++
		case 409:
		default:
			t.Fatalf("concurrent execute answered %d", c)
		}
	}
	if ok != 1 {
		t.Fatalf("%d concurrent executes succeeded, want 1 (%v)", ok, codes)
	}
	w.waitFinal(q.TransactionID, 20*time.Second)
	w.waitFinal(q2.TransactionID, 20*time.Second)
	if w.balance() != 100_000-20_000 {
		t.Fatalf("balance %d after two payments of 10000", w.balance())
	}
	var holds int
	_ = s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM ledger_entries WHERE transaction_id = (SELECT id FROM transactions WHERE quote_id::text = $1)",
		strings.TrimPrefix(q2.ID, "Quote:")).Scan(&holds)
	if holds != 5 { // source, FX and fees in USD; FX and settlement in EUR
		t.Fatalf("the concurrently executed quote posted %d entries, want 5", holds)
	}
	checkLedger(t, s)
}

// What a quote cannot be is refused with the rule's error, nothing written; a quote
// whose execution finds too little money stays pending.
func TestQuoteRefusals(t *testing.T) {
	t.Parallel()
	s := newStack(t, quoteFast)
	w := fxWorld(t, s)
	w.fund(5_000)
	ext := w.euroAccount("001")
	usdExt := w.external("001")
	cases := []struct {
		name   string
		resp   *apitest.Response
		status int
		code   string
	}{
		{"same currency", w.quote(usdExt, "SENDING", 1000), 400, "INVALID_CURRENCY"},
		{"unknown account", w.quote("ExternalAccount:0190a000-0000-7000-8000-000000000009", "SENDING", 1000), 404, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"below fees", w.quote(ext, "SENDING", 5), 400, "AMOUNT_OUT_OF_RANGE"},
		{"wrong destination currency", w.quote(ext, "SENDING", 1000, map[string]any{"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": ext, "currency": "MXN"}}), 400, "INVALID_CURRENCY"},
		{"immediately, too little money", w.quote(ext, "SENDING", 6000, map[string]any{"immediatelyExecute": true}), 400, "INSUFFICIENT_FUNDS"},
		{"uma", w.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": w.account},
			"destination": map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": "$bob@example.com"}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 1000}), 400, "RAIL_NOT_CONFIGURED"},
		{"bad side", w.quote(ext, "BOTH", 1000), 400, "INVALID_INPUT"},
		{"too large", w.quote(ext, "SENDING", 9_000_000_000_000_001), 400, "INVALID_INPUT"},
	}
	for _, tc := range cases {
		if tc.resp.Status != tc.status || tc.resp.Code(t) != tc.code {
			t.Errorf("%s: %d %s, want %d %s", tc.name, tc.resp.Status, tc.resp.Body, tc.status, tc.code)
		}
	}
	var quotes int
	_ = s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM quotes WHERE platform_id = $1", w.platform.ID).Scan(&quotes)
	if quotes != 0 {
		t.Fatalf("%d quotes written by refused requests", quotes)
	}
	// Required sender information: the platform asks for NATIONALITY on EUR payments.
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR", "NATIONALITY", "FULL_NAME")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	r := w.quote(ext, "SENDING", 1000)
	if r.Status != 400 || r.Code(t) != "MISSING_MANDATORY_USER_INFO" || !strings.Contains(string(r.Body), "NATIONALITY") || strings.Contains(string(r.Body), "FULL_NAME") {
		t.Fatalf("missing sender info: %d %s", r.Status, r.Body)
	}
	r = w.quote(ext, "SENDING", 1000, map[string]any{"senderCustomerInfo": map[string]any{"NATIONALITY": "US"}})
	if r.Status != 201 {
		t.Fatalf("with senderCustomerInfo: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(t, &q)
	if !strings.Contains(string(q.SenderCustomerInfo), `"FULL_NAME":"Ada Lovelace"`) {
		t.Fatalf("sender info %s", q.SenderCustomerInfo)
	}
	// Too little money at execution: refused, the quote stays pending and can be executed
	// once the account is funded.
	var big view.Quote
	w.quote(ext, "SENDING", 4_500, map[string]any{"senderCustomerInfo": map[string]any{"NATIONALITY": "US"}}).Decode(t, &big)
	w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil) // takes 1000
	r = w.c.Do("POST", "/quotes/"+big.ID+"/execute", nil)
	if r.Status != 400 || r.Code(t) != "INSUFFICIENT_FUNDS" {
		t.Fatalf("execute without funds: %d %s", r.Status, r.Body)
	}
	if st := w.transaction(big.TransactionID).Status; st != "PENDING" {
		t.Fatalf("refused execution left the quote %s", st)
	}
	w.fund(10_000)
	if r := w.c.Do("POST", "/quotes/"+big.ID+"/execute", nil); r.Status != 200 {
		t.Fatalf("execute after funding: %d %s", r.Status, r.Body)
	}
	if r := w.c.Do("GET", "/quotes/Quote:0190a000-0000-7000-8000-000000000009", nil); r.Status != 404 || r.Code(t) != "QUOTE_NOT_FOUND" {
		t.Fatalf("unknown quote: %d %s", r.Status, r.Body)
	}
}

// A quote into another customer's internal account converts and credits it at once;
// locking the receiving side delivers exactly the locked amount.
func TestQuoteToInternalAccount(t *testing.T) {
	t.Parallel()
	s := newStack(t, quoteFast)
	w := fxWorld(t, s)
	w.fund(100_000)
	r := w.c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "MX", "fullName": "Frida Kahlo", "currencies": []string{"MXN"}})
	if r.Status != 201 {
		t.Fatalf("create customer: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	r.Decode(t, &cust)
	var accts api.List[view.InternalAccount]
	w.c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	mxn := accts.Data[0].ID
	r = w.quote(mxn, "RECEIVING", 12_345, map[string]any{"immediatelyExecute": true})
	if r.Status != 201 {
		t.Fatalf("quote: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(t, &q)
	if q.TotalReceivingAmount != 12_345 || q.Destination.AccountID != mxn {
		t.Fatalf("quote %+v", q)
	}
	tx := w.waitFinal(q.TransactionID, 20*time.Second)
	if tx.Status != "COMPLETED" {
		t.Fatalf("payment %s", tx.Status)
	}
	w.c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	if accts.Data[0].Balance.Amount != 12_345 || w.balance() != 100_000-q.TotalSendingAmount {
		t.Fatalf("MXN balance %d, USD %d", accts.Data[0].Balance.Amount, w.balance())
	}
	checkLedger(t, s)
}

// A REALTIME_FUNDING quote answers deposit instructions unique to it; the deposit
// (POST /sandbox/send) executes it and it pays out; a deposit that differs from the total
// fails it and is refunded, one after expiry is sent back, and a failed payout gives the
// deposit back. The payer is the customer named or the platform; money never sticks in
// the deposits account.
func TestRealtimeFundedQuotes(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) { quoteFast(c); c.QuoteLifetime = 8 * time.Second })
	w := fxWorld(t, s)
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR"), currencyItem("USDC")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	realtime := func(ext, currency, network string, amount int64) view.Quote {
		t.Helper()
		src := map[string]any{"sourceType": "REALTIME_FUNDING", "currency": currency, "customerId": w.customer}
		if network != "" {
			src["cryptoNetwork"] = network
		}
		r := w.c.Do("POST", "/quotes", map[string]any{"source": src, "destination": map[string]any{"destinationType": "ACCOUNT", "accountId": ext},
			"lockedCurrencySide": "SENDING", "lockedCurrencyAmount": amount})
		if r.Status != 201 {
			t.Fatalf("realtime quote: %d %s", r.Status, r.Body)
		}
		var q view.Quote
		r.Decode(t, &q)
		return q
	}
	send := func(q view.Quote, currency string, amount any) *apitest.Response {
		body := map[string]any{"quoteId": q.ID, "currencyCode": currency}
		if amount != nil {
			body["currencyAmount"] = amount
		}
		return w.c.Do("POST", "/sandbox/send", body)
	}
	ok := w.euroAccount("001")

	// Paid: instructions with the quote's reference, the deposit executes it.
	q := realtime(ok, "USD", "", 10_000)
	if len(q.PaymentInstructions) != 1 || q.PaymentInstructions[0].AccountOrWalletInfo["accountType"] != "USD_ACCOUNT" ||
		q.PaymentInstructions[0].AccountOrWalletInfo["reference"] == "" || q.Source.SourceType != "REALTIME_FUNDING" {
		t.Fatalf("deposit instructions %+v", q)
	}
	if r := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil); r.Status != 409 {
		t.Fatalf("execute a realtime quote: %d %s", r.Status, r.Body)
	}
	if r := send(q, "EUR", nil); r.Status != 400 || r.Code(t) != "INVALID_CURRENCY" {
		t.Fatalf("deposit in the wrong currency: %d %s", r.Status, r.Body)
	}
	if r := send(q, "USD", nil); r.Status != 200 {
		t.Fatalf("deposit: %d %s", r.Status, r.Body)
	}
	if r := send(q, "USD", nil); r.Status != 409 {
		t.Fatalf("second deposit: %d %s", r.Status, r.Body)
	}
	if tx := w.waitFinal(q.TransactionID, 20*time.Second); tx.Status != "COMPLETED" || tx.Source.SourceType != "REALTIME_FUNDING" {
		t.Fatalf("realtime payment %+v", tx)
	}
	// The source names who sent the deposit, as the (sandbox's) funding rail reported it.
	if src := w.transaction(q.TransactionID).Source; src.Originator == nil || src.AccountHolderName != "Sandbox Payer" || src.PaymentRail != "ACH" ||
		src.AccountIdentifier != "****6789" || src.BankIdentifier != "021000021" || src.RemittanceInformation == "" || src.TraceNumber == "" {
		t.Fatalf("deposit originator %+v", src)
	}

	// The deposit step run twice (a retried activity) records one deposit and answers the
	// same; another deposit is refused.
	twice := realtime(ok, "USD", "", 10_000)
	acts := activities.New(activities.Options{Pool: s.app.pool})
	qid, _ := ids.Parse(ids.Quote, twice.ID)
	first, err1 := acts.FundQuote(context.Background(), qid, quote.Deposit{Key: "k1", Amount: 10_000})
	second, err2 := acts.FundQuote(context.Background(), qid, quote.Deposit{Key: "k1", Amount: 10_000})
	_, err3 := acts.FundQuote(context.Background(), qid, quote.Deposit{Key: "k2", Amount: 10_000})
	if err1 != nil || err2 != nil || err3 == nil || !first.Matches || !second.Matches || first.Late || second.Late || string(first.Resource) != string(second.Resource) {
		t.Fatalf("deposit step twice: %v %v %v (%+v, %+v)", err1, err2, err3, first, second)
	}
	var entries int
	_ = s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM ledger_entries WHERE transaction_id::text = $1", strings.TrimPrefix(twice.TransactionID, "Transaction:")).Scan(&entries)
	if entries != 2 {
		t.Fatalf("the deposit step run twice posted %d entries, want 2", entries)
	}

	// Crypto on a network: an address of that network.
	cq := realtime(ok, "USDC", "BASE", 5_000_000)
	if info := cq.PaymentInstructions[0].AccountOrWalletInfo; info["accountType"] != "BASE_WALLET" || !strings.HasPrefix(info["address"].(string), "0x") {
		t.Fatalf("USDC on Base instructions %+v", cq.PaymentInstructions)
	}
	// Its deposit names its transaction on the network, and no bank originator.
	if r := send(cq, "USDC", nil); r.Status != 200 {
		t.Fatalf("USDC deposit: %d %s", r.Status, r.Body)
	}
	if src := w.transaction(cq.TransactionID).Source; src.OnChainTransaction == nil || src.OnChainTransaction.Network != "BASE" ||
		!strings.HasPrefix(src.OnChainTransaction.TransactionHash, "0x") || src.Originator != nil {
		t.Fatalf("USDC deposit's source: %+v", src)
	}

	// A deposit short of the total: FAILED, refunded.
	short := realtime(ok, "USD", "", 10_000)
	if r := send(short, "USD", 9_999); r.Status != 200 {
		t.Fatalf("short deposit: %d %s", r.Status, r.Body)
	}
	var tx view.Transaction
	eventually(t, 20*time.Second, "the short deposit refunded", func() bool {
		tx = w.transaction(short.TransactionID)
		return tx.Refund != nil && tx.Refund.Status == "COMPLETED"
	})
	if tx.Status != "FAILED" || ptr(tx.FailureReason) != "FUNDING_AMOUNT_MISMATCH" {
		t.Fatalf("short deposit: %+v", tx)
	}

	// A failed payout (002) gives the deposit back.
	failing := realtime(w.euroAccount("002"), "USD", "", 10_000)
	send(failing, "USD", nil)
	eventually(t, 20*time.Second, "the failed payout refunded", func() bool {
		tx = w.transaction(failing.TransactionID)
		return tx.Refund != nil && tx.Refund.Status == "COMPLETED"
	})
	if tx.Status != "FAILED" || ptr(tx.FailureReason) != "QUOTE_EXECUTION_FAILED" {
		t.Fatalf("failed realtime payout: %+v", tx)
	}

	// After expiry: sent back.
	late := realtime(ok, "USD", "", 10_000)
	eventually(t, 20*time.Second, "the quote to expire", func() bool { return w.transaction(late.TransactionID).Status == "EXPIRED" })
	if r := send(late, "USD", nil); r.Status != 200 {
		t.Fatalf("late deposit: %d %s", r.Status, r.Body)
	}
	tx = w.transaction(late.TransactionID)
	if tx.Status != "EXPIRED" || tx.Refund == nil || tx.Refund.Status != "COMPLETED" || ptr(tx.Refund.Reason) != "TIMEOUT" {
		t.Fatalf("late deposit: %+v", tx)
	}
	if got := strings.Join(w.events(late.TransactionID), ","); got != "PENDING,EXPIRED,REFUND_PENDING,REFUND_COMPLETED" {
		t.Fatalf("late deposit events %s", got)
	}

	// Nothing is left in the deposits account, and only the paid quote's money moved on.
	var deposits, held int64
	_ = s.app.pool.QueryRow(context.Background(), "SELECT coalesce(sum(balance), 0)::bigint, coalesce(sum(held), 0)::bigint FROM ledger_balances WHERE kind = 'DEPOSITS'").Scan(&deposits, &held)
	if deposits != 0 || held != 0 {
		t.Fatalf("deposits account holds %d (%d held)", deposits, held)
	}
	checkLedger(t, s)
}

// The sandbox's UMA counterparties: a lookup shows what they take and require and gives a
// lookupId; a quote to $success.* completes, $pending.long.usd completes after the slow
// delay, $fail.compliance.usd fails with the money back; other addresses are refused.
func TestUmaQuotes(t *testing.T) {
	t.Parallel()
	s := newStack(t, quoteFast)
	w := fxWorld(t, s)
	w.fund(100_000)
	eurUma := "$success.eur@" + incoming.SandboxDomain
	r := w.c.Do("GET", "/receiver/uma/"+url.PathEscape(eurUma)+"?customerId="+w.customer, nil)
	if r.Status != 200 {
		t.Fatalf("lookup: %d %s", r.Status, r.Body)
	}
	var lookup view.ReceiverLookup
	r.Decode(t, &lookup)
	if len(lookup.SupportedCurrencies) != 1 || lookup.SupportedCurrencies[0].Currency.Code != "EUR" || lookup.ReceiverUmaAddress != eurUma ||
		len(lookup.RequiredPayerDataFields) != 1 || lookup.RequiredPayerDataFields[0].Name != "FULL_NAME" {
		t.Fatalf("lookup %+v", lookup)
	}
	if r := w.c.Do("GET", "/receiver/uma/"+url.PathEscape("$bob@example.com"), nil); r.Status != 400 || r.Code(t) != "INVALID_UMA_ADDRESS" {
		t.Fatalf("unknown receiver: %d %s", r.Status, r.Body)
	}
	ext := w.euroAccount("001")
	var extLookup view.ReceiverLookup
	w.c.Do("GET", "/receiver/external-account/"+ext, nil).Decode(t, &extLookup)
	if extLookup.AccountID != ext || extLookup.SupportedCurrencies[0].Currency.Code != "EUR" {
		t.Fatalf("external lookup %+v", extLookup)
	}

	uma := func(address string, extra map[string]any) *apitest.Response {
		body := map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": w.account},
			"destination": map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": address}, "lockedCurrencySide": "RECEIVING", "lockedCurrencyAmount": 5000}
		for k, v := range extra {
			body[k] = v
		}
		return w.c.Do("POST", "/quotes", body)
	}
	if r := uma(eurUma, map[string]any{"lookupId": extLookup.LookupID}); r.Status != 400 {
		t.Fatalf("a lookup of another receiver: %d %s", r.Status, r.Body)
	}
	r = uma(eurUma, map[string]any{"lookupId": lookup.LookupID})
	if r.Status != 201 {
		t.Fatalf("UMA quote: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(t, &q)
	if q.Destination.UmaAddress != eurUma || q.TotalReceivingAmount != 5000 || q.ReceivingCurrency.Code != "EUR" {
		t.Fatalf("UMA quote %+v", q)
	}
	w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil)
	tx := w.waitFinal(q.TransactionID, 20*time.Second)
	if tx.Status != "COMPLETED" || tx.Destination.DestinationType != "UMA_ADDRESS" || tx.Destination.UmaAddress != eurUma {
		t.Fatalf("UMA payment %+v", tx)
	}
	if r := uma("$success.gbp@"+incoming.SandboxDomain, nil); r.Status != 400 || r.Code(t) != "INVALID_UMA_ADDRESS" {
		t.Fatalf("no such counterparty: %d %s", r.Status, r.Body)
	}

	// USD counterparties, paid from euros deposited in real time.
	deposit := func(address string) view.Transaction {
		t.Helper()
		r := w.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "REALTIME_FUNDING", "currency": "EUR", "customerId": w.customer},
			"destination": map[string]any{"destinationType": "UMA_ADDRESS", "umaAddress": address}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 5000})
		if r.Status != 201 {
			t.Fatalf("quote to %s: %d %s", address, r.Status, r.Body)
		}
		var q view.Quote
		r.Decode(t, &q)
		start := time.Now() // the receiver's wait starts after the deposit does
		if r := w.c.Do("POST", "/sandbox/send", map[string]any{"quoteId": q.ID, "currencyCode": "EUR"}); r.Status != 200 {
			t.Fatalf("deposit: %d %s", r.Status, r.Body)
		}
		var tx view.Transaction
		eventually(t, 20*time.Second, "the payment to "+address, func() bool {
			tx = w.transaction(q.TransactionID)
			return tx.Status == "COMPLETED" || (tx.Refund != nil && tx.Refund.Status == "COMPLETED")
		})
		if address == "$pending.long.usd@"+incoming.SandboxDomain && time.Since(start) < 2*time.Second {
			t.Fatalf("the long-pending receiver completed after %s", time.Since(start))
		}
		return tx
	}
	if tx := deposit("$pending.long.usd@" + incoming.SandboxDomain); tx.Status != "COMPLETED" {
		t.Fatalf("long-pending receiver: %s", tx.Status)
	}
	if tx := deposit("$fail.compliance.usd@" + incoming.SandboxDomain); tx.Status != "FAILED" || ptr(tx.FailureReason) != "COMPLIANCE_REJECTED" {
		t.Fatalf("compliance failure: %+v", tx)
	}
	checkLedger(t, s)
}

// Operators find a quote's payment by its quote id, status and customer while it waits,
// and an incoming payment waiting for its platform's decision by its status.
func TestOperatorsFindQuotesAndApprovals(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) { c.QuoteSlowDelay, c.ApprovalDeadline = 4*time.Second, 4*time.Second })
	w := fxWorld(t, s)
	w.fund(50_000)
	find := func(query string) int {
		resp, err := s.app.temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: query})
		if err != nil {
			t.Fatalf("list %q: %v", query, err)
		}
		return len(resp.Executions)
	}
	q := w.newQuote(w.euroAccount("003"), 10_000)
	pending := fmt.Sprintf(`QuoteId = %q AND TransactionStatus = "PENDING" AND CustomerId = %q AND WorkflowType = "Quote"`, q.ID, w.customer)
	eventually(t, 10*time.Second, "the unexecuted quote in visibility", func() bool { return find(pending) == 1 })
	w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil)
	slow := fmt.Sprintf(`QuoteId = %q AND TransactionId = %q AND TransactionStatus = "PROCESSING"`, q.ID, q.TransactionID)
	eventually(t, 10*time.Second, "the slow payment in visibility", func() bool { return find(slow) == 1 })

	ap := newApprover(t)
	ap.answer[3003] = reply(202, ``)
	setEndpointDirect(t, s, w.platform, ap.srv.URL)
	r := w.c.Do("POST", "/sandbox/uma/receive", map[string]any{"senderUmaAddress": "$success.usd@" + incoming.SandboxDomain,
		"customerId": w.customer, "receivingCurrencyCode": "USD", "receivingCurrencyAmount": 3003})
	var tx view.Transaction
	r.Decode(t, &tx)
	waiting := fmt.Sprintf(`TransactionId = %q AND TransactionStatus = "PENDING" AND WorkflowType = "IncomingPayment" AND ExecutionStatus = "Running"`, tx.ID)
	eventually(t, 10*time.Second, "the payment awaiting approval in visibility", func() bool { return find(waiting) == 1 })
}

// Another platform's quotes, quote transactions, lookups and receivers are 404 on every
// new route, and nothing of theirs moves.
func TestQuotesOfAnotherPlatformAre404(t *testing.T) {
	t.Parallel()
	s := newStack(t, quoteFast)
	owner := fxWorld(t, s)
	owner.fund(50_000)
	ext := owner.euroAccount("001")
	q := owner.newQuote(ext, 10_000)
	var lookup view.ReceiverLookup
	owner.c.Do("GET", "/receiver/external-account/"+ext, nil).Decode(t, &lookup)
	rt := owner.c.Do("POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "REALTIME_FUNDING", "currency": "USD", "customerId": owner.customer},
		"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": ext}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 1000}).JSON(t)
	if rt["id"] == nil {
		t.Fatalf("realtime quote: %v", rt)
	}

	other := fxWorld(t, s)
	cases := []struct {
		name, method, path string
		body               any
		code               string
	}{
		{"get quote", "GET", "/quotes/" + q.ID, nil, "QUOTE_NOT_FOUND"},
		{"execute quote", "POST", "/quotes/" + q.ID + "/execute", nil, "QUOTE_NOT_FOUND"},
		{"deposit", "POST", "/sandbox/send", map[string]any{"quoteId": rt["id"], "currencyCode": "USD"}, "QUOTE_NOT_FOUND"},
		{"quote transaction", "GET", "/transactions/" + q.TransactionID, nil, "TRANSACTION_NOT_FOUND"},
		{"approve", "POST", "/transactions/" + q.TransactionID + "/approve", nil, "TRANSACTION_NOT_FOUND"},
		{"reject", "POST", "/transactions/" + q.TransactionID + "/reject", nil, "TRANSACTION_NOT_FOUND"},
		{"external lookup", "GET", "/receiver/external-account/" + ext, nil, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"quote to their account", "POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": other.account},
			"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": ext}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 1000}, "EXTERNAL_ACCOUNT_NOT_FOUND"},
		{"quote from their account", "POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": owner.account},
			"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": other.euroAccount("001")}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 1000}, "ACCOUNT_NOT_FOUND"},
		{"their lookup", "POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": other.account},
			"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": other.euroAccount("001")}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 1000,
			"lookupId": lookup.LookupID}, "LOOKUP_REQUEST_NOT_FOUND"},
		{"deposit for their customer", "POST", "/quotes", map[string]any{"source": map[string]any{"sourceType": "REALTIME_FUNDING", "currency": "USD", "customerId": owner.customer},
			"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": other.euroAccount("001")}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 1000}, "USER_NOT_FOUND"},
		{"their receiver", "POST", "/sandbox/uma/receive", map[string]any{"senderUmaAddress": "$success.usd@" + incoming.SandboxDomain, "customerId": owner.customer,
			"receivingCurrencyCode": "USD", "receivingCurrencyAmount": 5}, "USER_NOT_FOUND"},
	}
	for _, tc := range cases {
		if r := other.c.Do(tc.method, tc.path, tc.body); r.Status != 404 || r.Code(t) != tc.code {
			t.Errorf("%s: %d %s, want 404 %s", tc.name, r.Status, r.Body, tc.code)
		}
	}
	if st := owner.transaction(q.TransactionID).Status; st != "PENDING" || owner.balance() != 50_000 {
		t.Fatalf("another platform moved the quote to %s (balance %d)", st, owner.balance())
	}
}

// An execution whose first attempt committed in the database while its update never
// reached the quote's workflow (the worker or Temporal went down before the workflow task
// completed) goes on when the client repeats the request with its Idempotency-Key, not
// only at the quote's expiry.
func TestQuoteExecutionRepeatedAfterALostUpdate(t *testing.T) {
	t.Parallel()
	s := newStack(t, quoteFast, func(c *config.Config) { c.QuoteLifetime = 10 * time.Minute })
	w := fxWorld(t, s)
	w.fund(100_000)
	q := w.newQuote(w.euroAccount("001"), 10_000)
	quoteID, err := ids.Parse(ids.Quote, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The first attempt's execution, committed without the workflow's knowledge.
	sum := sha256.Sum256([]byte(w.platform.ID.String() + "\x00" + "lost-update"))
	if _, err := db.NewStore(s.app.pool, view.Resources{}).QuoteExecute(context.Background(), quoteID, quote.Execution{Key: "key:" + hex.EncodeToString(sum[:])}, time.Now(), true); err != nil {
		t.Fatal(err)
	}
	if tx := w.transaction(q.TransactionID); tx.Status != "PROCESSING" {
		t.Fatalf("after the execution: %s", tx.Status)
	}
	if r := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil, "Idempotency-Key", "lost-update"); r.Status != 200 {
		t.Fatalf("the repeat: %d %s", r.Status, r.Body)
	}
	if tx := w.waitFinal(q.TransactionID, time.Minute); tx.Status != "COMPLETED" {
		t.Fatalf("the payment ended %s", tx.Status)
	}
}
