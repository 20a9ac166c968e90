// Package transfer describes same-currency transfers between an internal account and an
// external account, as the API hands them to the transfer workflow and its activities.
package transfer

import "time"

// Kinds of transfer.
const (
	Out = "TRANSFER_OUT" // internal account → external account
	In  = "TRANSFER_IN"  // external account → internal account
)

// Request is a validated transfer to create.
type Request struct {
	TransactionID     string // uuid
	Kind              string
	PlatformID        string // uuid
	CustomerID        string // uuid, "" for the platform's own accounts
	InternalAccountID string // uuid
	ExternalAccountID string // uuid
	Currency          string
	Amount            int64
	Description       string
	// WalletSignature is the used signed retry (uuid) by which the customer's wallet
	// session authorised this transfer out of an embedded wallet; empty otherwise.
	WalletSignature string `json:",omitempty"`
	// SlowDelay is how long the sandbox's slow scenario stays pending (about 30 s in
	// production configuration; tests shorten it).
	SlowDelay time.Duration
}

// Business error types returned when a transfer cannot be created.
const (
	ErrInsufficientFunds = "INSUFFICIENT_FUNDS"
	ErrAccountInactive   = "ACCOUNT_INACTIVE"
	ErrCustomerDeleted   = "CUSTOMER_DELETED"
	// ErrWalletSignatureRequired: money would leave an embedded wallet without the
	// customer's wallet signature.
	ErrWalletSignatureRequired = "WALLET_SIGNATURE_REQUIRED"
)
