// Package transfer describes same-currency transfers between an internal account and an
// external account: the request the API hands to the transfer workflow and its activities,
// the rule a request is checked against, and what the rail makes of it.
package transfer

import (
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/rail"
	"paycore/internal/sandbox"
)

// Kind is the kind of a transfer, as stored in the transaction's kind.
type Kind string

// Kinds of transfer.
const (
	Out Kind = "TRANSFER_OUT" // internal account → external account
	In  Kind = "TRANSFER_IN"  // external account → internal account
)

// Type is the transaction type of a transfer of this kind.
func (k Kind) Type() catalog.TransactionType {
	if k == In {
		return catalog.Incoming
	}
	return catalog.Outgoing
}

// InternalField is the request member that names the internal account.
func (k Kind) InternalField() string {
	if k == In {
		return "destination.accountId"
	}
	return "source.accountId"
}

// ExternalField is the request member that names the external account.
func (k Kind) ExternalField() string {
	if k == In {
		return "source.accountId"
	}
	return "destination.accountId"
}

// Final keeps a rail's outcome within the statuses a transaction of this kind can end
// with. A transfer out ends COMPLETED or FAILED (the peer's outgoing statuses have no
// REJECTED): a bank rejection is FAILED with the rejection in failureDetails. Outcomes
// recorded by workflows that started before this rule still say REJECTED.
func (k Kind) Final(out sandbox.Outcome) sandbox.Outcome {
	if out.Status == catalog.TxCompleted {
		return out
	}
	if k == Out || out.Status != catalog.TxRejected {
		out.Status = catalog.TxFailed
	}
	return out
}

// ClosedBeforeSettlement is how a transfer in ends when its internal account was closed
// before the money arrived: FAILED, nothing credited.
func ClosedBeforeSettlement() sandbox.Outcome {
	return sandbox.Outcome{Status: catalog.TxFailed, Code: catalog.FailAccountClosed,
		Message: "the destination internal account was closed before the payment settled"}
}

// Request is a transfer to create, as the API hands it to the transfer workflow: what the
// caller asked for, decoded and shape-checked, with typed ids. Everything that depends on
// the accounts is decided by the create step (see Check). Its JSON form is that of the
// requests recorded in earlier workflow histories (a uuid marshals as the same string;
// fields those carried and this no longer has are ignored), so those histories still
// decode.
type Request struct {
	TransactionID     uuid.UUID
	Kind              Kind
	PlatformID        uuid.UUID
	CustomerID        ids.Optional // the internal account's customer, a search attribute; absent for the platform's own accounts
	InternalAccountID uuid.UUID
	ExternalAccountID uuid.UUID
	Amount            int64
	Description       string
	// PaymentRail is the rail a transfer out must travel on (destination.paymentRail), ""
	// for the external account's first; RemittanceInformation and PurposeOfPayment travel
	// with it to the beneficiary.
	PaymentRail           string `json:",omitempty"`
	RemittanceInformation string `json:",omitempty"`
	PurposeOfPayment      string `json:",omitempty"`
	// WalletSignature is the used signed retry by which the customer's wallet session
	// authorised this transfer out of an embedded wallet; absent otherwise.
	WalletSignature ids.Optional `json:",omitzero"`
	// AgentID is the agent whose action makes this transfer (the transaction's agentId);
	// absent otherwise.
	AgentID ids.Optional `json:",omitzero"`
	// SlowDelay is how long the sandbox's slow scenario stays pending (about 30 s in
	// production configuration; tests shorten it).
	SlowDelay time.Duration
}

// MaxRemittanceLength bounds a transfer's remittanceInformation, in characters (an ACH
// addenda record's payment information is 80).
const MaxRemittanceLength = 80

// PurposesOfPayment are the purposes a transfer out may declare (purposeOfPayment), the
// peer API's values; some countries' rails require one (India).
var PurposesOfPayment = []string{"GIFT", "SELF", "GOODS_OR_SERVICES", "EDUCATION", "HEALTH_OR_MEDICAL", "REAL_ESTATE_PURCHASE", "TAX_PAYMENT",
	"LOAN_PAYMENT", "UTILITY_BILL", "DONATION", "TRAVEL", "FAMILY_SUPPORT", "SALARY_PAYMENT", "OTHER"}

// NeedsSignature reports whether a transfer of this kind from an internal account of this
// type needs the customer's wallet signature: money leaving an embedded wallet does.
func NeedsSignature(kind Kind, account catalog.AccountType) bool {
	return kind == Out && account == catalog.EmbeddedWallet
}

// Rail is what submitting a transfer to its rail takes: the external account's primary
// identifier, the platform's environment and the transfer's currency, kind and amount,
// as the create step found them (Currency, Kind and Amount are absent from rails
// recorded before they existed).
type Rail struct {
	ExternalIdentifier string
	// AccountType is the external account's type ("" in rails recorded before it existed).
	AccountType string `json:",omitempty"`
	Environment catalog.Environment
	// Platform is the transfer's platform, for the routes that name one (absent from rails
	// recorded before it existed).
	Platform uuid.UUID `json:",omitzero"`
	Currency string    `json:",omitempty"`
	Kind     Kind      `json:",omitempty"`
	Amount   int64     `json:",omitempty"`
	// PaymentRail is the network a transfer out travels on ("" for none, and in rails
	// recorded before it existed); Remittance and Purpose travel with it.
	PaymentRail string `json:",omitempty"`
	Remittance  string `json:",omitempty"`
	Purpose     string `json:",omitempty"`
}

// Known reports whether r is filled in (requests recorded before Rail existed are not).
func (r Rail) Known() bool {
	return r.Environment != ""
}

// Instruction is the transfer as its rail is given it, under key (the transaction id).
func (r Rail) Instruction(key string) rail.Instruction {
	p := rail.TransferOut
	if r.Kind == In {
		p = rail.TransferIn
	}
	return rail.Instruction{Key: key, Payment: p, Environment: r.Environment, Platform: r.Platform, Currency: r.Currency, Kind: rail.ExternalAccount,
		AccountType: r.AccountType, Identifier: r.ExternalIdentifier, Amount: r.Amount, PaymentRail: r.PaymentRail,
		RemittanceInformation: r.Remittance, PurposeOfPayment: r.Purpose}
}

// Unavailable is how a transfer ends that no configured rail serves when it reaches its
// rail step (one requested before such transfers were refused up front, or before the
// configuration changed): FAILED with RAIL_UNAVAILABLE.
func (r Rail) Unavailable() rail.Outcome {
	return rail.Outcome{Status: catalog.TxFailed, Code: catalog.FailRailUnavailable, Message: "no payment rail is connected for production transfers"}
}
