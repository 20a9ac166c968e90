package operator

import (
	"strings"
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/problem"
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
		err := tc.r.Check()
		if (err == nil) != tc.ok {
			t.Errorf("%+v: %v", tc.r, err)
		}
		if w, ok := problem.ToWire(err); err != nil && (!ok || w.Code != catalog.InvalidInput) {
			t.Errorf("%+v: refused with %v, want the code %s", tc.r, err, catalog.InvalidInput)
		}
	}
	out := FailOutcome(Request{Action: Fail, Operator: "alice", Reason: "never sent"})
	if out.Status != catalog.TxFailed || out.Code != catalog.FailByOperator || !strings.Contains(out.Message, "alice") || !strings.Contains(out.Message, "never sent") {
		t.Fatalf("outcome %+v", out)
	}
}

// A payment whose workflow does not run is stuck at any age; one whose workflow runs only
// once it waited longer than asked.
func TestStuck(t *testing.T) {
	for _, c := range []struct {
		workflow       string
		waiting, older time.Duration
		want           string
	}{
		{WorkflowRunning, time.Second, 15 * time.Minute, ""},
		{WorkflowRunning, time.Hour, 15 * time.Minute, StuckWaiting},
		{"FAILED", time.Second, 15 * time.Minute, StuckNoWorkflow},
		{"TERMINATED", 0, time.Hour, StuckNoWorkflow},
		{WorkflowNotFound, time.Second, 15 * time.Minute, StuckNoWorkflow},
		{"", time.Second, 15 * time.Minute, ""},
		{"", time.Hour, 15 * time.Minute, StuckWaiting},
	} {
		if got := Stuck(c.workflow, c.waiting, c.older); got != c.want {
			t.Errorf("Stuck(%q, %v, %v) = %q, want %q", c.workflow, c.waiting, c.older, got, c.want)
		}
	}
}

func TestNotAtRailIsACodedConflict(t *testing.T) {
	if w, ok := problem.ToWire(NotAtRail()); !ok || w.Code != catalog.Conflict {
		t.Fatalf("NotAtRail() = %v", NotAtRail())
	}
}
