package payment_test

import (
	"strings"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/payment"
	"paycore/internal/problem"
)

// Only transfers and executed quotes' payouts that are not final reach their workflow;
// everything else is refused TRANSACTION_NOT_CANCELLABLE from the stored transaction.
func TestCheckCancel(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		typ    catalog.TransactionType
		status catalog.TransactionStatus
		ok     bool
	}{
		{"TRANSFER_OUT", catalog.Outgoing, catalog.TxProcessing, true},
		{"TRANSFER_OUT", catalog.Outgoing, catalog.TxPending, true}, // its workflow decides: not at its rail yet
		{"TRANSFER_IN", catalog.Incoming, catalog.TxProcessing, true},
		{"QUOTE", catalog.Outgoing, catalog.TxProcessing, true},
		{"QUOTE", catalog.Outgoing, catalog.TxPending, false}, // not executed: it expires
		{"QUOTE", catalog.Incoming, catalog.TxProcessing, false},
		{"UMA_INCOMING", catalog.Incoming, catalog.TxPending, false},
		{"SANDBOX_FUNDING", catalog.Incoming, catalog.TxCompleted, false},
		{"TRANSFER_OUT", catalog.Outgoing, catalog.TxCompleted, false},
		{"TRANSFER_OUT", catalog.Outgoing, catalog.TxFailed, false},
		{"QUOTE", catalog.Outgoing, catalog.TxExpired, false},
	} {
		err := payment.CheckCancel(tc.kind, tc.typ, tc.status)
		if tc.ok != (err == nil) || (err != nil && problem.CodeOf(err) != catalog.TransactionNotCancellable) {
			t.Errorf("%s %s %s: %v", tc.kind, tc.typ, tc.status, err)
		}
	}
}

// A cancellation ends the payment FAILED with USER_CANCELLATION and the reason; its reason
// is bounded.
func TestCancelled(t *testing.T) {
	out := payment.Cancelled(payment.Cancellation{Reason: " after hours "})
	if out.Status != catalog.TxFailed || out.Code != catalog.FailUserCancelled || out.Message != "cancelled at the platform's request: after hours" || out.Refund != "" {
		t.Fatalf("%+v", out)
	}
	if err := (payment.Cancellation{Reason: strings.Repeat("é", payment.MaxCancelReasonLength)}).Check(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{strings.Repeat("é", payment.MaxCancelReasonLength+1), "a\x00b", "\xff"} {
		if err := (payment.Cancellation{Reason: bad}).Check(); problem.CodeOf(err) != catalog.InvalidInput {
			t.Fatalf("reason %q: %v", bad, err)
		}
	}
}
