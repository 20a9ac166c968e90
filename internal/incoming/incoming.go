// Package incoming describes payments a platform's customer receives over UMA: the
// request the API hands to the incoming-payment workflow, the sandbox's UMA senders, and
// the receiving platform's decision on a payment (the answer to its synchronous
// INCOMING_PAYMENT_PENDING webhook, or a later approve or reject call).
package incoming

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/problem"
	"paycore/internal/sandbox"
)

// Kind is the transaction kind of a payment received over UMA.
const Kind = "UMA_IN"

// SandboxDomain is the UMA domain of the sandbox's counterparties.
const SandboxDomain = sandbox.UmaDomain

// Scenarios of the sandbox's UMA counterparties: the address's user part before the
// currency ($success.usd@…).
const (
	ScenarioSuccess        = "success"
	ScenarioPendingLong    = "pending.long"
	ScenarioFailCompliance = "fail.compliance"
)

// scenarioCurrencies are the currencies each sandbox counterparty has.
var scenarioCurrencies = map[string][]string{
	ScenarioSuccess:        {"USD", "EUR", "MXN"},
	ScenarioPendingLong:    {"USD"},
	ScenarioFailCompliance: {"USD"},
}

var sandboxAddress = regexp.MustCompile(`^\$([a-z.]+)\.([a-z]{3})@(.+)$`)

// Counterparty is a sandbox UMA counterparty: its address, scenario and currency.
type Counterparty struct {
	Address  string
	Scenario string `json:",omitempty"` // the sandbox's scenario; "" for a customer on this deployment
	Currency string
	// DisplayName is the sender's name when known (a customer on this deployment, or what
	// another provider's pay request says of its payer).
	DisplayName string `json:",omitempty"`
	// Information is what another UMA provider's pay request tells of its payer, as
	// counterpartyInformation names it (EMAIL, KYC_STATUS, TRAVEL_RULE_INFO, …), beside
	// FULL_NAME (Name).
	Information map[string]string `json:",omitempty"`
}

// SandboxCounterparty parses a sandbox UMA address ($<scenario>.<currency>@<sandbox
// domain>); the refusal names field.
func SandboxCounterparty(field, address string) (Counterparty, error) {
	m := sandboxAddress.FindStringSubmatch(address)
	if m == nil || m[3] != SandboxDomain {
		return Counterparty{}, problem.FieldCode(catalog.InvalidUmaAddress, field,
			"%s must be a sandbox UMA address: $success.usd, $success.eur, $success.mxn, $pending.long.usd or $fail.compliance.usd at %s", field, SandboxDomain)
	}
	cur := strings.ToUpper(m[2])
	if !slices.Contains(scenarioCurrencies[m[1]], cur) {
		return Counterparty{}, problem.FieldCode(catalog.InvalidUmaAddress, field, "the sandbox has no counterparty %s", address)
	}
	return Counterparty{Address: address, Scenario: m[1], Currency: cur}, nil
}

// SenderHome is what the sender rule reads of a sender's address: whether a platform of
// this deployment holds the address's domain, and whether the address is one of that
// platform's customers (a deleted one's address stays its own).
type SenderHome struct {
	Held     bool
	Customer bool
}

// Domain is the domain of the counterparty's address (after its last '@').
func (c Counterparty) Domain() string {
	return c.Address[strings.LastIndexByte(c.Address, '@')+1:]
}

// CheckSender refuses a payment from an address on a domain a platform of this deployment
// holds that is not one of that platform's customers (UMA_SENDER_NOT_CUSTOMER): only the
// domain's platform speaks for its addresses, whatever the sender claims.
func CheckSender(c Counterparty, h SenderHome) error {
	if h.Held && !h.Customer {
		return problem.Refuse(catalog.UmaSenderNotCustomer,
			"the sender %s is on a UMA domain of a platform of this deployment but is not one of its customers", c.Address)
	}
	return nil
}

// Name is the counterparty's name as the receiver sees it (counterpartyInformation).
func (c Counterparty) Name() string {
	if c.DisplayName != "" {
		return c.DisplayName
	}
	if c.Scenario == "" {
		return c.Address // another provider's payer that gave no name
	}
	return "Sandbox " + strings.ReplaceAll(c.Scenario, ".", " ") + " sender"
}

// RequiredPayeeFields are the receiver's details the sandbox's senders require
// (requestedReceiverCustomerInfoFields): the platform supplies them when it approves, or
// the service takes them from the customer's record.
var RequiredPayeeFields = []string{"FULL_NAME"}

// Request is an incoming payment to create, as the API hands it to the workflow.
type Request struct {
	TransactionID uuid.UUID
	PlatformID    uuid.UUID
	// ReceiverUma or ReceiverCustomer names the receiving customer.
	ReceiverUma      string       `json:",omitempty"`
	ReceiverCustomer ids.Optional `json:",omitzero"`
	// CustomerID is the receiving customer, a search attribute (filled by the API when it
	// finds it).
	CustomerID ids.Optional `json:",omitzero"`
	Sender     Counterparty
	Currency   string
	Amount     int64
	// ApprovalDeadline is how long the platform has to approve or reject after it
	// answered 202; SlowDelay how long the sandbox's pending.long sender stays pending.
	ApprovalDeadline time.Duration
	SlowDelay        time.Duration
	// ForQuote is the quote payment (its transaction) this incoming payment is the
	// counterpart of, for a payment between customers on this deployment: the workflow
	// then only asks the receiving platform and returns its decision, and the quote's
	// finish moves the money and ends both transactions at once.
	ForQuote ids.Optional `json:",omitzero"`
	// Collect, for a payment from another UMA provider, is how its money is collected once
	// the platform approved it (nil: the sandbox's senders and customers of this
	// deployment, whose money needs no collecting).
	Collect *Collection `json:",omitempty"`
}

// Decision is how a payment awaiting the platform's approval ends: approved (with what the
// platform said of the receiver), rejected, failed, or still open (the platform answered
// 202 and decides later).
type Decision struct {
	Pending      bool                      `json:",omitempty"`
	Approved     bool                      `json:",omitempty"`
	Status       catalog.TransactionStatus `json:",omitempty"` // REJECTED or FAILED when not approved
	Reason       string                    `json:",omitempty"` // failureReason
	Code         catalog.Code              `json:",omitempty"`
	Message      string                    `json:",omitempty"`
	ReceiverInfo map[string]string         `json:",omitempty"`
	// Funds and Collected are, for a collected payment (Request.Collect), the system
	// account kind standing for where the rail holds what it received, and how much it
	// received (see Paid).
	Funds     string `json:",omitempty"`
	Collected int64  `json:",omitempty"`
}

// Outcome is the decision as the payment's finish takes it.
func (d Decision) Outcome() sandbox.Outcome {
	if d.Approved {
		return sandbox.Outcome{Status: catalog.TxCompleted, Funds: d.Funds, Collected: d.Collected}
	}
	return sandbox.Outcome{Status: d.Status, Code: d.Code, Message: d.Message, FailureReason: d.Reason}
}

// Unsettled is the decision that ends a payment whose finish was refused for good: FAILED,
// nothing credited (see sandbox.Unsettled).
func Unsettled(code catalog.Code) Decision {
	o := sandbox.Unsettled(code)
	return Decision{Status: o.Status, Code: o.Code, Message: o.Message}
}

// Failure reasons of incoming payments.
const (
	ReasonWebhookError   = catalog.ReasonApprovalWebhookError
	ReasonTimedOut       = catalog.ReasonApprovalTimedOut
	ReasonMissingPayee   = catalog.ReasonMissingPayeeData
	ReasonPayRequestFail = catalog.ReasonPayRequestFailed
)

// Approve is the platform approving, with what it says of the receiver; Reject it
// refusing, with its reason.
func Approve(info map[string]string) Decision { return Decision{Approved: true, ReceiverInfo: info} }

// Reject is the platform refusing the payment.
func Reject(reason string) Decision {
	msg := "the receiving platform rejected the payment"
	if reason != "" {
		msg += ": " + reason
	}
	return Decision{Status: catalog.TxRejected, Code: catalog.FailRejectedByPlatform, Message: msg}
}

// TimedOut is the platform not deciding within the deadline after its 202.
func TimedOut() Decision {
	return Decision{Status: catalog.TxFailed, Reason: ReasonTimedOut, Code: catalog.FailTimedOut, Message: "the platform did not approve or reject the payment in time"}
}

// WebhookError is the payment failing because asking the platform failed.
func WebhookError(cause string) Decision {
	return Decision{Status: catalog.TxFailed, Reason: ReasonWebhookError, Code: catalog.WebhookDeliveryError, Message: "the approval webhook failed: " + cause}
}

// ComplianceFailure is how the sandbox's fail.compliance sender's payment ends.
func ComplianceFailure() Decision {
	return Decision{Status: catalog.TxFailed, Reason: ReasonPayRequestFail, Code: catalog.FailCompliance, Message: "the sender's compliance check failed"}
}

// Answer is the receiving platform's answer to its INCOMING_PAYMENT_PENDING webhook: the
// HTTP status and body, or the transport failure.
type Answer struct {
	Status int
	Body   []byte
	Error  string
}

// Decide reads the platform's answer: 202 leaves the decision open; another 2xx approves
// (the body's receiverCustomerInfo completing what the service knows of the receiver,
// known, which must then hold every required payee field, else the payment fails with
// MISSING_MANDATORY_PAYEE_DATA); 403 rejects (the body's reason recorded); 422 fails it
// with MISSING_MANDATORY_PAYEE_DATA (the fields the platform says it needs); anything
// else, a transport failure included, fails it with PAYMENT_APPROVAL_WEBHOOK_ERROR.
func Decide(a Answer, known map[string]string) Decision {
	var body struct {
		ReceiverCustomerInfo map[string]string `json:"receiverCustomerInfo"`
		Reason               string            `json:"reason"`
		RequiredFields       []string          `json:"requiredFields"`
		Message              string            `json:"message"`
	}
	_ = json.Unmarshal(a.Body, &body) // an unreadable body reads as empty
	switch {
	case a.Error != "":
		return WebhookError(a.Error)
	case a.Status == 202:
		return Decision{Pending: true}
	case a.Status/100 == 2:
		return ApproveWith(body.ReceiverCustomerInfo, known)
	case a.Status == 403:
		return Reject(body.Reason)
	case a.Status == 422:
		return missingPayee(body.RequiredFields)
	}
	return Decision{Status: catalog.TxFailed, Reason: ReasonWebhookError, Code: catalog.WebhookDeliveryError,
		Message: fmt.Sprintf("the approval webhook answered %d", a.Status)}
}

// ApproveWith approves with info completed by known, or fails the payment when a required
// payee field is still missing.
func ApproveWith(info, known map[string]string) Decision {
	merged := map[string]string{}
	for k, v := range known {
		merged[k] = v
	}
	for k, v := range info {
		merged[k] = v
	}
	if missing := MissingPayeeFields(merged, nil); len(missing) > 0 {
		return missingPayee(missing)
	}
	return Approve(merged)
}

// MissingPayeeFields are the required payee fields (RequiredPayeeFields) that neither info
// (what the platform gave) nor known (what the service knows) holds.
func MissingPayeeFields(info, known map[string]string) []string {
	var missing []string
	for _, f := range RequiredPayeeFields {
		if strings.TrimSpace(info[f]) == "" && strings.TrimSpace(known[f]) == "" {
			missing = append(missing, f)
		}
	}
	return missing
}

// CheckPayee is an approval d as it stands once the required payee fields are checked
// against info and known (MissingPayeeFields): failed with MISSING_MANDATORY_PAYEE_DATA when
// one is missing, else d. Other decisions are left as they are.
func CheckPayee(d Decision, known map[string]string) Decision {
	if !d.Approved {
		return d
	}
	if missing := MissingPayeeFields(d.ReceiverInfo, known); len(missing) > 0 {
		return missingPayee(missing)
	}
	return d
}

func missingPayee(fields []string) Decision {
	msg := "the sender requires the receiver's details"
	if len(fields) > 0 {
		msg += ": " + strings.Join(fields, ", ")
	}
	return Decision{Status: catalog.TxFailed, Reason: ReasonMissingPayee, Code: catalog.FailMissingPayeeData, Message: msg}
}
