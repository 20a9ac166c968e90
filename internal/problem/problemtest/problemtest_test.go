package problemtest

import (
	"errors"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// recorder is a testing.TB that only counts failures.
type recorder struct {
	testing.TB
	failed int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed++ }

// Check passes an exact wire form and fails a different message, a different code, and an
// error that is no refusal.
func TestCheck(t *testing.T) {
	want := problem.Wire{Code: catalog.QuoteNotFound, Message: "quote not found"}
	r := &recorder{TB: t}
	Check(r, Case{Name: "exact", Err: problem.NotFound(catalog.QuoteNotFound, "quote"), Want: want})
	if r.failed != 0 {
		t.Fatalf("an exact refusal failed %d times", r.failed)
	}
	Check(r,
		Case{Name: "message", Err: problem.NotFound(catalog.QuoteNotFound, "quotation"), Want: want},
		Case{Name: "code", Err: problem.NotFound(catalog.AccountNotFound, "quote"), Want: want},
		Case{Name: "no refusal", Err: errors.New("quote not found"), Want: want})
	if r.failed != 3 {
		t.Fatalf("%d of 3 wrong refusals failed", r.failed)
	}
}

// The scan finds the catalogue's codes (constants and functions returning one) and not its
// other names, and the problem package's builders and not its readers.
func TestScan(t *testing.T) {
	codes := Codes(t, "../../catalog")
	for name, want := range map[string]bool{"AccountNotEmpty": true, "InvalidInput": true, "FailAccountClosed": true, "CredentialExists": true,
		"Production": false, "AccountClosed": false, "Names": false} {
		if codes[name] != want {
			t.Errorf("catalog.%s a code: %v, want %v", name, codes[name], want)
		}
	}
	builders := Builders(t, "..")
	for name, want := range map[string]bool{"Refuse": true, "NotFound": true, "Field": true, "FieldCode": true, "RateLimited": true,
		"CodeOf": false, "ToWire": false, "Entries": false} {
		if builders[name] != want {
			t.Errorf("problem.%s a builder: %v, want %v", name, builders[name], want)
		}
	}
}
