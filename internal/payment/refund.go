package payment

import (
	"fmt"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/incoming"
	"paycore/internal/problem"
	"paycore/internal/rail"
	"paycore/internal/transfer"
)

// RefundReasonPlatform is the refund reason of a payment its platform sent back: the
// peer's enumeration names no other that fits a refund asked for after the payment
// completed.
const RefundReasonPlatform = "USER_CANCELLATION"

// Refundable is what the refund rule reads of a stored transaction.
type Refundable struct {
	Kind         string
	Type         catalog.TransactionType
	Status       catalog.TransactionStatus
	RefundStatus string
	// SourceKind is where the money came from (catalog.EndpointKind).
	SourceKind string
	// Counterpart is set for the receiving side of a payment between customers of this
	// deployment.
	Counterpart bool
}

// CheckRefund is the rule of a platform's refund of a stored transaction: only a
// COMPLETED incoming payment that came from outside this deployment (a transfer in from an
// external account, a UMA payment from another provider's address) and was never refunded
// can be sent back; anything else is refused with TRANSACTION_NOT_REFUNDABLE. Whether its
// rail can send it back, and whether the account still has the money, is decided later.
func CheckRefund(r Refundable) error {
	switch {
	case r.Type != catalog.Incoming || (r.Kind != string(transfer.In) && r.Kind != incoming.Kind):
		return NotRefundable("only incoming payments (transfers in, UMA payments received) can be refunded")
	case r.RefundStatus != "":
		return NotRefundable("it was refunded already (refund %s)", r.RefundStatus)
	case r.Status != catalog.TxCompleted:
		return NotRefundable("the transaction is %s; only a completed payment can be sent back", r.Status)
	case r.Counterpart:
		return NotRefundable("it was paid by a customer of this deployment; its platform can send a new payment back")
	case r.SourceKind != string(catalog.EndpointExternal) && r.SourceKind != string(catalog.EndpointUma):
		return NotRefundable("it did not come from an external account or a UMA address")
	}
	return nil
}

// NotRefundable is the refusal of a refund: TRANSACTION_NOT_REFUNDABLE (409) saying why.
func NotRefundable(format string, args ...any) error {
	return problem.Refuse(catalog.TransactionNotRefundable, "the transaction cannot be refunded: %s", fmt.Sprintf(format, args...))
}

// OpenRefund opens the platform's refund of a completed incoming payment r describes (the
// rule is CheckRefund): the amount it credited is held on its internal account, the
// refund is PENDING (reason RefundReasonPlatform), announced by
// INCOMING_PAYMENT_REFUND_PENDING, with request, the payment request the refund pays when
// its rail pays one ("" for none). The hold refuses an account without that much available
// (the ledger's refusal) and an embedded wallet (its money moves only with the customer's
// signature). ok is false, nothing to write, when the refund is pending already: only the
// refund's own workflow opens one, so an earlier attempt of the same step opened it.
func (s Snapshot) OpenRefund(r Refundable, request string) (p Plan, ok bool, err error) {
	if r.RefundStatus == RefundPending && r.Type == catalog.Incoming {
		return Plan{}, false, nil
	}
	if err := CheckRefund(r); err != nil {
		return Plan{}, false, err
	}
	if !s.Destination.Valid {
		return Plan{}, false, NotRefundable("it credited no internal account")
	}
	return Plan{Hold: &Hold{Account: s.Destination.UUID, Amount: s.Amount},
		Refunds: []RefundChange{{Open: RefundReasonPlatform, PaymentRequest: request, Webhook: events.IncomingPaymentRefundPending}}}, true, nil
}

// FinishRefund ends the pending refund of an incoming payment with its rail's outcome: a
// completed refund takes the held amount off the account to where the rail pays from
// (the money went back), the refund is COMPLETED and the transaction REFUNDED; any other
// outcome releases the hold (the money stays) and the refund is FAILED, the transaction
// still COMPLETED. ok is false when no refund is pending (an earlier run ended it).
//
// A payment a rail collected in another currency (s.Sent: satoshis paid to the
// deployment's invoice, credited in USD) goes back as it came: what was sent, in the
// currency it was sent in. The FX account buys the held amount back and pays what was
// sent to the rail's funds (the reverse of the conversion the receiver locked), and the
// network's fee for carrying it is the deployment's (RAIL_FEES).
func (s Snapshot) FinishRefund(out rail.Outcome) (p Plan, ok bool, err error) {
	if s.RefundStatus != RefundPending || !s.Destination.Valid {
		return Plan{}, false, nil
	}
	account := Internal(s.Destination.UUID)
	if out.Status != catalog.TxCompleted {
		return Plan{Legs: []Leg{{Currency: s.Currency, Moves: []Move{{Account: account, Held: -s.Amount}}}},
			Refunds: []RefundChange{{End: RefundFailed, Webhook: events.IncomingPaymentRefundFailed}}}, true, nil
	}
	to, err := catalog.TransactionChange(s.Status, catalog.TxEventRefund)
	if err != nil {
		return Plan{}, false, fmt.Errorf("refund %s: %w", s.ID, err)
	}
	return Plan{Legs: s.refunded(out), Status: &StatusChange{Event: catalog.TxEventRefund, To: to},
		Refunds: []RefundChange{{End: RefundCompleted, Webhook: events.IncomingPaymentRefundCompleted}}}, true, nil
}

// refunded is the legs of a completed refund (see FinishRefund): the reverse of the legs
// that credited the payment, and the network's fee.
func (s Snapshot) refunded(out rail.Outcome) []Leg {
	account := Internal(s.Destination.UUID)
	if s.Sent == nil {
		return []Leg{{Currency: s.Currency, Moves: []Move{{Account: account, Amount: -s.Amount, Held: -s.Amount},
			{Account: funds(out), Amount: s.Amount}}}}
	}
	sent := s.Sent.Amount
	if s.Sent.Currency != s.Currency {
		return append([]Leg{
			{Currency: s.Currency, Moves: []Move{{Account: account, Amount: -s.Amount, Held: -s.Amount}, {Account: System(FX), Amount: s.Amount}}},
			{Currency: s.Sent.Currency, Moves: []Move{{Account: System(FX), Amount: -sent}, {Account: funds(out), Amount: sent}}},
		}, railFee(s.Sent.Currency, out)...)
	}
	leg := Leg{Currency: s.Currency, Moves: []Move{{Account: account, Amount: -s.Amount, Held: -s.Amount}, {Account: funds(out), Amount: sent}}}
	if sent != s.Amount {
		leg.Moves = append(leg.Moves, Move{Account: System(FX), Amount: s.Amount - sent})
	}
	return append([]Leg{leg}, railFee(s.Currency, out)...)
}

// RefundUnaffordable is the refusal of a refund the receiving account cannot pay back:
// its available balance is below the amount to refund (INSUFFICIENT_FUNDS).
func RefundUnaffordable() error {
	return problem.Refuse(catalog.InsufficientFunds, "the account's available balance is below the amount to refund")
}
