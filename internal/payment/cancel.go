package payment

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"paycore/internal/catalog"
	"paycore/internal/kit/strictjson"
	"paycore/internal/problem"
	"paycore/internal/quote"
	"paycore/internal/rail"
	"paycore/internal/transfer"
)

// MaxCancelReasonLength bounds a cancellation's reason, in characters.
const MaxCancelReasonLength = 500

// Cancellation is a platform's request to cancel one of its payments that has not left
// (POST /transactions/{id}/cancel), as its workflow receives it.
type Cancellation struct {
	// Reason is the platform's own note, kept in the failure's message; "" for none.
	Reason string `json:"reason,omitempty"`
}

// Check refuses a reason that is too long or not text.
func (c Cancellation) Check() error {
	if !strictjson.ValidText(c.Reason) || utf8.RuneCountInString(c.Reason) > MaxCancelReasonLength {
		return problem.Field("reason", "reason must be text of at most %d characters", MaxCancelReasonLength)
	}
	return nil
}

// CheckCancel is the rule of a cancellation on a stored transaction of kind, type and
// status, before it reaches the payment's workflow: only a payment this service sends or
// pulls through a rail (a transfer out or in, an executed quote's payout) that is
// PROCESSING may be waiting at its rail; any other is refused with
// TRANSACTION_NOT_CANCELLABLE. The workflow then decides whether the payment waits at its
// rail, and the rail whether it can still cancel it.
func CheckCancel(kind string, typ catalog.TransactionType, status catalog.TransactionStatus) error {
	switch {
	case kind != string(transfer.Out) && kind != string(transfer.In) && (kind != quote.Kind || typ != catalog.Outgoing):
		return NotCancellable("only transfers and executed quotes' payouts can be cancelled, not a %s %s transaction", strings.ToLower(string(typ)), kind)
	case status == catalog.TxPending && kind == quote.Kind:
		return NotCancellable("the quote has not been executed; it expires on its own")
	case status != catalog.TxProcessing && status != catalog.TxPending:
		return NotCancellable("the transaction is %s", status)
	}
	return nil
}

// NotCancellable is the refusal of a cancellation: TRANSACTION_NOT_CANCELLABLE (409) saying
// why.
func NotCancellable(format string, args ...any) error {
	return problem.Refuse(catalog.TransactionNotCancellable, "the transaction cannot be cancelled: %s", fmt.Sprintf(format, args...))
}

// Cancelled is how a payment its platform cancelled at its rail ends: FAILED with
// failureDetails USER_CANCELLATION carrying the platform's reason, its hold released like
// any payment that failed before its money left.
func Cancelled(c Cancellation) rail.Outcome {
	msg := "cancelled at the platform's request"
	if r := strings.TrimSpace(c.Reason); r != "" {
		msg += ": " + r
	}
	return rail.Outcome{Status: catalog.TxFailed, Code: catalog.FailUserCancelled, Message: msg}
}
