package uma

import (
	"encoding/json"
	"errors"
	"testing"
)

// A pay request's amount is millisatoshis ("n") or smallest units of a currency ("n.CODE"),
// sent as a string or, by LNURL senders, a number.
func TestPayRequestAmount(t *testing.T) {
	for in, want := range map[string]struct {
		amount   int64
		currency string
	}{`"1000.USD"`: {1000, "USD"}, `"150000"`: {150000, ""}, `150000`: {150000, ""}} {
		var a Amount
		if err := json.Unmarshal([]byte(in), &a); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if n, c, err := a.Parse(); err != nil || n != want.amount || c != want.currency {
			t.Errorf("%s: %d %q %v", in, n, c, err)
		}
	}
	for _, bad := range []Amount{"", "0", "-5", "1.2.USD", "1.", "abc", "9223372036854775808"} {
		if _, _, err := bad.Parse(); !errors.Is(err, ErrInvalidAmount) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	var a Amount
	if err := json.Unmarshal([]byte(`{"x":1}`), &a); err == nil {
		t.Error("an object was taken for an amount")
	}
	if _, err := (PayRequest{}).SignablePayload(); !errors.Is(err, ErrNotUma) {
		t.Errorf("a pay request without compliance data: %v", err)
	}
}
