package agent

import (
	"strings"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// A decision refused as not pending names why: decided, expired, or another decision first.
func TestNotPending(t *testing.T) {
	for _, tc := range []struct {
		status  ActionStatus
		failure string
		says    string
	}{
		{Approved, "", "is APPROVED"},
		{Failed, FailureApprovalExpired, "expired"},
		{PendingApproval, "", "another decision"},
	} {
		w, ok := problem.ToWire(NotPending(tc.status, tc.failure))
		if !ok || w.Code != catalog.AgentActionNotPending || !strings.Contains(w.Message, tc.says) || w.Details["status"] != string(tc.status) {
			t.Errorf("%s/%s: %+v", tc.status, tc.failure, w)
		}
	}
}
