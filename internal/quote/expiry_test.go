package quote

import "testing"

func TestExpiryFailure(t *testing.T) {
	reason, detail := ExpiryFailure()
	if reason != "QUOTE_EXPIRED" || detail != "QUOTE_EXPIRED: the quote was not executed before it expired" {
		t.Errorf("ExpiryFailure() = (%q, %q)", reason, detail)
	}
}
