package quote

import (
	"paycore/internal/catalog"
	"paycore/internal/sandbox"
)

// ExpiryFailure is the failureReason and failureDetail of the payment of a quote that
// expired before it was executed.
func ExpiryFailure() (reason, detail string) {
	return sandbox.ReasonQuoteExpired, string(catalog.FailQuoteExpired) + ": the quote was not executed before it expired"
}
