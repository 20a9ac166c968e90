package agent

import (
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/problem"
)

// ActionType is the kind of money movement an agent action is (AgentActionType).
type ActionType string

// The action types.
const (
	ExecuteQuote ActionType = "EXECUTE_QUOTE"
	TransferOut  ActionType = "TRANSFER_OUT"
	TransferIn   ActionType = "TRANSFER_IN"
)

// ActionStatus is where an agent action stands (AgentActionStatus).
type ActionStatus string

// The action statuses. An action starts PENDING_APPROVAL (it waits for the platform) or
// APPROVED (within AUTO and the limits, executed at once). A pending action becomes
// APPROVED (and is executed) or REJECTED by the platform, or FAILED when its approval
// expires; an approved one becomes FAILED when its execution is refused (the quote
// expired, the balance is too low) or its transaction fails.
const (
	PendingApproval ActionStatus = "PENDING_APPROVAL"
	Approved        ActionStatus = "APPROVED"
	Rejected        ActionStatus = "REJECTED"
	Failed          ActionStatus = "FAILED"
)

// ActionStatuses lists every action status, for the status filter.
var ActionStatuses = []ActionStatus{PendingApproval, Approved, Rejected, Failed}

// FailureApprovalExpired is the failureReason of a pending action nobody decided before
// its approval expired.
const FailureApprovalExpired = "APPROVAL_EXPIRED"

// FailureAgentPaused and FailureAgentDeleted are the failureReason of a pending action the
// platform approved after pausing or deleting its agent: it is not executed.
const (
	FailureAgentPaused  = "AGENT_PAUSED"
	FailureAgentDeleted = "AGENT_DELETED"
)

// MaxReasonLength bounds a rejection's reason, in characters.
const MaxReasonLength = 1000

// Decision is the platform's answer to a pending action: approve, or reject with an
// optional reason.
type Decision struct {
	Approve bool   `json:"approve"`
	Reason  string `json:"reason,omitempty"`
}

// CheckReason refuses a rejection reason longer than MaxReasonLength characters or not
// valid UTF-8.
func CheckReason(reason string) error {
	if !utf8.ValidString(reason) || utf8.RuneCountInString(reason) > MaxReasonLength {
		return problem.Field("reason", "reason must be at most %d characters", MaxReasonLength)
	}
	return nil
}

// NotPending refuses deciding an action that is not waiting for a decision: 409
// AGENT_ACTION_NOT_PENDING with the action's status (and why, when it failed). A status
// still PENDING_APPROVAL means another decision was taken first and is being written.
func NotPending(status ActionStatus, failureReason string) error {
	details := map[string]any{"status": string(status)}
	msg := "the action is " + string(status) + " and no longer waits for a decision"
	switch {
	case failureReason == FailureApprovalExpired:
		msg = "the action's approval expired before a decision"
	case status == PendingApproval:
		msg = "another decision on the action is being carried out"
	}
	if failureReason != "" {
		details["failureReason"] = failureReason
	}
	return problem.Refuse(catalog.AgentActionNotPending, "%s", msg).With(details)
}

// Paused refuses an action of a paused agent: 403 FORBIDDEN.
func Paused() error {
	return problem.Refuse(catalog.Forbidden, "the agent is paused: its platform can resume it (PATCH /agents/{agentId} with isPaused false)")
}

// TransferTransactionID is the id of the transaction a transfer action makes, derived
// from the action's id so that executing the action again joins the same transfer.
func TransferTransactionID(actionID uuid.UUID) uuid.UUID {
	return ids.Derive("agent-action-transfer", actionID.String())
}

// Request is an action as the API hands it to its workflow: what the agent asked for,
// decoded and shape-checked, with typed ids. Everything that depends on the agent's
// policy, usage, quote or accounts is decided when the action is submitted.
type Request struct {
	ActionID uuid.UUID
	// WorkflowID is the id of the action's workflow (workflows.AgentActionWorkflowID).
	WorkflowID string
	PlatformID uuid.UUID
	AgentID    uuid.UUID
	Type       ActionType
	// QuoteID is the quote an EXECUTE_QUOTE action executes.
	QuoteID uuid.NullUUID `json:",omitzero"`
	// InternalAccountID and ExternalAccountID are a transfer's two sides (the source and
	// destination of a transfer out, the other way round for a transfer in); Amount is in
	// the internal account's currency.
	InternalAccountID uuid.UUID     `json:",omitzero"`
	ExternalAccountID uuid.NullUUID `json:",omitzero"`
	Amount            int64         `json:",omitzero"`
	Description       string        `json:",omitempty"`
	// PaymentRail, RemittanceInformation and PurposeOfPayment travel with a transfer out as
	// they do with the platform's own (transfer.Request).
	PaymentRail           string `json:",omitempty"`
	RemittanceInformation string `json:",omitempty"`
	PurposeOfPayment      string `json:",omitempty"`
	// ApprovalLifetime is how long an action that needs approval waits for a decision.
	ApprovalLifetime time.Duration
	// SlowDelay is the sandbox's slow-scenario delay of the transfer the action makes.
	SlowDelay time.Duration `json:",omitzero"`
}
