package view

import (
	"encoding/json"
	"time"

	"paycore/db"
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
