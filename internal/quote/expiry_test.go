package quote

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

func TestExpiryFailure(t *testing.T) {
	reason, detail := ExpiryFailure()
	if reason != "QUOTE_EXPIRED" || detail != "QUOTE_EXPIRED: the quote was not executed before it expired" {
		t.Errorf("ExpiryFailure() = (%q, %q)", reason, detail)
	}
}

// A quote the platform does not have is 404 QUOTE_NOT_FOUND, as the API answered it.
func TestNotFound(t *testing.T) {
	problemtest.Check(t, problemtest.Case{Name: "NotFound", Err: NotFound(), Want: problem.Wire{Code: catalog.QuoteNotFound, Message: "quote not found"}})
}
