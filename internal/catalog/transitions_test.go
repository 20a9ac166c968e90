package catalog

import (
	"errors"
	"slices"
	"testing"
)

var txEvents = []TransactionEvent{TxEventProcess, TxEventExpire, TxEventComplete, TxEventFail, TxEventReject, TxEventReturn}

// Every pair of a status and an event: the allowed ones move to the status the table
// says, every other one is refused with CONFLICT.
func TestTransactionChange(t *testing.T) {
	allowed := map[TransactionStatus]map[TransactionEvent]TransactionStatus{
		TxPending: {TxEventProcess: TxProcessing, TxEventExpire: TxExpired, TxEventComplete: TxCompleted, TxEventFail: TxFailed,
			TxEventReject: TxRejected},
		TxProcessing: {TxEventComplete: TxCompleted, TxEventFail: TxFailed, TxEventReject: TxRejected},
		TxCompleted:  {TxEventReturn: TxFailed},
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

// The guard of each event's UPDATE is the table's sources of that event.
func TestTransactionSources(t *testing.T) {
	want := map[TransactionEvent][]TransactionStatus{
		TxEventProcess:  {TxPending},
		TxEventExpire:   {TxPending},
		TxEventComplete: {TxPending, TxProcessing},
		TxEventFail:     {TxPending, TxProcessing},
		TxEventReject:   {TxPending, TxProcessing},
		TxEventReturn:   {TxCompleted},
	}
	for _, e := range txEvents {
		if got := TransactionSources(e); !slices.Equal(got, want[e]) {
			t.Errorf("%s: %v, want %v", e, got, want[e])
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

// Every event: the statuses an unlocked change moves a transaction from are the table's,
// and they all lead to the one status the table says.
func TestTransactionUnlockedChange(t *testing.T) {
	for _, tc := range []struct {
		event TransactionEvent
		from  []TransactionStatus
		to    TransactionStatus
	}{
		{TxEventProcess, []TransactionStatus{TxPending}, TxProcessing},
		{TxEventExpire, []TransactionStatus{TxPending}, TxExpired},
		{TxEventComplete, []TransactionStatus{TxPending, TxProcessing}, TxCompleted},
		{TxEventFail, []TransactionStatus{TxPending, TxProcessing}, TxFailed},
		{TxEventReject, []TransactionStatus{TxPending, TxProcessing}, TxRejected},
		{TxEventReturn, []TransactionStatus{TxCompleted}, TxFailed},
	} {
		from, to, err := TransactionUnlockedChange(tc.event)
		if err != nil || !slices.Equal(from, tc.from) || to != tc.to {
			t.Errorf("%s: (%v, %s, %v), want (%v, %s, nil)", tc.event, from, to, err, tc.from, tc.to)
		}
	}
}

func TestTransactionUnlockedChangeRefusesAnUnknownEvent(t *testing.T) {
	from, to, err := TransactionUnlockedChange("NOT_AN_EVENT")
	var r *TransitionRefusal
	if !errors.As(err, &r) || *r != (TransitionRefusal{Event: "NOT_AN_EVENT"}) || from != nil || to != "" {
		t.Fatalf("(%v, %q, %v), want a refusal of the event alone", from, to, err)
	}
	if r.Code() != Conflict {
		t.Errorf("code %s, want %s", r.Code(), Conflict)
	}
}

func TestTransactionUnlockedChangeRefusesAnAmbiguousEvent(t *testing.T) {
	saved := TransactionTransitions
	t.Cleanup(func() { TransactionTransitions = saved })
	TransactionTransitions = append(slices.Clone(saved), TransactionTransition{TxFailed, TxEventProcess, TxPending})
	_, _, err := TransactionUnlockedChange(TxEventProcess)
	var r *TransitionRefusal
	if err == nil || errors.As(err, &r) {
		t.Fatalf("err = %v, want an error that is no refusal", err)
	}
	if want := "PROCESS leads to PROCESSING or PENDING; lock it and read its status first"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}
