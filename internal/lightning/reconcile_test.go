package lightning

import (
	"testing"
	"time"
)

// The node must change by exactly what the ledger posted since the baseline, up to a
// satoshi per route fee (rounded up in the ledger).
func TestReconcile(t *testing.T) {
	b := Baseline{NodeSats: 1_000_000, LedgerSats: 500, RecordedAt: time.Now()}
	for _, tc := range []struct {
		name               string
		node, ledger, fees int64
		wantDiff           int64
		wantAgree          bool
	}{
		{"nothing moved", 1_000_000, 500, 0, 0, true},
		{"paid out 21,000", 979_000, 21_500, 0, 0, true},
		{"received 4,321", 1_004_321, -3_821, 0, 0, true},
		{"a fee rounded up", 979_001, 21_500, 1, 1, true},
		{"the node lost money", 978_000, 21_500, 0, -1_000, false},
		{"money the ledger misses", 1_010_000, 500, 0, 10_000, false},
		{"more than the rounding", 979_003, 21_500, 2, 3, false},
	} {
		r := Reconcile(b, tc.node, tc.ledger, tc.fees)
		if r.DifferenceSats != tc.wantDiff || r.Agree != tc.wantAgree {
			t.Errorf("%s: %+v", tc.name, r)
		}
	}
}
