package agent

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/transfer"
)

var at = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// Every decision from every status: only a pending action before its expiry is decided;
// approval of an action whose agent was paused or deleted meanwhile ends it FAILED; any
// other is refused AGENT_ACTION_NOT_PENDING with what the action became.
func TestDecideTransitions(t *testing.T) {
	later, earlier := at.Add(time.Minute), at.Add(-time.Minute)
	live, paused, deleted := Actor{}, Actor{Paused: true}, Actor{Deleted: true}
	approve, reject := Decision{Approve: true}, Decision{Reason: "too much"}
	for _, tc := range []struct {
		name    string
		a       Action
		d       Decision
		actor   Actor
		next    Next
		refused catalog.Code
		status  string // details.status of the refusal
		ended   bool   // the action's workflow has ended
	}{
		{"pending, approved", Action{Status: PendingApproval, ApprovalExpiresAt: &later}, approve, live, Next{Status: Approved}, "", "", false},
		{"pending, rejected", Action{Status: PendingApproval, ApprovalExpiresAt: &later}, reject, live, Next{Status: Rejected, Rejection: "too much", Release: true}, "", "", false},
		{"pending, rejected without reason", Action{Status: PendingApproval, ApprovalExpiresAt: &later}, Decision{}, live, Next{Status: Rejected, Release: true}, "", "", false},
		{"pending, approved, agent paused", Action{Status: PendingApproval, ApprovalExpiresAt: &later}, approve, paused, Next{Status: Failed, Failure: FailureAgentPaused, Release: true}, "", "", false},
		{"pending, approved, agent deleted", Action{Status: PendingApproval, ApprovalExpiresAt: &later}, approve, deleted, Next{Status: Failed, Failure: FailureAgentDeleted, Release: true}, "", "", false},
		{"pending, approved, agent paused and deleted", Action{Status: PendingApproval}, approve, Actor{Paused: true, Deleted: true}, Next{Status: Failed, Failure: FailureAgentDeleted, Release: true}, "", "", false},
		{"pending, rejected, agent paused", Action{Status: PendingApproval, ApprovalExpiresAt: &later}, reject, paused, Next{Status: Rejected, Rejection: "too much", Release: true}, "", "", false},
		{"pending past its expiry", Action{Status: PendingApproval, ApprovalExpiresAt: &earlier}, approve, live, Next{}, catalog.AgentActionNotPending, "FAILED", false},
		{"pending at its expiry", Action{Status: PendingApproval, ApprovalExpiresAt: &at}, reject, live, Next{}, catalog.AgentActionNotPending, "FAILED", false},
		{"approved", Action{Status: Approved}, approve, live, Next{}, catalog.AgentActionNotPending, "APPROVED", false},
		{"approved, rejected", Action{Status: Approved}, reject, live, Next{}, catalog.AgentActionNotPending, "APPROVED", false},
		{"rejected", Action{Status: Rejected}, approve, live, Next{}, catalog.AgentActionNotPending, "REJECTED", false},
		{"failed", Action{Status: Failed, FailureReason: FailureApprovalExpired}, reject, live, Next{}, catalog.AgentActionNotPending, "FAILED", false},
		{"pending, workflow ended", Action{Status: PendingApproval, ApprovalExpiresAt: &later}, approve, live, Next{}, catalog.AgentActionNotPending, "PENDING_APPROVAL", true},
		{"pending past its expiry, workflow ended", Action{Status: PendingApproval, ApprovalExpiresAt: &earlier}, reject, live, Next{}, catalog.AgentActionNotPending, "FAILED", true},
		{"rejected, workflow ended", Action{Status: Rejected}, approve, live, Next{}, catalog.AgentActionNotPending, "REJECTED", true},
	} {
		next, err := tc.a.Decide(tc.d, tc.actor, at, !tc.ended)
		if got := problem.CodeOf(err); got != tc.refused {
			t.Errorf("%s: refusal %q (%v), want %q", tc.name, got, err, tc.refused)
			continue
		}
		if tc.refused != "" {
			if w, _ := problem.ToWire(err); w.Details["status"] != tc.status {
				t.Errorf("%s: details %v, want status %s", tc.name, w.Details, tc.status)
			}
			continue
		}
		if next != tc.next {
			t.Errorf("%s: %+v, want %+v", tc.name, next, tc.next)
		}
	}
}

// The stored status alone refuses what is no longer pending (what an ended workflow
// leaves), with the failure reason of a failed action.
func TestPending(t *testing.T) {
	for _, tc := range []struct {
		a       Action
		refused bool
	}{
		{Action{Status: PendingApproval}, false},
		{Action{Status: Approved}, true},
		{Action{Status: Rejected}, true},
		{Action{Status: Failed, FailureReason: FailureAgentPaused}, true},
	} {
		err := tc.a.Pending()
		if (err != nil) != tc.refused || (err != nil && problem.CodeOf(err) != catalog.AgentActionNotPending) {
			t.Errorf("%+v: %v", tc.a, err)
		}
		if w, _ := problem.ToWire(err); err != nil && tc.a.FailureReason != "" && w.Details["failureReason"] != tc.a.FailureReason {
			t.Errorf("%+v: details %v", tc.a, w.Details)
		}
	}
}

// Ending an action FAILED (its approval expired, its execution or its transaction failed)
// applies only from the statuses the step names; from any other it changes nothing.
func TestFailTransitions(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    Action
		from []ActionStatus
		ok   bool
	}{
		{"expire a pending action", Action{Status: PendingApproval}, []ActionStatus{PendingApproval}, true},
		{"expire an approved action", Action{Status: Approved}, []ActionStatus{PendingApproval}, false},
		{"expire a rejected action", Action{Status: Rejected}, []ActionStatus{PendingApproval}, false},
		{"expire a failed action", Action{Status: Failed}, []ActionStatus{PendingApproval}, false},
		{"fail an approved action", Action{Status: Approved}, []ActionStatus{Approved}, true},
		{"fail a pending action's execution", Action{Status: PendingApproval}, []ActionStatus{Approved}, false},
		{"fail a rejected action's execution", Action{Status: Rejected}, []ActionStatus{Approved}, false},
		{"fail a failed action's execution", Action{Status: Failed}, []ActionStatus{Approved}, false},
	} {
		next, ok := tc.a.Fail("WHY", tc.from...)
		if ok != tc.ok || (ok && next != (Next{Status: Failed, Failure: "WHY", Release: true})) {
			t.Errorf("%s: %+v %v", tc.name, next, ok)
		}
	}
}

// An approved action's transaction that ended without moving money fails the action, with
// the transaction's failure reason or TRANSACTION_<status>; other endings change nothing.
func TestTransactionEnded(t *testing.T) {
	for _, tc := range []struct {
		status catalog.TransactionStatus
		reason string
		want   string
		ok     bool
	}{
		{catalog.TxFailed, "INSUFFICIENT_FUNDS", "INSUFFICIENT_FUNDS", true},
		{catalog.TxFailed, "", "TRANSACTION_FAILED", true},
		{catalog.TxExpired, "", "TRANSACTION_EXPIRED", true},
		{catalog.TxRejected, "", "TRANSACTION_REJECTED", true},
		{catalog.TxCompleted, "", "", false},
		{catalog.TxPending, "", "", false},
		{catalog.TxProcessing, "", "", false},
	} {
		got, ok := TransactionEnded(tc.status, tc.reason)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s/%s: %q %v", tc.status, tc.reason, got, ok)
		}
	}
}

// Executing an approved action: the agent acts unless it was paused or deleted since.
func TestExecuteActor(t *testing.T) {
	for _, tc := range []struct {
		actor Actor
		want  string
	}{
		{Actor{}, ""},
		{Actor{Paused: true}, FailureAgentPaused},
		{Actor{Deleted: true}, FailureAgentDeleted},
		{Actor{Paused: true, Deleted: true}, FailureAgentDeleted},
	} {
		if got := tc.actor.Gone(); got != tc.want {
			t.Errorf("%+v: %q", tc.actor, got)
		}
	}
}

// Submitting: a deleted agent's access is revoked (401), a paused one acts on nothing (403).
func TestCheckSubmitter(t *testing.T) {
	for _, tc := range []struct {
		actor Actor
		code  catalog.Code
	}{
		{Actor{}, ""},
		{Actor{Paused: true}, catalog.Forbidden},
		{Actor{Deleted: true}, catalog.Unauthorized},
		{Actor{Deleted: true, Paused: true}, catalog.Unauthorized},
	} {
		if got := problem.CodeOf(tc.actor.CheckSubmit()); got != tc.code {
			t.Errorf("%+v: %q", tc.actor, got)
		}
	}
}

// What an action names must be its customer's: another's quote or account is 404, and
// money leaving an embedded wallet is refused (403).
func TestOwnership(t *testing.T) {
	pid, cust, other := uuid.New(), uuid.New(), uuid.New()
	own := Owner{PlatformID: pid, CustomerID: cust}
	some := func(id uuid.UUID) uuid.NullUUID { return uuid.NullUUID{UUID: id, Valid: true} }
	for _, tc := range []struct {
		name string
		q    QuoteOwner
		code catalog.Code
	}{
		{"own quote", QuoteOwner{Found: true, PlatformID: pid, CustomerID: some(cust)}, ""},
		{"no quote", QuoteOwner{}, catalog.QuoteNotFound},
		{"another platform's", QuoteOwner{Found: true, PlatformID: uuid.New(), CustomerID: some(cust)}, catalog.QuoteNotFound},
		{"another customer's", QuoteOwner{Found: true, PlatformID: pid, CustomerID: some(other)}, catalog.QuoteNotFound},
		{"the platform's own", QuoteOwner{Found: true, PlatformID: pid}, catalog.QuoteNotFound},
	} {
		if got := problem.CodeOf(own.CheckQuote(tc.q)); got != tc.code {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.code)
		}
	}
	acc := uuid.New()
	if err := CheckDebit(catalog.EmbeddedWallet, acc); problem.CodeOf(err) != catalog.Forbidden {
		t.Fatalf("wallet: %v", err)
	}
	if err := CheckDebit(catalog.AccountType("INTERNAL_FIAT"), acc); err != nil {
		t.Fatalf("fiat: %v", err)
	}
	if err := QuoteTaken(); problem.CodeOf(err) != catalog.QuoteNotPending {
		t.Fatalf("taken: %v", err)
	}
}

// A transfer action's accounts: the internal account is the agent's customer's, the
// external one the same customer's, and money leaves no embedded wallet (out only).
func TestTransferOwnership(t *testing.T) {
	cust, other := uuid.New(), uuid.New()
	own := Owner{CustomerID: cust}
	some := func(id uuid.UUID) uuid.NullUUID { return uuid.NullUUID{UUID: id, Valid: true} }
	fiat := &transfer.InternalAccount{ID: uuid.New(), Type: catalog.InternalFiat, CustomerID: some(cust)}
	wallet := &transfer.InternalAccount{ID: uuid.New(), Type: catalog.EmbeddedWallet, CustomerID: some(cust)}
	ext := &transfer.ExternalAccount{ID: uuid.New(), CustomerID: some(cust)}
	for _, tc := range []struct {
		name string
		kind transfer.Kind
		acc  transfer.Accounts
		code catalog.Code
	}{
		{"own accounts", transfer.Out, transfer.Accounts{Internal: fiat, External: ext}, ""},
		{"no internal account", transfer.Out, transfer.Accounts{External: ext}, catalog.AccountNotFound},
		{"another's internal account", transfer.Out, transfer.Accounts{Internal: &transfer.InternalAccount{CustomerID: some(other)}, External: ext}, catalog.AccountNotFound},
		{"the platform's internal account", transfer.In, transfer.Accounts{Internal: &transfer.InternalAccount{}, External: ext}, catalog.AccountNotFound},
		{"no external account", transfer.Out, transfer.Accounts{Internal: fiat}, catalog.ExternalAccountNotFound},
		{"another's external account", transfer.In, transfer.Accounts{Internal: fiat, External: &transfer.ExternalAccount{CustomerID: some(other)}}, catalog.ExternalAccountNotFound},
		{"out of a wallet", transfer.Out, transfer.Accounts{Internal: wallet, External: ext}, catalog.Forbidden},
		{"into a wallet", transfer.In, transfer.Accounts{Internal: wallet, External: ext}, ""},
	} {
		if got := problem.CodeOf(own.CheckTransfer(tc.kind, tc.acc)); got != tc.code {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.code)
		}
	}
}
