// Package payment decides what a change to a created payment does: the ledger moves, the
// transaction's status change, its refund, the quote it belongs to and the webhook events
// that announce them. Each decision is pure: it reads a Snapshot, taken by package db under
// the payment's locks, and returns a Plan, which db applies in one place (applyPlan). The
// rules of when a change is allowed stay with their aggregates (quote.State, the status
// table in catalog); this package turns an allowed change into its effects.
package payment

import (
	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/quote"
	"paycore/internal/rail"
)

// Kinds of a platform's system ledger accounts, one of each per currency, that plans name
// by their role.
const (
	// Settlement stands for the world outside: money paid out to, or received from, a
	// rail.
	Settlement = "SETTLEMENT"
	// SandboxFunding is where the sandbox's simulated money comes from and goes back to.
	SandboxFunding = "SANDBOX_FUNDING"
	// FX holds the service's position in a currency: what conversions took in it minus
	// what they paid out of it.
	FX = "FX"
	// Fees collects the fees charged on conversions.
	Fees = "FEES"
	// Deposits holds the deposits that fund quotes until their payment ends.
	Deposits = "DEPOSITS"
	// Lightning stands for the deployment's Lightning node: what the Lightning rail paid
	// out of it (fees included) less what it received into it.
	Lightning = "LIGHTNING"
	// RailFees is what the deployment paid rails' networks to carry its payments (a
	// Lightning route's fees) less what quotes reserved for those fees and charged their
	// payers (Conversion.NetworkFee): negative where the deployment bore a fee itself.
	RailFees = "RAIL_FEES"
	// Unapplied holds money a rail received for an internal account that could no longer
	// take it (closed since), until an operator returns it.
	Unapplied = "UNAPPLIED"
)

// funds is the system account standing for where the rail that ended a payment with out
// holds its money: the rail's own (Outcome.Funds) or the settlement account.
func funds(out rail.Outcome) Account {
	if out.Funds != "" {
		return System(out.Funds)
	}
	return System(Settlement)
}

// railFee is the leg of the fee a rail's network charged for a payment in currency, whole
// units rounded up (a satoshi for a part of one): it left the rail's funds and is the
// deployment's cost. None when the rail charged nothing.
func railFee(currency string, out rail.Outcome) []Leg {
	if out.FeeMsat <= 0 {
		return nil
	}
	fee := rail.SatsUp(out.FeeMsat)
	return []Leg{{Currency: currency, Moves: []Move{{Account: funds(out), Amount: fee}, {Account: System(RailFees), Amount: -fee}}}}
}

// Account is a ledger account a plan moves money on: an internal account (its id), or the
// payment's platform's system account of a kind in the leg's currency.
type Account struct {
	ID     uuid.UUID
	System string
}

// Internal is the internal account id.
func Internal(id uuid.UUID) Account { return Account{ID: id} }

// System is the platform's system account of kind.
func System(kind string) Account { return Account{System: kind} }

// IsInternal reports whether a is an internal account, whose balance changes are announced
// with INTERNAL_ACCOUNT_BALANCE_UPDATED.
func (a Account) IsInternal() bool { return a.System == "" }

// Move changes one ledger account: Amount is posted (a ledger entry; the Amounts of one leg
// sum to zero) and Held changes the reserved part of its balance.
type Move struct {
	Account Account
	Amount  int64
	Held    int64
}

// Leg is one currency's moves.
type Leg struct {
	Currency string
	Moves    []Move
}

// Hold reserves Amount of an internal account's available balance for the payment; money
// leaving an embedded wallet needs the customer's signed retry (WalletSignature, of
// SignatureKind), which the hold binds to the transaction first.
type Hold struct {
	Account         uuid.UUID
	Amount          int64
	WalletSignature ids.Optional
	SignatureKind   string
	// Payment is set for a payment the platform sends (not a refund of money it received):
	// it counts towards the deployment's payment limits (paylimits).
	Payment bool
}

// StatusChange is the transaction's status change: Event, which the status table moves the
// transaction on to To, with settledAt (Settled) or the failure's reason and details, and
// the webhook event (Webhook) that announces the transaction afterwards ("" none).
type StatusChange struct {
	Event         catalog.TransactionEvent
	To            catalog.TransactionStatus
	Settled       bool
	FailureReason string
	FailureDetail string
	Webhook       string
}

// RefundChange opens a failed payment's refund (Open, its reason) or ends it (End, its
// status), with the webhook event that announces the transaction afterwards.
type RefundChange struct {
	Open string
	// PaymentRequest, with Open, is the payment request the refund pays when its rail pays
	// one (an invoice of the sender's provider), "" for none.
	PaymentRequest string
	End            string
	Webhook        string
}

// QuoteChange is what a plan records on the payment's quote: who executed it (ExecuteKey)
// and the deposit that funded it.
type QuoteChange struct {
	ExecuteKey    string
	Deposit       bool
	DepositAmount int64
	DepositKey    string
	// Originator is who sent the deposit, recorded on the transaction (nil: unknown);
	// OnChain the on-chain transaction of a crypto deposit (nil: none).
	Originator *quote.Originator
	OnChain    *rail.OnChain
}

// Plan is what one change of a payment does, applied in this order in one database
// transaction: the quote's record, the executing agent, the receiver's details, the hold,
// the ledger legs (all at once), the status change, the counterpart's end, the refund
// changes. Every internal account the hold or the legs touch is announced once with its
// balance afterwards.
type Plan struct {
	Quote *QuoteChange
	Agent ids.Optional
	// ReceiverInfo is what the receiving platform gave of its customer when it approved an
	// incoming payment (nil: nothing to record).
	ReceiverInfo map[string]string
	Hold         *Hold
	Legs         []Leg
	Status       *StatusChange
	Counterpart  *StatusChange
	Refunds      []RefundChange
	// OnChain is the on-chain transaction that delivered the payment, as its rail reported
	// it (nil: none), recorded before the status change.
	OnChain *rail.OnChain
}

// Refund statuses (refundStatus).
const (
	RefundPending   = "PENDING"
	RefundCompleted = "COMPLETED"
	RefundFailed    = "FAILED"
)

// Snapshot is what a decision reads of a payment, taken under its locks.
type Snapshot struct {
	ID       uuid.UUID
	Type     catalog.TransactionType
	Status   catalog.TransactionStatus
	Currency string
	// Amount is what the payment moves in Currency (a quote: its sending total, fees
	// included).
	Amount int64
	// Source is the internal account the money leaves (an outgoing payment from an
	// account); Destination the internal account it credits, here or on another platform
	// (incoming payments, quotes to an internal account or between customers).
	Source      uuid.NullUUID
	Destination uuid.NullUUID
	// Conversion is a quote's other side: what the destination receives, and the fees.
	Conversion *Conversion
	// Deposit is set for a quote funded by a deposit: what was deposited (held on the
	// DEPOSITS account) once it was.
	Deposit *Deposit
	// RefundStatus is the refund's status, "" when none was opened.
	RefundStatus string
	// Counterpart is the receiving side's transaction of a payment between customers on
	// this deployment.
	Counterpart uuid.NullUUID
	// CounterpartStatus is its status, when there is one.
	CounterpartStatus catalog.TransactionStatus
	// Sent is what the payer of an incoming payment sent, in the currency it was sent in,
	// when a rail collected it in another one than the payment's (a UMA payment received
	// in USD, collected in satoshis by an invoice); for an outgoing one, what its payout
	// sent over its rail when the receiver got it converted by another provider (satoshis
	// paying a UMA receiver elsewhere in MXN); nil otherwise.
	Sent *Sent
}

// Sent is what the payer sent to a collecting rail: Amount of Currency's minor unit.
type Sent struct {
	Currency string
	Amount   int64
}

// Conversion is what a quote's destination receives, in ReceivingCurrency, the fees it
// charges in the sending currency, and the network fee it reserved for its payout in the
// receiving currency (bought beside the receiving amount, for the rail's network).
type Conversion struct {
	ReceivingCurrency string
	ReceivingAmount   int64
	Fees              int64
	NetworkFee        int64
	// PlatformFees is the platform's share of Fees, paid to its own internal account
	// PlatformAccount. PlatformAvailable is that account's available balance, read for a
	// reversal only: the platform gives back what it has of its fee, the deployment's FEES
	// account the rest.
	PlatformFees      int64
	PlatformAccount   uuid.UUID
	PlatformAvailable int64
}

// Deposit is the deposit of a quote funded by one: Received once it came, with its
// Amount.
type Deposit struct {
	Received bool
	Amount   int64
}
