package payment

import (
	"fmt"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/quote"
	"paycore/internal/rail"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
	"paycore/internal/walletauth"
)

// MarkProcessing hands a PENDING payment to its rail: PROCESSING, announced for an outgoing
// payment (incoming ones have no such event). ok is false when the status table no longer
// allows it (an earlier run finished the payment).
func (s Snapshot) MarkProcessing() (p Plan, ok bool) {
	to, err := catalog.TransactionChange(s.Status, catalog.TxEventProcess)
	if err != nil {
		return Plan{}, false
	}
	c := &StatusChange{Event: catalog.TxEventProcess, To: to}
	if s.Type == catalog.Outgoing {
		c.Webhook = events.OutgoingPaymentProcessing
	}
	return Plan{Status: c}, true
}

// FinishTransfer ends a transfer, or a payment received over UMA, with out: COMPLETED
// captures an outgoing payment's hold into the settlement account or credits an incoming
// one's account from it; any other end releases an outgoing payment's hold (an incoming one
// holds nothing). ok is false when the payment ended already.
func (s Snapshot) FinishTransfer(out rail.Outcome) (p Plan, ok bool, err error) {
	end, ok, err := s.end(out)
	if err != nil || !ok {
		return Plan{}, ok, err
	}
	p = Plan{Status: end, OnChain: out.OnChain}
	completed := out.Status == catalog.TxCompleted
	switch {
	case completed && s.Type == catalog.Outgoing:
		p.Legs = append([]Leg{{Currency: s.Currency, Moves: []Move{{Account: Internal(s.Source.UUID), Amount: -s.Amount, Held: -s.Amount},
			{Account: funds(out), Amount: s.Amount}}}}, railFee(s.Currency, out)...)
	case completed:
		p.Legs = []Leg{{Currency: s.Currency, Moves: []Move{{Account: funds(out), Amount: -s.Amount},
			{Account: Internal(s.Destination.UUID), Amount: s.Amount}}}}
	case s.Type == catalog.Outgoing:
		p.Legs = []Leg{{Currency: s.Currency, Moves: []Move{{Account: Internal(s.Source.UUID), Held: -s.Amount}}}}
	}
	return p, true, nil
}

// FinishIncoming ends a payment received over UMA as its receiving platform decided (out),
// as FinishTransfer ends a transfer in, recording the receiver's details the platform gave
// with its approval (nil: none).
//
// A payment a rail collected (s.Sent: a UMA payment paid by an invoice of the deployment's
// node) takes what the rail received (out.Collected, at least what was asked) from the
// rail's funds; when it was sent in another currency, the FX account buys it and pays the
// amount received to the destination (the conversion the receiver locked), else the FX
// account keeps what was paid above the amount.
func (s Snapshot) FinishIncoming(out rail.Outcome, receiver map[string]string) (Plan, bool, error) {
	p, ok, err := s.FinishTransfer(out)
	if ok && s.Sent != nil && out.Status == catalog.TxCompleted {
		p.Legs = s.collected(out)
	}
	if ok && len(receiver) > 0 {
		p.ReceiverInfo = receiver
	}
	return p, ok, err
}

// collected is the legs of an incoming payment a rail collected (see FinishIncoming).
func (s Snapshot) collected(out rail.Outcome) []Leg {
	paid := max(out.Collected, s.Sent.Amount)
	dest := Internal(s.Destination.UUID)
	if s.Sent.Currency != s.Currency {
		return []Leg{
			{Currency: s.Sent.Currency, Moves: []Move{{Account: funds(out), Amount: -paid}, {Account: System(FX), Amount: paid}}},
			{Currency: s.Currency, Moves: []Move{{Account: System(FX), Amount: -s.Amount}, {Account: dest, Amount: s.Amount}}},
		}
	}
	leg := Leg{Currency: s.Currency, Moves: []Move{{Account: funds(out), Amount: -paid}, {Account: dest, Amount: s.Amount}}}
	if paid > s.Amount {
		leg.Moves = append(leg.Moves, Move{Account: System(FX), Amount: paid - s.Amount})
	}
	return []Leg{leg}
}

// CreditRefused decides again a finish (with out) the ledger refused because the account
// to credit was closed since (it refuses before anything is written): an incoming payment
// fails (ACCOUNT_CLOSED), crediting nothing, still recording the receiver's details (nil:
// none). The money a rail collected for it (s.Sent) cannot go back through the rail: it is
// held on the platform's UNAPPLIED account, for an operator to return. For an outgoing
// payment ok is false: the refusal stands.
func (s Snapshot) CreditRefused(out rail.Outcome, receiver map[string]string) (Plan, bool, error) {
	if s.Type != catalog.Incoming {
		return Plan{}, false, nil
	}
	p, ok, err := s.FinishIncoming(transfer.ClosedBeforeSettlement(), receiver)
	if ok && s.Sent != nil && out.Status == catalog.TxCompleted {
		paid := max(out.Collected, s.Sent.Amount)
		p.Legs = []Leg{{Currency: s.Sent.Currency, Moves: []Move{{Account: funds(out), Amount: -paid}, {Account: System(Unapplied), Amount: paid}}}}
	}
	return p, ok, err
}

// FinishQuote ends an executed quote's payment with its payout's outcome out. When the
// money left (the payout completed, or failed after the money had gone: out.PaidOut) the
// hold is converted (see convert); a failure before the money left releases the hold,
// unless out refunds it (the refund then releases it). Then the final status; the
// counterpart of a payment between customers on this deployment ends with it (COMPLETED, or
// as the receiving platform decided); a refunded failure opens its refund. ok is false
// when the payment ended already.
func (s Snapshot) FinishQuote(out rail.Outcome) (p Plan, ok bool, err error) {
	end, ok, err := s.end(out)
	if err != nil || !ok {
		return Plan{}, ok, err
	}
	p = Plan{Status: end, OnChain: out.OnChain}
	switch {
	case out.Status == catalog.TxCompleted || out.PaidOut:
		if p.Legs, err = s.convert(false, funds(out)); err != nil {
			return Plan{}, false, err
		}
		if c := s.Conversion; c != nil && !s.Destination.Valid {
			currency, _ := s.payout()
			p.Legs = append(p.Legs, railFee(currency, out)...)
		}
	case out.Refund == "":
		if p.Legs, err = s.release(); err != nil {
			return Plan{}, false, err
		}
	}
	if s.Counterpart.Valid {
		c := rail.Outcome{Status: catalog.TxCompleted}
		if out.Status != catalog.TxCompleted {
			c = rail.Outcome{Status: out.CounterpartStatus, Code: out.Code, Message: out.Message, FailureReason: out.CounterpartReason}
			if c.Status == "" {
				c.Status = catalog.TxFailed
			}
		}
		if p.Counterpart, err = endChange(catalog.Incoming, s.CounterpartStatus, c); err != nil {
			return Plan{}, false, fmt.Errorf("counterpart of %s: %w", s.ID, err)
		}
	}
	if out.Status != catalog.TxCompleted && out.Refund != "" {
		p.Refunds = []RefundChange{{Open: out.Refund, Webhook: events.OutgoingPaymentRefundPending}}
	}
	return p, true, nil
}

// Return fails a completed payment its receiving bank returned: FAILED with the return's
// cause, announced, and the refund opened (the refund step gives the money back). ok is
// false when it was returned already.
func (s Snapshot) Return(out rail.Outcome) (p Plan, ok bool, err error) {
	to, refused := catalog.TransactionChange(s.Status, catalog.TxEventReturn)
	if refused != nil {
		return Plan{}, false, nil
	}
	c, err := statusChange(s.Type, catalog.TxEventReturn, to, out)
	if err != nil {
		return Plan{}, false, fmt.Errorf("return %s: %w", s.ID, err)
	}
	return Plan{Status: c, Refunds: []RefundChange{{Open: out.Refund, Webhook: events.OutgoingPaymentRefundPending}}}, true, nil
}

// Refund ends a failed payment's pending refund. When it fails the refund is FAILED and the
// money stays where the payout left it. Otherwise the sender gets the sending amount back,
// fees included: money that had left (paidOut) by reversing the conversion, money still
// held by releasing the hold; the refund is COMPLETED. ok is false when no refund is
// pending.
func (s Snapshot) Refund(paidOut, fails bool) (p Plan, ok bool, err error) {
	if s.RefundStatus != RefundPending {
		return Plan{}, false, nil
	}
	if fails {
		return Plan{Refunds: []RefundChange{{End: RefundFailed, Webhook: events.OutgoingPaymentRefundFailed}}}, true, nil
	}
	p = Plan{Refunds: []RefundChange{{End: RefundCompleted, Webhook: events.OutgoingPaymentRefundCompleted}}}
	if paidOut {
		p.Legs, err = s.convert(true, System(Settlement))
	} else {
		p.Legs, err = s.release()
	}
	if err != nil {
		return Plan{}, false, err
	}
	return p, true, nil
}

// RefundRefused decides again a refund the ledger refused because the source was closed
// since: money that had been paid out cannot go back, so the refund fails and the money
// stays where the payout left it, for operators. A refund of held money (paidOut false)
// has no other decision: the refusal stands (ok false).
func (s Snapshot) RefundRefused(paidOut bool) (Plan, bool, error) {
	if !paidOut {
		return Plan{}, false, nil
	}
	return s.Refund(paidOut, true)
}

// ExecuteQuote is the execution the quote's state machine allowed (quote.StepHold): it
// records who executed it (key) and the executing agent, holds the sending total on the
// source account (an embedded wallet only with the customer's signed retry walletSignature,
// bound to the transaction) and moves the payment to PROCESSING.
func (s Snapshot) ExecuteQuote(key string, walletSignature, agentID ids.Optional) (Plan, error) {
	to, err := catalog.TransactionChange(s.Status, catalog.TxEventProcess)
	if err != nil {
		return Plan{}, err
	}
	return Plan{Quote: &QuoteChange{ExecuteKey: key}, Agent: agentID,
		Hold: &Hold{Account: s.Source.UUID, Amount: s.Amount, WalletSignature: walletSignature, SignatureKind: walletauth.KindExecuteQuote,
			Payment: true},
		Status: &StatusChange{Event: catalog.TxEventProcess, To: to, Webhook: events.OutgoingPaymentProcessing}}, nil
}

// DepositKey is the execution key of a quote executed by its deposit.
const DepositKey = "deposit"

// FundQuote takes in a deposit d (its amount, the key that identifies it, who sent it) for a
// quote funded by one, as
// the quote's state machine decided. On time (quote.StepHold) the money comes in from the
// payer outside to the DEPOSITS account, held for the payment, and the quote is executed
// (PROCESSING). Late (quote.StepSendBack) it comes in and goes straight back: the
// transaction (expired now if its timer has not fired yet) records the refund, TIMEOUT,
// opened and completed.
func (s Snapshot) FundQuote(d quote.Deposit, late bool) (Plan, error) {
	amount := d.Amount
	p := Plan{Quote: &QuoteChange{Deposit: true, DepositAmount: amount, DepositKey: d.Key, Originator: d.Originator, OnChain: d.OnChain}}
	if !late {
		to, err := catalog.TransactionChange(s.Status, catalog.TxEventProcess)
		if err != nil {
			return Plan{}, err
		}
		p.Quote.ExecuteKey = DepositKey
		p.Legs = []Leg{{Currency: s.Currency, Moves: []Move{{Account: System(SandboxFunding), Amount: -amount},
			{Account: System(Deposits), Amount: amount, Held: amount}}}}
		p.Status = &StatusChange{Event: catalog.TxEventProcess, To: to, Webhook: events.OutgoingPaymentProcessing}
		return p, nil
	}
	p.Legs = []Leg{{Currency: s.Currency, Moves: []Move{{Account: System(SandboxFunding), Amount: -amount}, {Account: System(Deposits), Amount: amount},
		{Account: System(Deposits), Amount: -amount}, {Account: System(SandboxFunding), Amount: amount}}}}
	p.Status, _ = s.Expire()
	p.Refunds = []RefundChange{{Open: sandbox.RefundTimeout, Webhook: events.OutgoingPaymentRefundPending},
		{End: RefundCompleted, Webhook: events.OutgoingPaymentRefundCompleted}}
	return p, nil
}

// Expire ends a quote nobody executed in time: EXPIRED with QUOTE_EXPIRED, announced. ok is
// false when the payment is no longer pending.
func (s Snapshot) Expire() (c *StatusChange, ok bool) {
	to, err := catalog.TransactionChange(s.Status, catalog.TxEventExpire)
	if err != nil {
		return nil, false
	}
	reason, detail := quote.ExpiryFailure()
	return &StatusChange{Event: catalog.TxEventExpire, To: to, FailureReason: reason, FailureDetail: detail, Webhook: events.OutgoingPaymentExpired}, true
}

// end is the status change that ends the payment with out, ok false when the status table
// no longer lets it end.
func (s Snapshot) end(out rail.Outcome) (*StatusChange, bool, error) {
	event, known := catalog.TransactionEndEvent(out.Status)
	if !known {
		return nil, false, fmt.Errorf("finish transaction %s: %s ends no payment", s.ID, out.Status)
	}
	if _, refused := catalog.TransactionChange(s.Status, event); refused != nil {
		return nil, false, nil // ended already
	}
	c, err := endChange(s.Type, s.Status, out)
	if err != nil {
		return nil, false, fmt.Errorf("finish transaction %s: %w", s.ID, err)
	}
	return c, true, nil
}

// endChange is the status change that ends a payment of type typ, now in status from, with
// out, or the table's refusal.
func endChange(typ catalog.TransactionType, from catalog.TransactionStatus, out rail.Outcome) (*StatusChange, error) {
	event, known := catalog.TransactionEndEvent(out.Status)
	if !known {
		return nil, fmt.Errorf("%s ends no payment", out.Status)
	}
	to, err := catalog.TransactionChange(from, event)
	if err != nil {
		return nil, err
	}
	return statusChange(typ, event, to, out)
}

// statusChange is event moving a payment of type typ to to, as out ended it: settledAt when
// it completed, the failure's reason (catalog.FailureReason: the granular reason its code
// names, or the one out gives) and details ("<code>: <message>") otherwise, and the
// payment's final event.
func statusChange(typ catalog.TransactionType, event catalog.TransactionEvent, to catalog.TransactionStatus, out rail.Outcome) (*StatusChange, error) {
	if to != out.Status {
		return nil, fmt.Errorf("%s ends it %s, not %s", event, to, out.Status)
	}
	c := &StatusChange{Event: event, To: to, Webhook: finishEvent(typ, to)}
	if to == catalog.TxCompleted {
		c.Settled = true
	} else {
		c.FailureDetail, c.FailureReason = string(out.Code)+": "+out.Message, catalog.FailureReason(typ, out.Code, out.FailureReason)
	}
	return c, nil
}

// finishEvent is the event of a payment of type typ that ended in status.
func finishEvent(typ catalog.TransactionType, status catalog.TransactionStatus) string {
	switch {
	case typ == catalog.Outgoing && status == catalog.TxCompleted:
		return events.OutgoingPaymentCompleted
	case typ == catalog.Outgoing:
		return events.OutgoingPaymentFailed
	case status == catalog.TxCompleted:
		return events.IncomingPaymentCompleted
	}
	return events.IncomingPaymentFailed
}

// holdAccount is where the payment holds its money: the source internal account (the
// sending total), or for a deposit the DEPOSITS account (the amount deposited).
func (s Snapshot) holdAccount() (Account, int64, error) {
	if s.Deposit == nil {
		return Internal(s.Source.UUID), s.Amount, nil
	}
	if !s.Deposit.Received {
		return Account{}, 0, fmt.Errorf("payment %s: no deposit to settle", s.ID)
	}
	return System(Deposits), s.Deposit.Amount, nil
}

// release gives back what an outgoing payment holds: to its source account's available
// balance, or a deposit to the payer outside.
func (s Snapshot) release() ([]Leg, error) {
	acc, amount, err := s.holdAccount()
	if err != nil {
		return nil, err
	}
	if acc.IsInternal() {
		return []Leg{{Currency: s.Currency, Moves: []Move{{Account: acc, Held: -amount}}}}, nil
	}
	return []Leg{{Currency: s.Currency, Moves: []Move{{Account: acc, Amount: -amount, Held: -amount}, {Account: System(SandboxFunding), Amount: amount}}}}, nil
}

// payout is what a quote's conversion pays out: what its payout sent over its rail, for a
// payment whose receiver got it in another currency (s.Sent: a UMA receiver elsewhere,
// paid in satoshis it converted), else the receiving amount.
func (s Snapshot) payout() (currency string, amount int64) {
	if s.Type == catalog.Outgoing && s.Sent != nil {
		return s.Sent.Currency, s.Sent.Amount
	}
	return s.Conversion.ReceivingCurrency, s.Conversion.ReceivingAmount
}

// convert is a quote's conversion, or its exact reverse, in both currencies at once: the
// sending total leaves the hold, its net part for the FX account and its fees for the fees
// account of the sending currency, and the FX account of the receiving currency pays the
// receiving amount to the destination (an internal account, or outside the account
// standing for where the rail paid it from: out) and the network fee the quote reserved to
// RAIL_FEES, which pays the network's actual fee (railFee). The platform's share of the fees
// (PlatformFees) goes to its own internal account. The reverse gives a deposit back to the
// payer outside, and takes the platform's fee back from its account as far as it has it
// available (PlatformAvailable), the fees account advancing the rest.
func (s Snapshot) convert(reverse bool, out Account) ([]Leg, error) {
	c := s.Conversion
	if c == nil {
		return nil, fmt.Errorf("transaction %s is not a conversion", s.ID)
	}
	source, _, err := s.holdAccount()
	if err != nil {
		return nil, err
	}
	dest := out
	if s.Destination.Valid {
		dest = Internal(s.Destination.UUID)
	}
	total := s.Amount
	currency, amount := s.payout()
	legs := []Leg{
		{Currency: s.Currency, Moves: []Move{{Account: source, Amount: -total, Held: -total}, {Account: System(FX), Amount: total - c.Fees}, {Account: System(Fees), Amount: c.Fees - c.PlatformFees}}},
		{Currency: currency, Moves: []Move{{Account: System(FX), Amount: -amount - c.NetworkFee}, {Account: dest, Amount: amount}}},
	}
	if c.PlatformFees > 0 {
		legs[0].Moves = append(legs[0].Moves, Move{Account: Internal(c.PlatformAccount), Amount: c.PlatformFees})
	}
	if c.NetworkFee > 0 {
		legs[1].Moves = append(legs[1].Moves, Move{Account: System(RailFees), Amount: c.NetworkFee})
	}
	if !reverse {
		return legs, nil
	}
	for i := range legs {
		for j := range legs[i].Moves {
			legs[i].Moves[j].Amount, legs[i].Moves[j].Held = -legs[i].Moves[j].Amount, 0
		}
	}
	if !source.IsInternal() {
		legs[0].Moves[0].Account = System(SandboxFunding) // a deposit goes back to the payer outside
	}
	if c.PlatformFees > 0 {
		// The platform gives back what it still has of its fee; the deployment's fees
		// account advances the rest (recovered from the platform outside the ledger).
		back := min(c.PlatformFees, max(c.PlatformAvailable, 0))
		legs[0].Moves[2].Amount -= c.PlatformFees - back
		legs[0].Moves[3].Amount = -back
		if back == 0 {
			legs[0].Moves = legs[0].Moves[:3]
		}
	}
	return legs, nil
}
