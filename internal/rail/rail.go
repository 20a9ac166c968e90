// Package rail is the port every payment rail implements: a rail takes an instruction
// under an idempotency key, can be asked after a crash what became of it by that key,
// cancels where it allows, and declares what it serves. The sandbox is one adapter
// (internal/sandbox); which rail serves which payments is configuration (Registry).
//
// The package is pure: it names the vocabulary of the port (Instruction, Outcome,
// Capabilities) and routes payments to rails; adapters do the talking.
package rail

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
)

// Kind is the kind of destination (or, for a transfer in, source) a rail moves money to
// or from.
type Kind string

// Kinds of destination.
const (
	// ExternalAccount is a bank account or wallet the platform registered
	// (/customers/external-accounts).
	ExternalAccount Kind = "EXTERNAL_ACCOUNT"
	// UMA is a UMA address outside this deployment.
	UMA Kind = "UMA"
)

// Kinds are the destination kinds a route may name, in a stable order.
var Kinds = []Kind{ExternalAccount, UMA}

// Payment is what an instruction asks of the rail.
type Payment string

// Payments a rail is instructed to make.
const (
	TransferOut Payment = "TRANSFER_OUT" // pay a same-currency transfer out to an external account
	TransferIn  Payment = "TRANSFER_IN"  // pull a same-currency transfer in from an external account
	Payout      Payment = "PAYOUT"       // pay out an executed quote
	// Refund sends a completed incoming payment back to where it came from (the external
	// account of a transfer in, the sender's UMA address), at its platform's request.
	Refund Payment = "REFUND"
)

// Instruction is one payment handed to a rail.
type Instruction struct {
	// Key is the idempotency key: submitting the same key twice is one payment, and Track
	// finds it by this key (the transaction id).
	Key         string
	Payment     Payment
	Environment catalog.Environment
	// Platform is the paying platform, for the routes that name one (absent from
	// instructions recorded before it existed).
	Platform uuid.UUID `json:",omitzero"`
	Currency string
	Kind     Kind
	// AccountType is an external account's type (US_ACCOUNT, IBAN, LIGHTNING, ...); ""
	// for a UMA address, and in instructions recorded before it existed.
	AccountType string `json:",omitempty"`
	// Identifier is the destination's primary identifier (an account number, an IBAN, a
	// UMA address).
	Identifier string
	// Invoice, for a payment to a UMA address of another provider, is the payment request its
	// provider answered the pay request with (a BOLT11 invoice), which the rail pays; "" for
	// every other payment.
	Invoice string `json:",omitempty"`
	Amount  int64  // in the currency's minor unit
	// FeeLimit is the most the rail's network may charge on top of Amount (a Lightning
	// route's fees), in the currency's minor unit; 0: the rail's default.
	FeeLimit int64 `json:",omitempty"`
	// PaymentRail is the network a payment to a bank account travels on (ACH, WIRE, ...;
	// banking.PaymentRails), "" where none applies; RemittanceInformation and
	// PurposeOfPayment are what the platform asked to travel with it.
	PaymentRail           string `json:",omitempty"`
	RemittanceInformation string `json:",omitempty"`
	PurposeOfPayment      string `json:",omitempty"`
}

// Target is what routes a payment to a rail: its platform's environment, its currency,
// the kind of destination and, for an external account, its type ("" when not known,
// matched by the routes and rails that take any type; Any asks whether some type is
// served), and its platform (the zero id when not known: matched by the routes of every
// platform only).
type Target struct {
	Environment catalog.Environment
	Platform    uuid.UUID
	Currency    string
	Kind        Kind
	AccountType string
}

// Target is where in goes, for routing it.
func (in Instruction) Target() Target {
	return Target{Environment: in.Environment, Platform: in.Platform, Currency: in.Currency, Kind: in.Kind, AccountType: in.AccountType}
}

// Outcome is how a payment at its rail ends. Its JSON form is the one workflow histories
// recorded (it was sandbox.Outcome), field names included: keep them.
type Outcome struct {
	Status  catalog.TransactionStatus // COMPLETED or FAILED
	Code    catalog.Code              // failure code, "" on success
	Message string
	// Slow means the payment stays pending for the slow-scenario delay (about 30 s for a
	// transfer, about 6 minutes for a quote) before it ends.
	Slow bool
	// PendingReason, on a Slow outcome, is why the payment is pending meanwhile
	// (catalog.PendingReasons: compliance review, an action of the customer), shown as the
	// transaction's pendingReason until it ends; "" for none.
	PendingReason string `json:",omitempty"`
	// FailureReason is the failed transaction's failureReason, when one of the catalogue's
	// reasons says what happened.
	FailureReason string `json:",omitempty"`
	// Refund, set on a failed payment whose money had been taken, is why it is refunded
	// (the refund's reason).
	Refund string `json:",omitempty"`
	// PaidOut means the money had left for the counterparty before the payment failed.
	PaidOut bool `json:",omitempty"`
	// RefundFails means the refund fails as well.
	RefundFails bool `json:",omitempty"`
	// Returned means the payment completes first and the receiving bank returns it later.
	Returned bool `json:",omitempty"`
	// CounterpartStatus and CounterpartReason are how the receiving side's INCOMING
	// transaction ends when a payment between customers on this deployment fails (REJECTED
	// or FAILED, with its failureReason).
	CounterpartStatus catalog.TransactionStatus `json:",omitempty"`
	CounterpartReason string                    `json:",omitempty"`
	// FeeMsat is what the rail's network charged the deployment on top of the amount (a
	// Lightning route's fees), in millisatoshis; 0 where the rail charges nothing.
	FeeMsat int64 `json:",omitempty"`
	// Funds is the kind of system ledger account standing for where the rail holds the
	// money it pays out and receives (LIGHTNING: the deployment's node), which the ledger
	// reconciles with; "" is SETTLEMENT, the world outside.
	Funds string `json:",omitempty"`
	// Collected is what a collecting rail received for an incoming payment (Collector), in
	// the minor unit of the currency it was sent in; 0 for every other payment.
	Collected int64 `json:",omitempty"`
	// PaymentHash is the hex payment hash of a Lightning payment, the key operators find it
	// by (the PaymentHash search attribute).
	PaymentHash string `json:",omitempty"`
	// OnChain is the on-chain transaction that delivered a payout to a crypto wallet, when
	// the rail's network gives one; nil otherwise.
	OnChain *OnChain `json:",omitempty"`
}

// OnChain is an on-chain transaction: its hash on a crypto network (one of
// extaccount's wallet networks: ETHEREUM, SOLANA, BASE, ...).
type OnChain struct {
	TransactionHash string `json:"transactionHash"`
	Network         string `json:"network"`
}

// SatsUp is an amount of millisatoshis in whole satoshis, rounded up: how a network's
// fee in millisatoshis is charged and estimated in the ledger's unit.
func SatsUp(msat int64) int64 { return (msat + 999) / 1000 }

// Unavailable is how a payment ends when no rail serves it by the time it reaches its
// rail step: one created before the configuration changed, or recorded before payments
// were refused up front. It is FAILED with RAIL_UNAVAILABLE; nothing left.
func Unavailable() Outcome {
	return Outcome{Status: catalog.TxFailed, Code: catalog.FailRailUnavailable, Message: "no payment rail is connected for this payment"}
}

// Capabilities is what a rail declares it serves.
type Capabilities struct {
	// Environments are the platform environments the rail may serve (a simulated rail
	// never serves production).
	Environments []catalog.Environment
	// Currencies it moves; empty means any.
	Currencies []string
	// Kinds of destination it reaches.
	Kinds []Kind
	// AccountTypes are the external account types it pays; empty means any.
	AccountTypes []string
	// Cancellable is whether a submitted payment can be cancelled before it settles (some
	// of them: Cancel says which).
	Cancellable bool
	// Refunds is whether the rail can send a completed incoming payment back to where it
	// came from (an instruction of Payment Refund) without a new payment request from the
	// other side: a bank rail can; a Lightning rail cannot, and pays instead the invoice the
	// sender's provider answers a pay request with (Registry.RefundPayer).
	Refunds bool
	// Settlement is how long a payment typically takes to settle.
	Settlement time.Duration
}

// Serves reports whether a rail with these capabilities can serve payments to t ("*" in
// its currency or kind stands for every value, as does "" or "*" as its account type).
func (c Capabilities) Serves(t Target) bool {
	return contains(c.Environments, t.Environment) && (len(c.Currencies) == 0 || t.Currency == Any || contains(c.Currencies, t.Currency)) &&
		(t.Kind == Any || contains(c.Kinds, t.Kind)) &&
		(len(c.AccountTypes) == 0 || anyType(t.AccountType) || contains(c.AccountTypes, t.AccountType))
}

// anyType reports whether an account type stands for every type.
func anyType(accountType string) bool {
	return accountType == "" || accountType == Any
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Errors of a rail.
var (
	// ErrNotFound: the rail knows no payment under this key (Track); submit it again,
	// under the same key.
	ErrNotFound = errors.New("rail: no payment under this key")
	// ErrNotCancellable: the rail cannot cancel this payment (it never can, or it settled).
	ErrNotCancellable = errors.New("rail: the payment cannot be cancelled")
)

// Unpayable is a probe's finding that the destination cannot be paid (no route, an
// invalid invoice); Reason says why, for the caller.
type Unpayable struct{ Reason string }

func (e *Unpayable) Error() string { return "rail: the destination cannot be paid: " + e.Reason }

// FeeProber is implemented by rails that can find what paying a destination would cost
// without paying it (a Lightning route probe).
type FeeProber interface {
	// ProbeFee is the network fee paying in would cost now, in the currency's minor unit;
	// probed is false when the rail does not probe such a destination, and an error wrapping
	// *Unpayable says it cannot be paid.
	ProbeFee(ctx context.Context, in Instruction) (fee int64, probed bool, err error)
}

// FeeReserver is implemented by rails whose network charges a fee on top of the amount it
// carries (a Lightning route's fees). A quote paying out over such a rail reserves
// FeeReserve(amount) of the receiving currency for it, charged to the payer as the
// counterparty's fixed fee, and hands it to the rail as the instruction's FeeLimit: the
// network is never let charge more than the payer paid for it.
type FeeReserver interface {
	// FeeReserve is the network fee reserved for paying amount, in the currency's minor
	// unit; it never decreases as amount grows.
	FeeReserve(amount int64) int64
}

// Rail is a payment rail: the port every adapter implements.
type Rail interface {
	// Name is the rail's name in configuration (PAYCORE_RAILS) and in listings.
	Name() string
	// Capabilities is what the rail serves.
	Capabilities() Capabilities
	// Submit hands in over under its key and reports how the payment ends. Submitting a
	// key again is the same payment: it answers its outcome, never a second payment.
	Submit(ctx context.Context, in Instruction) (Outcome, error)
	// Track is how the payment submitted under key ended, after a crash between Submit and
	// recording its outcome; ErrNotFound when the rail has no payment under key.
	Track(ctx context.Context, key string) (Outcome, error)
	// Cancel cancels the payment in, submitted under its key, that has not settled: once it
	// answers nil the payment never settles (the caller then ends it FAILED, its money
	// released). ErrNotCancellable where the rail does not allow it (it never does, or the
	// payment is past its cancellation window).
	Cancel(ctx context.Context, in Instruction) error
}
