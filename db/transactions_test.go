package db_test

import (
	"context"
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/problem"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

// eventCount is how many webhook events of type the world's platform has.
func eventCount(t *testing.T, w *actionWorld, eventType string) int {
	t.Helper()
	var n int
	if err := w.pool.QueryRow(context.Background(), "SELECT count(*) FROM webhook_events WHERE platform_id = $1 AND type = $2", w.platform, eventType).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// incomingRequest is a payment of amount received over UMA from a sandbox sender by the
// world's customer.
func (w *actionWorld) incomingRequest(t *testing.T, amount int64) incoming.Request {
	t.Helper()
	sender, err := incoming.SandboxCounterparty("sender", "$success.usd@"+incoming.SandboxDomain)
	if err != nil {
		t.Fatal(err)
	}
	return incoming.Request{TransactionID: ids.New(), PlatformID: w.platform, ReceiverCustomer: ids.Some(w.customer.ID), Sender: sender,
		Currency: "USD", Amount: amount}
}

// balance is the world's account's ledger balance.
func (w *actionWorld) balance(t *testing.T) int64 {
	t.Helper()
	var b int64
	if err := w.pool.QueryRow(context.Background(), "SELECT balance FROM ledger_balances WHERE id = $1", w.account).Scan(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

// A transfer's status moves only as the status table allows: PENDING, PROCESSING (once),
// COMPLETED; a second finish, whatever its outcome, changes nothing, and an outcome that
// ends no payment is refused with nothing written.
func TestTransactionStatusThroughTheTable(t *testing.T) {
	w := newActionWorld(t, actionPolicy)
	ctx := context.Background()
	r := transfer.Request{TransactionID: ids.New(), Kind: transfer.Out, PlatformID: w.platform, CustomerID: ids.Some(w.customer.ID),
		InternalAccountID: w.account, ExternalAccountID: w.external, Amount: 700}
	tx, _, err := w.store.TransferCreate(ctx, r, time.Now(), func(acc transfer.Accounts) error { return transfer.Check(r, acc) })
	if err != nil || tx.Status != catalog.TxPending {
		t.Fatalf("create: %+v %v", tx, err)
	}
	if _, err := w.store.TransactionFinish(ctx, tx.ID, sandbox.Outcome{Status: catalog.TxExpired}, time.Now()); err == nil {
		t.Fatal("an EXPIRED outcome finished a transfer")
	}
	for range 2 {
		if s, err := w.store.TransactionMarkProcessing(ctx, tx.ID, time.Now()); err != nil || s != catalog.TxProcessing {
			t.Fatalf("processing: %s %v", s, err)
		}
	}
	if n := eventCount(t, w, "OUTGOING_PAYMENT_PROCESSING"); n != 1 {
		t.Fatalf("%d processing events", n)
	}
	done, err := w.store.TransactionFinish(ctx, tx.ID, sandbox.Outcome{Status: catalog.TxCompleted}, time.Now())
	if err != nil || done.Status != catalog.TxCompleted || done.SettledAt == nil {
		t.Fatalf("finish: %+v %v", done, err)
	}
	again, err := w.store.TransactionFinish(ctx, tx.ID, sandbox.Outcome{Status: catalog.TxFailed, Code: catalog.FailRejectedByBank, Message: "no"}, time.Now())
	if err != nil || again.Status != catalog.TxCompleted || again.FailureDetail != nil {
		t.Fatalf("second finish: %+v %v", again, err)
	}
	if s, err := w.store.TransactionMarkProcessing(ctx, tx.ID, time.Now()); err != nil || s != catalog.TxCompleted {
		t.Fatalf("processing a completed transfer: %s %v", s, err)
	}
	if n := eventCount(t, w, "OUTGOING_PAYMENT_COMPLETED") + eventCount(t, w, "OUTGOING_PAYMENT_FAILED"); n != 1 {
		t.Fatalf("%d final events", n)
	}
}

// An incoming payment is created by its rule (an unknown receiver is refused) and ended
// once by its decision through the shared finish: approved, the receiver's details are
// recorded and the account credited; a later decision changes nothing.
func TestIncomingCreateAndFinish(t *testing.T) {
	w := newActionWorld(t, actionPolicy)
	ctx := context.Background()
	req := func(amount int64) incoming.Request { return w.incomingRequest(t, amount) }
	unknown := req(500)
	unknown.ReceiverCustomer = ids.Some(ids.New())
	if _, err := w.store.IncomingCreate(ctx, unknown, time.Now()); problem.CodeOf(err) != catalog.UserNotFound {
		t.Fatalf("unknown receiver: %v", err)
	}
	balance := func() int64 { return w.balance(t) }
	before := balance()
	approved, err := w.store.IncomingCreate(ctx, req(500), time.Now())
	if err != nil || approved.Transaction.Status != catalog.TxPending {
		t.Fatalf("create: %+v %v", approved, err)
	}
	id := approved.Transaction.ID
	end, err := w.store.IncomingFinish(ctx, id, incoming.Approve(map[string]string{"FULL_NAME": "Ada Lovelace"}), time.Now())
	if err != nil || end.Status != catalog.TxCompleted || string(end.ReceiverCustomerInfo) != `{"FULL_NAME": "Ada Lovelace"}` {
		t.Fatalf("approve: %+v %s %v", end, end.ReceiverCustomerInfo, err)
	}
	if again, err := w.store.IncomingFinish(ctx, id, incoming.Reject("late"), time.Now()); err != nil || again.Status != catalog.TxCompleted {
		t.Fatalf("reject after approval: %+v %v", again, err)
	}
	if got := balance(); got != before+500 {
		t.Fatalf("balance %d, want %d", got, before+500)
	}

	rejected, err := w.store.IncomingCreate(ctx, req(300), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	end, err = w.store.IncomingFinish(ctx, rejected.Transaction.ID, incoming.Reject("RESTRICTED"), time.Now())
	if err != nil || end.Status != catalog.TxRejected || end.ReceiverCustomerInfo != nil {
		t.Fatalf("reject: %+v %v", end, err)
	}
	if again, err := w.store.IncomingFinish(ctx, rejected.Transaction.ID, incoming.Approve(map[string]string{"FULL_NAME": "Ada"}), time.Now()); err != nil ||
		again.Status != catalog.TxRejected || again.ReceiverCustomerInfo != nil {
		t.Fatalf("approve after rejection: %+v %v", again, err)
	}
	if got := balance(); got != before+500 {
		t.Fatalf("balance %d after the rejection, want %d", got, before+500)
	}
}

// An incoming payment whose account was closed before it settled (the close refuses such an
// account; here the row is closed behind its back) is decided again when the ledger refuses
// the credit: FAILED with ACCOUNT_CLOSED, nothing credited, the receiver's details still
// recorded, in the same database transaction.
func TestIncomingFinishToAClosedAccount(t *testing.T) {
	w := newActionWorld(t, actionPolicy)
	ctx := context.Background()
	created, err := w.store.IncomingCreate(ctx, w.incomingRequest(t, 400), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	before := w.balance(t)
	if _, err := w.pool.Exec(ctx, "UPDATE internal_accounts SET status = 'CLOSED' WHERE id = $1", w.account); err != nil {
		t.Fatal(err)
	}
	end, err := w.store.IncomingFinish(ctx, created.Transaction.ID, incoming.Approve(map[string]string{"FULL_NAME": "Ada Lovelace"}), time.Now())
	if err != nil || end.Status != catalog.TxFailed || end.FailureDetail == nil || *end.FailureDetail != string(catalog.FailAccountClosed)+": "+transfer.ClosedBeforeSettlement().Message ||
		string(end.ReceiverCustomerInfo) != `{"FULL_NAME": "Ada Lovelace"}` {
		t.Fatalf("finish: %+v %v", end, err)
	}
	after := w.balance(t)
	if after != before || eventCount(t, w, "INCOMING_PAYMENT_FAILED") != 1 || eventCount(t, w, "INCOMING_PAYMENT_COMPLETED") != 0 {
		t.Fatalf("balance %d → %d, failed %d, completed %d", before, after, eventCount(t, w, "INCOMING_PAYMENT_FAILED"), eventCount(t, w, "INCOMING_PAYMENT_COMPLETED"))
	}
}
