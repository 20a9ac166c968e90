package sandbox

import "testing"

func TestTransferOutcome(t *testing.T) {
	for id, want := range map[string]Outcome{
		"123456789002":           {Status: "FAILED", Code: "INSUFFICIENT_FUNDS"},
		"DE89370400440532013003": {Status: "FAILED", Code: "ACCOUNT_CLOSED"},
		"000000000004":           {Status: "FAILED", Code: "REJECTED_BY_BANK"},
		"987654321005":           {Status: "FAILED", Code: "TIMED_OUT", Slow: true},
		"name005@upi":            {Status: "FAILED", Code: "TIMED_OUT", Slow: true},
		"123456789001":           {Status: "COMPLETED"},
		"123456789006":           {Status: "COMPLETED"},
	} {
		got := TransferOutcome(id)
		if got.Status != want.Status || got.Code != want.Code || got.Slow != want.Slow {
			t.Errorf("%s: %+v, want %+v", id, got, want)
		}
	}
}
