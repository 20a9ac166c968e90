package sandbox

import (
	"paycore/internal/banking"
	"paycore/internal/catalog"
)

// Suffixes of a quote destination's identifier that select how its execution ends.
const (
	SuffixQuoteFailed          = "002"
	SuffixQuoteSlow            = "003"
	SuffixQuoteCounterparty    = "004"
	SuffixQuoteReturned        = "005"
	SuffixQuoteCancelled       = "006"
	SuffixQuotePayoutAndRefund = "007"
)

// Refund reasons (Refund.reason).
const (
	RefundTransactionFailed = "TRANSACTION_FAILED"
	RefundUserCancellation  = "USER_CANCELLATION"
	RefundTimeout           = "TIMEOUT"
)

// Failure reasons of outgoing payments (failureReason).
const (
	ReasonQuoteExpired         = "QUOTE_EXPIRED"
	ReasonQuoteExecutionFailed = "QUOTE_EXECUTION_FAILED"
	ReasonCounterpartyFailed   = "COUNTERPARTY_POST_TX_FAILED"
	ReasonFundingMismatch      = "FUNDING_AMOUNT_MISMATCH"
)

// QuoteOutcome is how the execution of a quote paying an external account with this
// primary identifier ends, as the spec's sandbox table says:
//
//	002 execution fails (QUOTE_EXECUTION_FAILED); nothing leaves, the hold is released
//	003 completes after about 6 minutes
//	004 counterparty delivery fails; the sender is refunded (TRANSACTION_FAILED)
//	005 completes, then the receiving bank returns it: FAILED and refunded
//	006 the user cancels it; refunded (USER_CANCELLATION)
//	007 the payout and its refund both fail: the money is with the counterparty
//
// anything else completes.
func QuoteOutcome(identifier string) Outcome {
	switch banking.SandboxSuffix(identifier) {
	case SuffixQuoteFailed:
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailQuoteExecution, Message: "the quote's execution failed", FailureReason: ReasonQuoteExecutionFailed}
	case SuffixQuoteSlow:
		return Outcome{Status: catalog.TxCompleted, Slow: true}
	case SuffixQuoteCounterparty:
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailCounterparty, Message: "the counterparty could not deliver the payment",
			FailureReason: ReasonCounterpartyFailed, Refund: RefundTransactionFailed}
	case SuffixQuoteReturned:
		return Outcome{Status: catalog.TxCompleted, Returned: true}
	case SuffixQuoteCancelled:
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailUserCancelled, Message: "the payment was cancelled at the user's request",
			Refund: RefundUserCancellation}
	case SuffixQuotePayoutAndRefund:
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailPayoutRefundFailure, Message: "the payout failed after the money left, and so did its refund",
			FailureReason: ReasonCounterpartyFailed, Refund: RefundTransactionFailed, PaidOut: true, RefundFails: true}
	}
	return Outcome{Status: catalog.TxCompleted}
}

// ReturnedOutcome is how a payment the receiving bank returned after it completed (005)
// ends: FAILED and refunded.
func ReturnedOutcome() Outcome {
	return Outcome{Status: catalog.TxFailed, Code: catalog.FailReturnedByBank, Message: "the receiving bank returned the payment",
		Refund: RefundTransactionFailed, PaidOut: true}
}

// MismatchedDeposit is how a payment whose deposit differs from the quote's total ends:
// FAILED (FUNDING_AMOUNT_MISMATCH) before anything is paid out, the deposit refunded.
func MismatchedDeposit() Outcome {
	return Outcome{Status: catalog.TxFailed, Code: catalog.FailFundingMismatch, Message: "the deposit differs from the quote's total sending amount",
		FailureReason: ReasonFundingMismatch, Refund: RefundTransactionFailed}
}
