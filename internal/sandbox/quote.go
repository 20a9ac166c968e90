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
	SuffixQuoteLimitExceeded   = "008"
	SuffixQuoteCannotReceive   = "009"
	SuffixQuoteAccountInvalid  = "010"
	SuffixQuoteCompliance      = "011"
	SuffixQuoteRateGone        = "012"
)

// Refund reasons (Refund.reason).
const (
	RefundTransactionFailed = "TRANSACTION_FAILED"
	RefundUserCancellation  = "USER_CANCELLATION"
	RefundTimeout           = "TIMEOUT"
)

// Failure reasons of outgoing payments (failureReason).
const (
	ReasonQuoteExpired         = catalog.ReasonQuoteExpired
	ReasonQuoteExecutionFailed = catalog.ReasonQuoteExecutionFailed
	ReasonCounterpartyFailed   = catalog.ReasonCounterpartyFailed
	ReasonFundingMismatch      = catalog.ReasonFundingMismatch
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
// and, beyond the spec's table, the payout partner's granular refusals, each before any
// money leaves (the hold is released): 008 over a limit (LIMIT_EXCEEDED), 009 an account
// that cannot receive (ACCOUNT_CANNOT_RECEIVE), 010 an invalid account (ACCOUNT_INVALID),
// 011 a compliance refusal (COMPLIANCE_REJECTED), 012 the quoted rate gone by execution
// (QUOTE_RATE_UNAVAILABLE); anything else completes.
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
	case SuffixQuoteLimitExceeded:
		return refused(catalog.FailLimitExceeded, "the payout exceeds the partner's limit for the recipient")
	case SuffixQuoteCannotReceive:
		return refused(catalog.FailAccountCannotReceive, "the recipient's account cannot receive this payment")
	case SuffixQuoteAccountInvalid:
		return refused(catalog.FailAccountInvalid, "the recipient's account details are wrong")
	case SuffixQuoteCompliance:
		return refused(catalog.FailComplianceRejected, "the payout partner refused the recipient on compliance grounds")
	case SuffixQuoteRateGone:
		return refused(catalog.FailRateUnavailable, "the quoted exchange rate was no longer available at execution; nothing was exchanged")
	case SuffixQuotePayoutAndRefund:
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailPayoutRefundFailure, Message: "the payout failed after the money left, and so did its refund",
			FailureReason: ReasonCounterpartyFailed, Refund: RefundTransactionFailed, PaidOut: true, RefundFails: true}
	}
	return Outcome{Status: catalog.TxCompleted}
}

// refused is a payout its partner refused before any money left, with code (a granular
// cause, which names the failure reason).
func refused(code catalog.Code, message string) Outcome {
	return Outcome{Status: catalog.TxFailed, Code: code, Message: message, FailureReason: catalog.FailureReason(catalog.Outgoing, code, "")}
}

// ReturnedOutcome is how a payment the receiving bank returned after it completed (005)
// ends: FAILED and refunded.
func ReturnedOutcome() Outcome {
	return Outcome{Status: catalog.TxFailed, Code: catalog.FailReturnedByBank, Message: "the receiving bank returned the payment",
		FailureReason: catalog.ReasonPayoutReturned, Refund: RefundTransactionFailed, PaidOut: true}
}

// MismatchedDeposit is how a payment whose deposit differs from the quote's total ends:
// FAILED (FUNDING_AMOUNT_MISMATCH) before anything is paid out, the deposit refunded.
func MismatchedDeposit() Outcome {
	return Outcome{Status: catalog.TxFailed, Code: catalog.FailFundingMismatch, Message: "the deposit differs from the quote's total sending amount",
		FailureReason: ReasonFundingMismatch, Refund: RefundTransactionFailed}
}
