// Package sandbox holds the magic values that drive simulated outcomes for sandbox
// platforms, and the rules of the sandbox's own operations: the last three digits of an
// external account's primary identifier decide how a transfer to or from it ends, sandbox
// funding credits an account within fixed limits, and fixed values stand in for
// embedded-wallet proofs (a one-time code, a passkey signature, an OIDC token, a wallet
// signature).
package sandbox

import (
	"paycore/internal/banking"
	"paycore/internal/catalog"
	"paycore/internal/rail"
)

// UmaDomain is the UMA domain of the sandbox's counterparties (the simulated outside
// world): reserved, no platform may hold it.
const UmaDomain = "sandbox.uma.paycore.dev"

// Outcome is how a payment at its rail ends: an alias of rail.Outcome, which it was
// before rails were a port, kept so that code naming it keeps compiling.
type Outcome = rail.Outcome

// Suffixes of an external account's identifier that select a transfer's outcome.
const (
	SuffixInsufficientFunds = "002"
	SuffixAccountClosed     = "003"
	SuffixRejectedByBank    = "004"
	SuffixSlowThenFailed    = "005"
	SuffixComplianceRefused = "006"
	SuffixLimitExceeded     = "007"
	SuffixComplianceReview  = "008"
	// SuffixRefundRejected: transfers to and from the account succeed; refunding a
	// transfer in from it fails (RefundOutcome).
	SuffixRefundRejected = "009"
)

// TransferOutcome is the outcome of a same-currency transfer to or from an external
// account with this primary identifier:
// 002 insufficient funds, 003 account closed or invalid, 004 rejected by the bank, 006
// refused by the bank's compliance screening, 007 over the bank's limit (all at once), 005
// pending for about 30 seconds and then failed, 008 under compliance review (pendingReason
// COMPLIANCE_REVIEW) for about 30 seconds and then completed; anything else succeeds. Every
// failure is FAILED, its cause in Code: FAILED is a status of incoming and outgoing
// transactions alike, and outgoing ones have no REJECTED.
func TransferOutcome(identifier string) Outcome {
	switch banking.SandboxSuffix(identifier) {
	case SuffixInsufficientFunds:
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailInsufficientFunds, Message: "the bank reported insufficient funds"}
	case SuffixAccountClosed:
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailAccountClosed, Message: "the external account is closed or invalid"}
	case SuffixRejectedByBank:
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailRejectedByBank, Message: "the bank rejected the payment"}
	case SuffixSlowThenFailed:
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailTimedOut, Message: "the payment stayed pending and then failed", Slow: true}
	case SuffixComplianceRefused:
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailComplianceRejected, Message: "the bank's compliance screening refused the payment"}
	case SuffixComplianceReview:
		return Outcome{Status: catalog.TxCompleted, Slow: true, PendingReason: catalog.PendingComplianceReview}
	case SuffixLimitExceeded:
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailLimitExceeded, Message: "the payment exceeds the bank's limit for the account"}
	}
	return Outcome{Status: catalog.TxCompleted}
}

// RefundOutcome is how the refund of a transfer in from an external account with this
// primary identifier ends: 009 fails (the sender's bank refused it, REJECTED_BY_BANK);
// any other goes as a transfer to the account would (TransferOutcome: 008 waits about 30
// seconds under compliance review, then completes).
func RefundOutcome(identifier string) Outcome {
	if banking.SandboxSuffix(identifier) == SuffixRefundRejected {
		return Outcome{Status: catalog.TxFailed, Code: catalog.FailRejectedByBank, Message: "the sender's bank refused the refund"}
	}
	return TransferOutcome(identifier)
}

// Unsettled is how a payment ends when it could not be settled for good: the ledger
// refused to move its money (code ACCOUNT_CLOSED: the account to credit was closed
// meanwhile; INSUFFICIENT_FUNDS: money it counted on is gone), or its rail refused it
// outright (any other code, RAIL_UNAVAILABLE). It is FAILED, credits nothing, and its hold
// is released.
func Unsettled(code catalog.Code) Outcome {
	switch code {
	case catalog.FailAccountClosed:
		return Outcome{Status: catalog.TxFailed, Code: code, Message: "the receiving internal account was closed before the payment settled"}
	case catalog.FailInsufficientFunds:
		return Outcome{Status: catalog.TxFailed, Code: code, Message: "the funds the payment held were no longer available when it settled"}
	}
	return Outcome{Status: catalog.TxFailed, Code: catalog.FailRailUnavailable, Message: "the payment could not be settled"}
}
