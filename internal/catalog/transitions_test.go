package catalog

import (
	"errors"
	"testing"
)

var txEvents = []TransactionEvent{TxEventProcess, TxEventExpire, TxEventComplete, TxEventFail, TxEventReject, TxEventReturn, TxEventRefund}

// Every pair of a status and an event: the allowed ones move to the status the table
// says, every other one is refused with CONFLICT.
func TestTransactionChange(t *testing.T) {
	allowed := map[TransactionStatus]map[TransactionEvent]TransactionStatus{
		TxPending: {TxEventProcess: TxProcessing, TxEventExpire: TxExpired, TxEventComplete: TxCompleted, TxEventFail: TxFailed,
			TxEventReject: TxRejected},
		TxProcessing: {TxEventComplete: TxCompleted, TxEventFail: TxFailed, TxEventReject: TxRejected},
		TxCompleted:  {TxEventReturn: TxFailed, TxEventRefund: TxRefunded},
	}
	for _, from := range TransactionStatuses {
		for _, e := range txEvents {
			to, err := TransactionChange(from, e)
			want, ok := allowed[from][e]
			if ok {
				if err != nil || to != want {
					t.Errorf("%s on %s: %q, %v; want %s", from, e, to, err, want)
				}
				continue
			}
			var r *TransitionRefusal
			if !errors.As(err, &r) || r.Code() != Conflict || r.From != from || r.Event != e || to != "" {
				t.Errorf("%s on %s: %q, %v; want the refusal", from, e, to, err)
			}
		}
	}
}

// A payment ends COMPLETED, FAILED or REJECTED, each by its event; no other status ends
// one.
func TestTransactionEndEvent(t *testing.T) {
	want := map[TransactionStatus]TransactionEvent{TxCompleted: TxEventComplete, TxFailed: TxEventFail, TxRejected: TxEventReject}
	for _, s := range TransactionStatuses {
		e, ok := TransactionEndEvent(s)
		if w, end := want[s]; ok != end || e != w {
			t.Errorf("%s: %q %v", s, e, ok)
		}
	}
}
