package quote

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func TestExpiryFailure(t *testing.T) {
	reason, detail := ExpiryFailure()
	if reason != "QUOTE_EXPIRED" || detail != "QUOTE_EXPIRED: the quote was not executed before it expired" {
		t.Errorf("ExpiryFailure() = (%q, %q)", reason, detail)
	}
}

// A quote the platform does not have is 404 QUOTE_NOT_FOUND, as the API answered it.
func TestNotFound(t *testing.T) {
	if w, ok := problem.ToWire(NotFound()); !ok || w.Code != catalog.QuoteNotFound || w.Message != "quote not found" {
		t.Fatalf("%+v", w)
	}
}
