package operator

import (
	"strings"
	"testing"

	"paycore/internal/catalog"
)

func TestRequestCheck(t *testing.T) {
	for _, tc := range []struct {
		r  Request
		ok bool
	}{
		{Request{Action: RetryRail, Operator: "alice"}, true},
		{Request{Action: Fail, Operator: "alice", Reason: "bank confirmed"}, true},
		{Request{Action: Fail, Operator: "alice"}, false},
		{Request{Action: Fail, Operator: "alice", Reason: "  "}, false},
		{Request{Action: RetryRail}, false},
		{Request{Action: "REFUND", Operator: "alice"}, false},
		{Request{Action: Fail, Operator: "alice", Reason: strings.Repeat("x", MaxReasonLength+1)}, false},
		{Request{Action: Fail, Operator: "alice", Reason: "\xff"}, false},
	} {
		if err := tc.r.Check(); (err == nil) != tc.ok {
			t.Errorf("%+v: %v", tc.r, err)
		}
	}
	out := FailOutcome(Request{Action: Fail, Operator: "alice", Reason: "never sent"})
	if out.Status != catalog.TxFailed || out.Code != catalog.FailByOperator || !strings.Contains(out.Message, "alice") || !strings.Contains(out.Message, "never sent") {
		t.Fatalf("outcome %+v", out)
	}
}
