package catalog

import "fmt"

// TransactionEvent is what moves a transaction from one status to another.
type TransactionEvent string

// Transaction events, each the cause of one or more rows of TransactionTransitions.
const (
	// TxEventProcess starts a payment's movement: a transfer or an executed (or funded)
	// quote handed to its rail.
	TxEventProcess TransactionEvent = "PROCESS"
	// TxEventExpire ends a quote nobody executed before it expired.
	TxEventExpire TransactionEvent = "EXPIRE"
	// TxEventComplete settles a payment: its rail completed it, or its receiving platform
	// approved it.
	TxEventComplete TransactionEvent = "COMPLETE"
	// TxEventFail ends a payment that did not settle (its rail failed it, an operator ended
	// it, the platform's approval failed or timed out).
	TxEventFail TransactionEvent = "FAIL"
	// TxEventReject ends a payment its receiving platform rejected.
	TxEventReject TransactionEvent = "REJECT"
	// TxEventReturn fails a completed payment its receiving bank returned.
	TxEventReturn TransactionEvent = "RETURN"
	// TxEventRefund marks a completed incoming payment its platform sent back (the refund
	// reached the sender).
	TxEventRefund TransactionEvent = "REFUND"
)

// TransactionTransition is one allowed status change: From to To, caused by Event.
type TransactionTransition struct {
	From  TransactionStatus
	Event TransactionEvent
	To    TransactionStatus
}

// TransactionTransitions is the one table of a transaction's status changes. Every change
// of a stored transaction's status is one of these rows (see TransactionChange); a
// transaction is created PENDING (or, for a sandbox funding, COMPLETED). CREATED is in the
// catalogue but no transaction takes it; REFUNDED is a completed incoming payment its
// platform sent back; nothing leaves EXPIRED, REJECTED, FAILED or REFUNDED. A refund has
// its own status (refundStatus) beside the transaction's: the refund of a failed payment
// leaves it FAILED.
var TransactionTransitions = []TransactionTransition{
	{TxPending, TxEventProcess, TxProcessing},
	{TxPending, TxEventExpire, TxExpired},
	{TxPending, TxEventComplete, TxCompleted},
	{TxPending, TxEventFail, TxFailed},
	{TxPending, TxEventReject, TxRejected},
	{TxProcessing, TxEventComplete, TxCompleted},
	{TxProcessing, TxEventFail, TxFailed},
	{TxProcessing, TxEventReject, TxRejected},
	{TxCompleted, TxEventReturn, TxFailed},
	{TxCompleted, TxEventRefund, TxRefunded},
}

// TransitionRefusal is a status change the table does not allow: no row leaves From on
// Event. Its code is CONFLICT. The db operations that apply a change under the
// transaction's lock read it as "done already" (a step run again); see TransactionChange.
type TransitionRefusal struct {
	From  TransactionStatus
	Event TransactionEvent
}

func (e *TransitionRefusal) Error() string {
	return fmt.Sprintf("%s: a %s transaction cannot take %s", e.Code(), e.From, e.Event)
}

// Code is the refusal's stable code.
func (e *TransitionRefusal) Code() Code { return Conflict }

// TransactionChange is the rule every change of a transaction's status goes through: the
// status event moves a transaction in status from to, or the *TransitionRefusal when the
// table has no such row.
func TransactionChange(from TransactionStatus, event TransactionEvent) (TransactionStatus, error) {
	for _, t := range TransactionTransitions {
		if t.From == from && t.Event == event {
			return t.To, nil
		}
	}
	return "", &TransitionRefusal{From: from, Event: event}
}

// TransactionEndEvent is the event that ends a payment in status to, as its rail, its
// receiving platform or an operator decided: COMPLETE, FAIL or REJECT. Any other status
// is no payment's end (false).
func TransactionEndEvent(to TransactionStatus) (TransactionEvent, bool) {
	switch to {
	case TxCompleted:
		return TxEventComplete, true
	case TxFailed:
		return TxEventFail, true
	case TxRejected:
		return TxEventReject, true
	}
	return "", false
}
