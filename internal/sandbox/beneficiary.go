package sandbox

import (
	"strings"

	"paycore/internal/banking"
	"paycore/internal/catalog"
)

// BeneficiaryCheck is what the sandbox's beneficiary name check reports for a bank account
// with this primary identifier, by its last three digits: 102 NOT_MATCHED, 103
// PARTIAL_MATCH, 104 PENDING, 105 the account does not exist (invalid is true), 106
// UNSUPPORTED, 107 CHECKED_BY_RECEIVING_FI, anything else MATCHED.
func BeneficiaryCheck(identifier string) (status catalog.BeneficiaryStatus, invalid bool) {
	switch banking.SandboxSuffix(identifier) {
	case "102":
		return catalog.BeneficiaryNotMatched, false
	case "103":
		return catalog.BeneficiaryPartialMatch, false
	case "104":
		return catalog.BeneficiaryPending, false
	case "105":
		return "", true
	case "106":
		return catalog.BeneficiaryUnsupported, false
	case "107":
		return catalog.BeneficiaryCheckedByBank, false
	}
	return catalog.BeneficiaryMatched, false
}

// LivenessDead is the ending of a wallet address (any letter case) whose sandbox liveness
// check fails.
const LivenessDead = "dead"

// LivenessPasses is the outcome of the sandbox's liveness check of the owner of the wallet
// at address: it fails when the address ends in LivenessDead, and passes otherwise.
func LivenessPasses(address string) bool {
	return !strings.HasSuffix(strings.ToLower(address), LivenessDead)
}
