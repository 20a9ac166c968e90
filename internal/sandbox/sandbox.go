// Package sandbox holds the magic values that drive simulated outcomes for sandbox
// platforms: the last three digits of an external account's primary identifier decide how
// a transfer to or from it ends.
package sandbox

import "paycore/internal/banking"

// Outcome is how a simulated transfer ends.
type Outcome struct {
	Status  string // COMPLETED or FAILED
	Code    string // failure code, "" on success
	Message string
	// Slow means the payment stays pending for the slow-scenario delay (about 30 s)
	// before it ends.
	Slow bool
}

// TransferOutcome is the outcome of a same-currency transfer to or from an external
// account with this primary identifier:
// 002 insufficient funds, 003 account closed or invalid, 004 rejected by the bank (all at
// once), 005 pending for about 30 seconds and then failed; anything else succeeds. Every
// failure is FAILED, its cause in Code: FAILED is a status of incoming and outgoing
// transactions alike, and outgoing ones have no REJECTED.
func TransferOutcome(identifier string) Outcome {
	switch banking.SandboxSuffix(identifier) {
	case "002":
		return Outcome{Status: "FAILED", Code: "INSUFFICIENT_FUNDS", Message: "the bank reported insufficient funds"}
	case "003":
		return Outcome{Status: "FAILED", Code: "ACCOUNT_CLOSED", Message: "the external account is closed or invalid"}
	case "004":
		return Outcome{Status: "FAILED", Code: "REJECTED_BY_BANK", Message: "the bank rejected the payment"}
	case "005":
		return Outcome{Status: "FAILED", Code: "TIMED_OUT", Message: "the payment stayed pending and then failed", Slow: true}
	}
	return Outcome{Status: "COMPLETED"}
}
