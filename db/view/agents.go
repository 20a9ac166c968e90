package view

import (
	"encoding/json"
	"time"

	"paycore/db"
	"paycore/internal/agent"
	"paycore/internal/agentpolicy"
	"paycore/internal/ids"
)

// Agent is a programmatic actor of a customer (Agent).
type Agent struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	CustomerID  string            `json:"customerId"`
	IsPaused    bool              `json:"isPaused"`
	IsConnected bool              `json:"isConnected"`
	Policy      json.RawMessage   `json:"policy"`
	Usage       agentpolicy.Usage `json:"usage"`
	CreatedAt   time.Time         `json:"createdAt"`
	UpdatedAt   time.Time         `json:"updatedAt"`
}

// AgentOf renders an agent with its usage as read at a moment (db.AgentsWithUsage: the
// windows, UTC day and month, of that moment; zeros before its first reservation). Its
// policy is stored as the JSON it is shown as.
func AgentOf(a db.AgentWithUsage) Agent {
	return Agent{ID: ids.Format(ids.Agent, a.ID), Name: a.Name, CustomerID: ids.Format(ids.Customer, a.CustomerID),
		IsPaused: a.IsPaused, IsConnected: a.ConnectedAt != nil, Policy: a.Policy, Usage: a.Usage,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

// AgentDeviceCode is a device code as issued (AgentDeviceCode): the code is shown only in
// the answer that issues it.
type AgentDeviceCode struct {
	Code      string    `json:"code"`
	AgentID   string    `json:"agentId"`
	ExpiresAt time.Time `json:"expiresAt"`
	Redeemed  bool      `json:"redeemed"`
}

// AgentCreated answers POST /agents (AgentCreateResponse).
type AgentCreated struct {
	Agent      Agent           `json:"agent"`
	DeviceCode AgentDeviceCode `json:"deviceCode"`
}

// AgentDeviceCodeStatus answers GET /agents/device-codes/{code}/status.
type AgentDeviceCodeStatus struct {
	Code      string    `json:"code"`
	Redeemed  bool      `json:"redeemed"`
	AgentID   string    `json:"agentId"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// AgentDeviceCodeStatusOf renders the status of code (in its shown form).
func AgentDeviceCodeStatusOf(code string, s db.AgentDeviceCodeStatusRow) AgentDeviceCodeStatus {
	return AgentDeviceCodeStatus{Code: code, Redeemed: s.RedeemedAt != nil, AgentID: ids.Format(ids.Agent, s.AgentID), ExpiresAt: s.ExpiresAt}
}

// AgentRedeemed answers POST /agents/device-codes/{code}/redeem
// (AgentDeviceCodeRedeemResponse): the access token is shown this once.
type AgentRedeemed struct {
	AgentID     string          `json:"agentId"`
	AgentName   string          `json:"agentName"`
	AccessToken string          `json:"accessToken"`
	Policy      json.RawMessage `json:"policy"`
}

// AgentAction is the wire form of an agent's money movement (AgentAction).
type AgentAction struct {
	ID                 string                `json:"id"`
	AgentID            string                `json:"agentId"`
	CustomerID         string                `json:"customerId"`
	PlatformCustomerID string                `json:"platformCustomerId"`
	Status             agent.ActionStatus    `json:"status"`
	Type               agent.ActionType      `json:"type"`
	Quote              *Quote                `json:"quote,omitempty"`
	TransferDetails    *AgentTransferDetails `json:"transferDetails,omitempty"`
	Transaction        *Transaction          `json:"transaction,omitempty"`
	RejectionReason    *string               `json:"rejectionReason,omitempty"`
	FailureReason      *string               `json:"failureReason,omitempty"`
	ApprovalExpiresAt  *time.Time            `json:"approvalExpiresAt,omitempty"`
	CreatedAt          time.Time             `json:"createdAt"`
	UpdatedAt          time.Time             `json:"updatedAt"`
}

// AgentTransferDetails are what a transfer action moves (AgentTransferDetails).
type AgentTransferDetails struct {
	Amount               int64  `json:"amount"`
	Currency             string `json:"currency"`
	SourceAccountID      string `json:"sourceAccountId"`
	DestinationAccountID string `json:"destinationAccountId"`
}

// AgentActionOf renders an agent action: its quote for EXECUTE_QUOTE, its transfer details
// for a transfer, its transaction once executed (never while it waits or after a
// rejection), the rejection's reason when it was rejected with one, why it failed.
func AgentActionOf(a db.AgentActionFull) AgentAction {
	out := AgentAction{ID: ids.Format(ids.AgentAction, a.ID), AgentID: ids.Format(ids.Agent, a.AgentID),
		CustomerID: ids.Format(ids.Customer, a.CustomerID), PlatformCustomerID: a.PlatformCustomerID,
		Status: a.Status, Type: a.Type, ApprovalExpiresAt: a.ApprovalExpiresAt, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	if a.Quote != nil {
		q := QuoteOf(*a.Quote)
		out.Quote = &q
	}
	if a.Type != agent.ExecuteQuote {
		internal, external := ids.Format(ids.InternalAccount, a.InternalAccountID), ids.Format(ids.ExternalAccount, a.ExternalAccountID.UUID)
		d := AgentTransferDetails{Amount: a.Amount, Currency: a.Currency, SourceAccountID: internal, DestinationAccountID: external}
		if a.Type == agent.TransferIn {
			d.SourceAccountID, d.DestinationAccountID = external, internal
		}
		out.TransferDetails = &d
	}
	if a.Transaction != nil && a.Status != agent.PendingApproval && a.Status != agent.Rejected {
		t := TransactionOf(*a.Transaction)
		out.Transaction = &t
	}
	if a.Status == agent.Rejected {
		out.RejectionReason = a.RejectionReason
	}
	if a.Status == agent.Failed {
		out.FailureReason = a.FailureReason
	}
	return out
}

// AgentAction renders an action for its webhook event.
func (Resources) AgentAction(a db.AgentActionFull) any { return AgentActionOf(a) }
