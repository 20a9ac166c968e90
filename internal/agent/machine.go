package agent

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/extaccount"
	"paycore/internal/problem"
	"paycore/internal/quote"
	"paycore/internal/transfer"
)

// The state machine of an agent action. An action is created PENDING_APPROVAL or
// APPROVED (by the policy, see agentpolicy); from there:
//
//	PENDING_APPROVAL --Decide(approve)--> APPROVED                     (to be executed)
//	PENDING_APPROVAL --Decide(approve), agent paused/deleted--> FAILED (AGENT_PAUSED, AGENT_DELETED)
//	PENDING_APPROVAL --Decide(reject)--> REJECTED
//	PENDING_APPROVAL --Fail(APPROVAL_EXPIRED), its timer--> FAILED
//	APPROVED         --Fail(reason), execution refused or agent gone--> FAILED
//	APPROVED         --TransactionEnded(failed, expired, rejected)--> FAILED
//
// REJECTED and FAILED are final; APPROVED is final once its transaction completes. Every
// move to REJECTED or FAILED gives the action's reservation back. Each transition returns
// the Next step (for the db operation to apply under the action's lock) or a refusal with
// its stable code.

// Action is what the state machine reads of a stored action.
type Action struct {
	Status        ActionStatus
	FailureReason string
	// ApprovalExpiresAt is when a pending action's approval expires (nil: never).
	ApprovalExpiresAt *time.Time
}

// Next is a transition's outcome: the status the action moves to, the rejection or
// failure reason it records ("" for none) and whether its reservation is given back.
type Next struct {
	Status    ActionStatus
	Rejection string
	Failure   string
	Release   bool
}

// Actor is what the rules read of an action's agent as the action moves: whether it was
// paused or deleted.
type Actor struct {
	Paused, Deleted bool
}

// CheckSubmit refuses an action of an agent that may not act: a deleted agent's access is
// revoked (401 UNAUTHORIZED), a paused one acts on nothing (403 FORBIDDEN).
func (ag Actor) CheckSubmit() error {
	switch {
	case ag.Deleted:
		return problem.Refuse(catalog.Unauthorized, "the agent was deleted; its access is revoked")
	case ag.Paused:
		return Paused()
	}
	return nil
}

// Gone is why an approved action's agent may no longer act (FailureAgentDeleted,
// FailureAgentPaused: deleted or paused since the action was approved), "" when it may.
func (ag Actor) Gone() string {
	switch {
	case ag.Deleted:
		return FailureAgentDeleted
	case ag.Paused:
		return FailureAgentPaused
	}
	return ""
}

// Pending refuses deciding an action whose status is not PENDING_APPROVAL (NotPending):
// the stored status alone says so, whatever the clock.
func (a Action) Pending() error {
	if a.Status != PendingApproval {
		return NotPending(a.Status, a.FailureReason)
	}
	return nil
}

// Decide is the platform's decision d on the action at now, its agent being ag: a pending
// action before its approvalExpiresAt is APPROVED, or FAILED (AGENT_PAUSED,
// AGENT_DELETED) when its agent was paused or deleted meanwhile, or REJECTED with d's
// reason. Any other is refused 409 AGENT_ACTION_NOT_PENDING; a decision at or after
// approvalExpiresAt is refused as after the expiry, which its workflow's timer records.
// open says whether the action's workflow still runs (only it carries a decision out): once
// it has ended, a pending action takes no decision (refused as one being carried out).
func (a Action) Decide(d Decision, ag Actor, now time.Time, open bool) (Next, error) {
	if err := a.Pending(); err != nil {
		return Next{}, err
	}
	if a.ApprovalExpiresAt != nil && !now.Before(*a.ApprovalExpiresAt) {
		return Next{}, NotPending(Failed, FailureApprovalExpired)
	}
	if !open {
		return Next{}, NotPending(PendingApproval, "")
	}
	if !d.Approve {
		return Next{Status: Rejected, Rejection: d.Reason, Release: true}, nil
	}
	if why := ag.Gone(); why != "" {
		return Next{Status: Failed, Failure: why, Release: true}, nil
	}
	return Next{Status: Approved}, nil
}

// Fail ends the action FAILED with reason when its status is one of from (a pending
// action whose approval expired, an approved one whose execution was refused); ok is false
// when it is in another status, which the step leaves as it is.
func (a Action) Fail(reason string, from ...ActionStatus) (next Next, ok bool) {
	if !slices.Contains(from, a.Status) {
		return Next{}, false
	}
	return Next{Status: Failed, Failure: reason, Release: true}, true
}

// TransactionEnded is the failure reason of an approved action whose transaction ended in
// status without moving money (FAILED, EXPIRED, REJECTED): the transaction's own failure
// reason, or TRANSACTION_<status>. ok is false for any other status (the action stands).
func TransactionEnded(status catalog.TransactionStatus, failureReason string) (reason string, ok bool) {
	if status != catalog.TxFailed && status != catalog.TxExpired && status != catalog.TxRejected {
		return "", false
	}
	if failureReason != "" {
		return failureReason, true
	}
	return "TRANSACTION_" + string(status), true
}

// Owner is the customer an agent acts for, of its platform.
type Owner struct {
	PlatformID uuid.UUID
	CustomerID uuid.UUID
}

// QuoteOwner is what an EXECUTE_QUOTE action reads of its quote to know whose it is.
type QuoteOwner struct {
	// Found is false when no quote has the id.
	Found      bool
	PlatformID uuid.UUID
	CustomerID uuid.NullUUID
}

// CheckQuote refuses a quote that is not the agent's customer's (404 QUOTE_NOT_FOUND, as
// for any object an agent cannot see).
func (o Owner) CheckQuote(q QuoteOwner) error {
	if !q.Found || q.PlatformID != o.PlatformID || q.CustomerID != (uuid.NullUUID{UUID: o.CustomerID, Valid: true}) {
		return quote.NotFound()
	}
	return nil
}

// CheckTransfer refuses a transfer action's accounts unless both are the agent's
// customer's (404 ACCOUNT_NOT_FOUND, EXTERNAL_ACCOUNT_NOT_FOUND), and money leaving an
// embedded wallet (CheckDebit). The transfer rule (transfer.Check) runs after it.
func (o Owner) CheckTransfer(kind transfer.Kind, acc transfer.Accounts) error {
	if acc.Internal == nil || acc.Internal.CustomerID != (uuid.NullUUID{UUID: o.CustomerID, Valid: true}) {
		return account.NotFound()
	}
	if acc.External == nil || acc.External.CustomerID != acc.Internal.CustomerID {
		return extaccount.NotFound()
	}
	if kind == transfer.Out {
		return CheckDebit(acc.Internal.Type, acc.Internal.ID)
	}
	return nil
}

// CheckDebit refuses money leaving the internal account accountID of type typ on an
// agent's behalf when it is an embedded wallet (WalletRefused).
func CheckDebit(typ catalog.AccountType, accountID uuid.UUID) error {
	if typ == catalog.EmbeddedWallet {
		return WalletRefused(accountID)
	}
	return nil
}

// QuoteTaken refuses an EXECUTE_QUOTE action on a quote another live action of an agent
// is executing (409 QUOTE_NOT_PENDING).
func QuoteTaken() error {
	return problem.Refuse(catalog.QuoteNotPending, "another action of an agent is executing this quote")
}
