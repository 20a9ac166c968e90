// Package lightning holds the rules of paying and being paid over Lightning, whatever node
// does the talking: whether a decoded invoice may be paid for an instruction's amount, the
// fee a payment may spend on its route, and how a payment's end at the node becomes the
// rail's outcome (internal/rail). It is pure: the adapter in internal/infra/lightningrail
// asks the node and applies these rules.
package lightning

import (
	"fmt"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/payment"
	"paycore/internal/rail"
)

// Invoice is what a decoded BOLT11 invoice says that matters to paying it.
type Invoice struct {
	Hash        string // hex payment hash
	Destination string // the payee node's public key (hex)
	AmountMsat  int64  // 0: the payer chooses the amount
	Created     time.Time
	Expiry      time.Duration
	// DescriptionHash is the hex SHA-256 the invoice commits to instead of a description
	// ("" when it has a description).
	DescriptionHash string
}

// Expires is when the invoice can no longer be paid.
func (inv Invoice) Expires() time.Time { return inv.Created.Add(inv.Expiry) }

// Refusal is why an invoice is not paid: a failed outcome, with nothing sent.
func Refusal(code catalog.Code, message string) rail.Outcome {
	return rail.Outcome{Status: catalog.TxFailed, Code: code, Message: message, FailureReason: string(catalog.FailLightning)}
}

// A sandbox platform's money is simulated: it may be paid out over a test network (a
// platform opted in to the Lightning rail), never from a node moving real bitcoin.

// AsksNetwork reports whether paying for a platform of env needs to know the node's
// network (SimulatedOnMainnet): only sandbox payments do.
func AsksNetwork(env catalog.Environment) bool { return env == catalog.Sandbox }

// SimulatedOnMainnet is how a payment for a platform of env ends before anything is sent
// when the node is on Bitcoin's main network (mainnet): a sandbox payment fails
// RAIL_UNAVAILABLE; ok is false when the payment may be paid.
func SimulatedOnMainnet(env catalog.Environment, mainnet bool) (rail.Outcome, bool) {
	if env != catalog.Sandbox || !mainnet {
		return rail.Outcome{}, false
	}
	return rail.Outcome{Status: catalog.TxFailed, Code: catalog.FailRailUnavailable, FailureReason: string(catalog.FailLightning),
		Message: "a sandbox payment is never paid from a node on Bitcoin's main network"}, true
}

// Invalid is the outcome of an invoice the node could not decode.
func Invalid(why string) rail.Outcome {
	return Refusal(catalog.FailInvoiceInvalid, "the Lightning invoice is not valid: "+why)
}

// Check says whether inv may be paid for sats at now: the zero outcome and true when it
// may; else the failed outcome. An invoice names its amount in millisatoshis; it must be
// exactly the instruction's (an invoice without an amount is paid the instruction's), and
// it must not have expired — nor expire within margin, the time a payment needs.
func Check(inv Invoice, sats int64, now time.Time, margin time.Duration) (rail.Outcome, bool) {
	switch {
	case sats <= 0:
		return Refusal(catalog.FailInvoiceAmount, "the payment's amount is not positive"), false
	case inv.AmountMsat != 0 && inv.AmountMsat != sats*1000:
		return Refusal(catalog.FailInvoiceAmount, fmt.Sprintf("the invoice asks for %s sat, the payment is %d sat",
			msatString(inv.AmountMsat), sats)), false
	case !now.Add(margin).Before(inv.Expires()):
		return Refusal(catalog.FailInvoiceExpired, "the Lightning invoice expired at "+inv.Expires().UTC().Format(time.RFC3339)), false
	}
	return rail.Outcome{}, true
}

// ForUma is how a payment to another UMA provider's receiver ends whose invoice was refused
// before anything was sent (out, a Refusal): its pay request's answer could not be paid,
// failure reason PAY_REQUEST_FAILED; any other outcome is out.
func ForUma(out rail.Outcome) rail.Outcome {
	if out.Status == catalog.TxFailed && out.FailureReason == string(catalog.FailLightning) {
		switch catalog.Code(out.Code) {
		case catalog.FailInvoiceInvalid, catalog.FailInvoiceExpired, catalog.FailInvoiceAmount:
			out.FailureReason = string(catalog.FailPayRequest)
		}
	}
	return out
}

// CheckUma is Check for the invoice a UMA receiver's provider answered: it must name an
// amount, which the payment's whole satoshis cover to the satoshi (the receiver's
// conversion may ask for a part of one; the ledger counts it whole).
func CheckUma(inv Invoice, sats int64, now time.Time, margin time.Duration) (rail.Outcome, bool) {
	if inv.AmountMsat <= 0 || rail.SatsUp(inv.AmountMsat) != sats {
		return Refusal(catalog.FailInvoiceAmount, fmt.Sprintf("the invoice asks for %s sat, the payment is %d sat",
			msatString(inv.AmountMsat), sats)), false
	}
	inv.AmountMsat = 0
	return Check(inv, sats, now, margin)
}

// msatString writes millisatoshis as satoshis, with the fraction when there is one.
func msatString(msat int64) string {
	if msat%1000 == 0 {
		return fmt.Sprint(msat / 1000)
	}
	return fmt.Sprintf("%d.%03d", msat/1000, msat%1000)
}

// FeeLimit is the most a payment of sats may spend on routing fees: what the quote set
// aside for the network's fee when it names one (quoted > 0), else 1% of the amount, and
// never less than MinFeeLimit, so that small payments still find a route.
func FeeLimit(sats, quoted int64) int64 {
	limit := quoted
	if limit <= 0 {
		limit = sats / 100
	}
	return max(limit, MinFeeLimit)
}

// MinFeeLimit is the least fee limit a payment gets, in satoshis.
const MinFeeLimit = 10

// Cause is why the network did not deliver a payment, as the node reports it.
type Cause int

// Causes of a failed payment (LND's payment failure reasons).
const (
	CauseUnknown           Cause = iota // the node failed it without a reason
	CauseTimeout                        // no route succeeded before the payment's timeout
	CauseNoRoute                        // no route with enough capacity and a fee within the limit
	CauseError                          // a non-recoverable error on the way
	CauseIncorrectDetails               // the recipient refused it (unknown hash, wrong amount, expired)
	CauseInsufficientFunds              // the node's own channels cannot carry the amount
	CauseCanceled                       // the payment was cancelled
)

// Settled is the outcome of a payment the recipient settled, whose route cost feeMsat: the
// money left the deployment's node (the LIGHTNING ledger account).
func Settled(feeMsat int64) rail.Outcome {
	return rail.Outcome{Status: catalog.TxCompleted, FeeMsat: feeMsat, Funds: payment.Lightning}
}

// Failed is the outcome of a payment the network did not deliver: nothing left the node
// (a failed Lightning payment has no HTLC left in flight), so the hold is released.
func Failed(cause Cause) rail.Outcome {
	code, message := catalog.FailLightning, "the Lightning payment failed"
	switch cause {
	case CauseTimeout:
		code, message = catalog.FailTimedOut, "no route delivered the Lightning payment before its timeout"
	case CauseNoRoute:
		code, message = catalog.FailNoRoute, "no route to the recipient with enough capacity within the fee limit"
	case CauseIncorrectDetails:
		code, message = catalog.FailRecipientRefused, "the recipient refused the payment (unknown or already paid invoice, wrong amount or expired)"
	case CauseInsufficientFunds:
		code, message = catalog.FailInsufficientLiquidity, "the node's channels have too little outbound liquidity for the payment"
	case CauseCanceled:
		message = "the Lightning payment was cancelled"
	case CauseError:
		message = "the Lightning payment failed on its way (an error no retry overcomes)"
	}
	return rail.Outcome{Status: catalog.TxFailed, Code: code, Message: message, FailureReason: string(catalog.FailLightning)}
}
