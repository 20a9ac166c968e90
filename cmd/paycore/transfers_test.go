package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/view"
	"paycore/internal/banking"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
	"paycore/internal/transfer"
	"paycore/workflows"
)

// world is a sandbox platform with one USD customer account and helpers to move money.
type world struct {
	t        testing.TB
	s        *stack
	c        *apitest.Client
	platform db.Platform
	customer string
	account  string // the customer's USD internal account
}

func newWorld(t testing.TB, s *stack) *world {
	t.Helper()
	c, p := s.platform(true)
	return newWorldOn(t, s, c, p)
}

// newWorldOn is newWorld on the platform p, reached with c.
func newWorldOn(t testing.TB, s *stack, c *apitest.Client, p db.Platform) *world {
	t.Helper()
	r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US", "fullName": "Ada Lovelace", "currencies": []string{"USD"}})
	if r.Status != 201 {
		t.Fatalf("create customer: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	r.Decode(t, &cust)
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	if len(accts.Data) != 1 {
		t.Fatalf("want one internal account, got %d", len(accts.Data))
	}
	return &world{t: t, s: s, c: c, platform: p, customer: cust.ID, account: accts.Data[0].ID}
}

func (w *world) fund(amount int64) {
	w.t.Helper()
	if r := w.c.Do("POST", "/sandbox/internal-accounts/"+w.account+"/fund", map[string]any{"amount": amount}); r.Status != 200 {
		w.t.Fatalf("fund: %d %s", r.Status, r.Body)
	}
}

var accountSeq atomic.Int64

// external registers a USD external account whose account number ends in suffix.
func (w *world) external(suffix string) string {
	w.t.Helper()
	number := fmt.Sprintf("%06d%03d", accountSeq.Add(1), 0)[:6] + fmt.Sprintf("%03d", time.Now().UnixNano()%1000) + suffix
	r := w.c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": w.customer, "currency": "USD",
		"accountInfo": map[string]any{"accountType": "USD_ACCOUNT", "accountNumber": number, "routingNumber": banking.MakeABA("02100002"),
			"beneficiary": map[string]any{"beneficiaryType": "INDIVIDUAL", "fullName": "Ada Lovelace"}}})
	if r.Status != 201 {
		w.t.Fatalf("create external account: %d %s", r.Status, r.Body)
	}
	return r.JSON(w.t)["id"].(string)
}

func (w *world) balance() int64 {
	w.t.Helper()
	var accts api.List[view.InternalAccount]
	w.c.Do("GET", "/customers/internal-accounts?customerId="+w.customer, nil).Decode(w.t, &accts)
	return accts.Data[0].Balance.Amount
}

func (w *world) transaction(id string) view.Transaction {
	w.t.Helper()
	var tx view.Transaction
	r := w.c.Do("GET", "/transactions/"+id, nil)
	if r.Status != 200 {
		w.t.Fatalf("get transaction: %d %s", r.Status, r.Body)
	}
	r.Decode(w.t, &tx)
	return tx
}

func (w *world) waitFinal(id string, timeout time.Duration) view.Transaction {
	w.t.Helper()
	var tx view.Transaction
	eventually(w.t, timeout, "transaction "+id+" to finish", func() bool {
		tx = w.transaction(id)
		return tx.Status == "COMPLETED" || tx.Status == "FAILED"
	})
	return tx
}

func (w *world) transferOut(ext string, amount int64, headers ...string) *apitest.Response {
	return w.c.Do("POST", "/transfer-out", map[string]any{"source": map[string]any{"accountId": w.account},
		"destination": map[string]any{"accountId": ext}, "amount": amount}, headers...)
}

func (w *world) transferIn(ext string, amount int64) *apitest.Response {
	return w.c.Do("POST", "/transfer-in", map[string]any{"source": map[string]any{"accountId": ext},
		"destination": map[string]any{"accountId": w.account}, "amount": amount})
}

func fast(c *config.Config) { c.SandboxSlowDelay = 2 * time.Second }

// Every sandbox suffix ends as the spec says, and the balance follows.
func TestTransferOutcomesBySuffix(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := newWorld(t, s)
	w.fund(100_000)
	cases := []struct {
		suffix, status, code, reason string
	}{
		{"001", "COMPLETED", "", ""},
		{"002", "FAILED", "INSUFFICIENT_FUNDS", ""},
		{"003", "FAILED", "ACCOUNT_CLOSED", "ACCOUNT_INVALID"},
		{"004", "FAILED", "REJECTED_BY_BANK", "ACCOUNT_CANNOT_RECEIVE"},
		{"005", "FAILED", "TIMED_OUT", ""},
		{"006", "FAILED", "COMPLIANCE_REJECTED", "COMPLIANCE_REJECTED"},
		{"007", "FAILED", "LIMIT_EXCEEDED", "LIMIT_EXCEEDED"},
	}
	for _, tc := range cases {
		ext := w.external(tc.suffix)
		before := w.balance()
		// The slow scenario's durable wait starts after the request does: however slow the
		// checks below, the payment cannot end sooner than slowDelay after start.
		start := time.Now()
		r := w.transferOut(ext, 1000)
		if r.Status != 201 {
			t.Fatalf("%s: transfer-out %d %s", tc.suffix, r.Status, r.Body)
		}
		var tx view.Transaction
		r.Decode(t, &tx)
		if tx.Type != "OUTGOING" || tx.ReconciliationInstructions == nil || tx.ReconciliationInstructions.Reference == "" || tx.SentAmount == nil {
			t.Fatalf("%s: created transaction %s", tc.suffix, r.Body)
		}
		// The hold is there until the transaction is final; a fast failure may already have
		// released it, which the final balance below checks.
		if got := w.balance(); got != before-1000 {
			if st := w.transaction(tx.ID).Status; st != "COMPLETED" && st != "FAILED" {
				t.Fatalf("%s: the hold did not reduce the available balance: %d -> %d (%s)", tc.suffix, before, got, st)
			}
		}
		final := w.waitFinal(tx.ID, 20*time.Second)
		if string(final.Status) != tc.status {
			t.Fatalf("%s: status %s, want %s", tc.suffix, final.Status, tc.status)
		}
		switch {
		case tc.status == "COMPLETED":
			if final.SettledAt == nil || w.balance() != before-1000 {
				t.Fatalf("%s: settledAt %v, balance %d", tc.suffix, final.SettledAt, w.balance())
			}
		default:
			if final.FailureDetails == nil || final.FailureDetails.Code != tc.code || w.balance() != before {
				t.Fatalf("%s: failure %+v, balance %d (want %d: hold released)", tc.suffix, final.FailureDetails, w.balance(), before)
			}
			if got := ptr(final.FailureReason); got != tc.reason {
				t.Fatalf("%s: failureReason %q, want %q", tc.suffix, got, tc.reason)
			}
		}
		if tc.suffix == "005" && time.Since(start) < 2*time.Second {
			t.Fatalf("005 did not stay pending for the slow delay (%s)", time.Since(start))
		}
	}
	// Transfers in: success credits, failures do not.
	before := w.balance()
	ok := w.transferIn(w.external("009"), 700)
	if ok.Status != 201 {
		t.Fatalf("transfer-in: %d %s", ok.Status, ok.Body)
	}
	var in view.Transaction
	ok.Decode(t, &in)
	if in.Type != "INCOMING" || w.waitFinal(in.ID, 20*time.Second).Status != "COMPLETED" || w.balance() != before+700 {
		t.Fatalf("transfer-in: %+v balance %d", in, w.balance())
	}
	// A transfer in that could not collect the money fails COLLECTION_FAILED; one the
	// bank's compliance screening refused, COMPLIANCE_REJECTED.
	for suffix, reason := range map[string]string{"003": "COLLECTION_FAILED", "006": "COMPLIANCE_REJECTED"} {
		bad := w.transferIn(w.external(suffix), 700)
		var failed view.Transaction
		bad.Decode(t, &failed)
		if got := w.waitFinal(failed.ID, 20*time.Second); got.Status != "FAILED" || ptr(got.FailureReason) != reason || w.balance() != before+700 {
			t.Fatalf("failed transfer-in %s: %s %q, balance %d", suffix, got.Status, ptr(got.FailureReason), w.balance())
		}
	}
	// Each status change was announced: the outbox holds the transaction's events in order.
	rows, err := s.app.pool.Query(context.Background(), "SELECT type, data->>'status' FROM webhook_events WHERE data->>'id' = $1 ORDER BY created_at, id", in.ID)
	if err != nil {
		t.Fatal(err)
	}
	var seq []string
	for rows.Next() {
		var typ, status string
		_ = rows.Scan(&typ, &status)
		seq = append(seq, typ+"/"+status)
	}
	if strings.Join(seq, ",") != "INCOMING_PAYMENT_PENDING/PENDING,INCOMING_PAYMENT_COMPLETED/COMPLETED" {
		t.Fatalf("incoming events: %v", seq)
	}
	var outEvents int
	_ = s.app.pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_events WHERE type IN
		('OUTGOING_PAYMENT_PENDING','OUTGOING_PAYMENT_PROCESSING','OUTGOING_PAYMENT_COMPLETED','OUTGOING_PAYMENT_FAILED')`).Scan(&outEvents)
	if outEvents != len(cases)*3 {
		t.Fatalf("%d outgoing payment events for %d transfers, want %d (pending, processing, final)", outEvents, len(cases), len(cases)*3)
	}
	// Webhook-visible history: the transactions list shows them all.
	var list api.List[view.Transaction]
	w.c.Do("GET", "/transactions?accountIdentifier="+w.account+"&limit=100", nil).Decode(t, &list)
	if want := int64(1 + len(cases) + 3); list.TotalCount != want { // 1 funding, the transfers out, 3 in
		t.Fatalf("want %d transactions on the account, got %d", want, list.TotalCount)
	}
}

// Fifty simultaneous transfer-outs with one Idempotency-Key make one transaction and
// the same answer (once the ones told to retry later have retried).
func TestTransferIdempotency(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := newWorld(t, s)
	w.fund(10_000)
	ext := w.external("001")
	const n = 50
	res := make([]*apitest.Response, n)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			// A request still running when a duplicate's wait ends answers 409
			// IDEMPOTENCY_REQUEST_IN_PROGRESS with Retry-After: a client retries it.
			for try := 0; ; try++ {
				res[i] = w.transferOut(ext, 2500, "Idempotency-Key", "pay-once")
				if res[i].Status != 409 || try == 30 || !strings.Contains(string(res[i].Body), "IDEMPOTENCY_REQUEST_IN_PROGRESS") {
					break
				}
				time.Sleep(time.Second)
			}
		}()
	}
	close(gate)
	wg.Wait()
	for i, r := range res {
		if r.Status != 201 || string(r.Body) != string(res[0].Body) {
			t.Fatalf("response %d: %d %s vs %s", i, r.Status, r.Body, res[0].Body)
		}
	}
	var count int
	if err := s.app.pool.QueryRow(context.Background(), "SELECT count(*) FROM transactions WHERE kind = 'TRANSFER_OUT'").Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != 1 {
		t.Fatalf("%d transactions for one key", count)
	}
	var tx view.Transaction
	res[0].Decode(t, &tx)
	w.waitFinal(tx.ID, 20*time.Second)
	if w.balance() != 7_500 {
		t.Fatalf("balance %d, want 7500", w.balance())
	}
	// The stored answer outlives a crash of the API only for 24 hours; after that the key
	// still cannot pay twice: the transaction id comes from the key.
	if _, err := s.app.pool.Exec(context.Background(), "DELETE FROM idempotency_keys"); err != nil {
		t.Fatal(err)
	}
	again := w.transferOut(ext, 2500, "Idempotency-Key", "pay-once")
	var same view.Transaction
	again.Decode(t, &same)
	if again.Status != 201 || same.ID != tx.ID || same.Status != "COMPLETED" || w.balance() != 7_500 {
		t.Fatalf("repeat after the record expired: %d %s (balance %d)", again.Status, again.Body, w.balance())
	}
	// A refused transfer's key, reused after its record expired, is refused clearly.
	if r := w.transferOut(ext, 1_000_000, "Idempotency-Key", "too-much"); r.Status != 400 || r.Code(t) != "INSUFFICIENT_FUNDS" {
		t.Fatalf("refusal: %d %s", r.Status, r.Body)
	}
	if _, err := s.app.pool.Exec(context.Background(), "DELETE FROM idempotency_keys"); err != nil {
		t.Fatal(err)
	}
	if r := w.transferOut(ext, 1_000_000, "Idempotency-Key", "too-much"); r.Status != 422 {
		t.Fatalf("reused refused key: %d %s", r.Status, r.Body)
	}
}

// Operators find a payment's workflow in Temporal by transaction id, customer, platform and
// current status.
func TestOperatorsFindPaymentsBySearchAttributes(t *testing.T) {
	t.Parallel()
	s := newStack(t, func(c *config.Config) { c.SandboxSlowDelay = 4 * time.Second })
	w := newWorld(t, s)
	w.fund(5000)
	r := w.transferOut(w.external("005"), 1000)
	var tx view.Transaction
	r.Decode(t, &tx)
	find := func(query string) int {
		resp, err := s.app.temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: query})
		if err != nil {
			t.Fatalf("list %q: %v", query, err)
		}
		return len(resp.Executions)
	}
	q := fmt.Sprintf(`TransactionId = %q AND TransactionStatus = "PROCESSING" AND CustomerId = %q`, tx.ID, w.customer)
	eventually(t, 10*time.Second, "the pending payment in visibility", func() bool { return find(q) == 1 })
	w.waitFinal(tx.ID, 20*time.Second)
	eventually(t, 10*time.Second, "the final status in visibility", func() bool {
		return find(fmt.Sprintf(`TransactionId = %q AND TransactionStatus = "FAILED" AND ExecutionStatus = "Completed"`, tx.ID)) == 1
	})
}

// A bank's rejection of a transfer out (sandbox 004) is FAILED with the rejection in
// failureDetails and failureReason ACCOUNT_CANNOT_RECEIVE (within the outgoing enum), in GET, in the list, and
// in the OUTGOING_PAYMENT_FAILED webhook the platform receives (checked against the
// document's OutgoingTransaction).
func TestBankRejectedTransferOutIsFailed(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := newWorld(t, s)
	rc := newReceiver(t, nil)
	setEndpoint(t, w.c, rc.srv.URL)
	w.fund(5000)
	var tx view.Transaction
	if r := w.transferOut(w.external("004"), 1000); r.Status != 201 {
		t.Fatalf("transfer-out: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &tx)
	}
	check := func(where string, got view.Transaction) {
		t.Helper()
		if got.Status != "FAILED" || ptr(got.FailureReason) != "ACCOUNT_CANNOT_RECEIVE" || got.FailureDetails == nil || got.FailureDetails.Code != "REJECTED_BY_BANK" {
			t.Fatalf("%s: status %s, failureReason %v, failureDetails %+v", where, got.Status, got.FailureReason, got.FailureDetails)
		}
	}
	check("GET", w.waitFinal(tx.ID, 20*time.Second))
	var list api.List[view.Transaction]
	w.c.Do("GET", "/transactions?type=OUTGOING&status=FAILED", nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != tx.ID {
		t.Fatalf("FAILED outgoing transactions: %+v", list.Data)
	}
	check("list", list.Data[0])
	w.c.Do("GET", "/transactions?type=OUTGOING&status=REJECTED", nil).Decode(t, &list)
	if list.TotalCount != 0 {
		t.Fatalf("REJECTED outgoing transactions listed: %+v", list.Data)
	}
	var body []byte
	eventually(t, 20*time.Second, "the OUTGOING_PAYMENT_FAILED webhook", func() bool {
		for i := range rc.count() {
			d := rc.get(i)
			var env struct {
				Type string          `json:"type"`
				Data json.RawMessage `json:"data"`
			}
			_ = json.Unmarshal(d.body, &env)
			if env.Type == "OUTGOING_PAYMENT_FAILED" && strings.Contains(string(env.Data), tx.ID) {
				body = d.body
				return true
			}
		}
		return false
	})
	if errs := apitest.SchemaErrors(t, "WebhookEnvelope", body); len(errs) > 0 {
		t.Fatalf("the webhook does not match the document: %v\n%s", errs, body)
	}
	var env struct {
		Data view.Transaction `json:"data"`
	}
	_ = json.Unmarshal(body, &env)
	check("webhook", env.Data)
}

// A payment its rail holds for compliance review (sandbox 008) shows pendingReason
// COMPLIANCE_REVIEW while it waits at its rail, in and out, and none once it completed.
func TestTransferPendingReason(t *testing.T) {
	t.Parallel()
	// The pendingReason shows only while the rail's slow wait lasts.
	s := newStack(t, func(c *config.Config) { c.SandboxSlowDelay = 6 * time.Second })
	w := newWorld(t, s)
	w.fund(10_000)
	// Each transfer is made just before its pendingReason is looked for: made together, the
	// second one's slow wait would run while the first one's is watched, and could end first.
	for i, create := range []func() *apitest.Response{
		func() *apitest.Response { return w.transferOut(w.external("008"), 1_000) },
		func() *apitest.Response { return w.transferIn(w.external("008"), 2_000) },
	} {
		r := create()
		if r.Status != 201 {
			t.Fatalf("transfer: %d %s", r.Status, r.Body)
		}
		id := r.JSON(t)["id"].(string)
		txID, err := ids.Parse(ids.Transaction, id)
		if err != nil {
			t.Fatal(err)
		}
		var seen view.Transaction
		eventually(t, 30*time.Second, "COMPLIANCE_REVIEW", func() bool {
			seen = w.transaction(id)
			return seen.PendingReason != nil
		}, func() string {
			return fmt.Sprintf("%s %v\n%s", seen.Status, seen.PendingReason, dumpWorkflow(s, workflows.TransferWorkflowID([]transfer.Kind{transfer.Out, transfer.In}[i], txID)))
		})
		if seen.Status != "PROCESSING" || *seen.PendingReason != "COMPLIANCE_REVIEW" {
			t.Fatalf("pending: %s %q", seen.Status, *seen.PendingReason)
		}
		if final := w.waitFinal(id, 40*time.Second); final.Status != "COMPLETED" || final.PendingReason != nil {
			t.Fatalf("final: %s %v", final.Status, final.PendingReason)
		}
	}
	if got := w.balance(); got != 11_000 {
		t.Fatalf("balance %d", got)
	}
}
