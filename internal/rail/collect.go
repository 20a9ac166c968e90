package rail

import (
	"context"
	"time"
)

// Collection asks a rail for a payment request a payer outside pays to the deployment:
// Amount of Currency's minor unit, committing to Description (a Lightning invoice's
// description hash), payable for Expiry.
type Collection struct {
	Currency    string
	Amount      int64
	Description string
	Expiry      time.Duration
}

// PaymentRequest is what the payer is given: the rail's request (a BOLT11 invoice), the
// key the rail finds it by (a payment hash, hex), and when it stops being payable.
type PaymentRequest struct {
	Request   string
	Hash      string
	ExpiresAt time.Time
}

// Collected is what became of a payment request: Paid with the Amount received (Funds is
// the system ledger account kind standing for where the rail holds it), or not (yet).
type Collected struct {
	Paid   bool
	Amount int64
	Funds  string
	// Payable reports that an unpaid request can still be paid (it has not expired).
	Payable bool
	// Channels are, for a paid request, the channels that carried the payment (UMA's
	// post-transaction callback reports them to the payer's provider).
	Channels []ChannelUse `json:",omitempty"`
}

// ChannelUse is what went through one channel: its funding outpoint ("txid:index") and
// the millisatoshis.
type ChannelUse struct {
	Outpoint   string
	AmountMsat int64
}

// Collector is implemented by rails that collect payments from payers outside by a payment
// request (the Lightning rail's invoices). Collect makes one; Collected asks what became of
// it by its hash. A request that expired unpaid can no longer be paid.
type Collector interface {
	Collect(ctx context.Context, c Collection) (PaymentRequest, error)
	Collected(ctx context.Context, hash string) (Collected, error)
}

// Collector is the collecting rail that serves payments to t (see For), false when that
// rail collects nothing or no rail serves t.
func (r *Registry) Collector(t Target) (Collector, bool) {
	return capability[Collector](r, t)
}

// Invoice is what a payment request (a BOLT11 invoice) asks: AmountMsat millisatoshis (0:
// the payer chooses) to the payment Hash (hex), payable until ExpiresAt.
type Invoice struct {
	Hash       string
	AmountMsat int64
	ExpiresAt  time.Time
}

// InvoicePayer is implemented by rails that pay the payment requests other providers
// answer (the Lightning rail pays a UMA receiver's invoice: an Instruction of Kind UMA with
// its Invoice). ReadInvoice says what a request asks before anything is paid; an error
// wrapping *Unpayable says the rail cannot pay it at all.
type InvoicePayer interface {
	ReadInvoice(ctx context.Context, request string) (Invoice, error)
}

// InvoicePayer is the rail that serves payments to t when it pays payment requests (see
// InvoicePayer), false otherwise.
func (r *Registry) InvoicePayer(t Target) (InvoicePayer, bool) {
	return capability[InvoicePayer](r, t)
}

// Carrier is implemented by rails that can tell which of the deployment's channels carried
// a completed payment, by its key at the rail (a Lightning payment's hash): UMA's
// post-transaction callback reports them to the receiver's provider.
type Carrier interface {
	Carried(ctx context.Context, hash string) ([]ChannelUse, error)
}

// Carrier is the rail that serves payments to t when it tells which channels carried them,
// false otherwise.
func (r *Registry) Carrier(t Target) (Carrier, bool) {
	return capability[Carrier](r, t)
}

// RefundPayer is the rail that carries a refund to t by paying a payment request: a refund
// to a UMA address through a rail that pays the invoices other providers answer (the
// Lightning rail), for which the sender's provider is asked for an invoice as for any
// payment to it. false when t's rail sends refunds back by itself (Refundable) or cannot
// carry them at all.
func (r *Registry) RefundPayer(t Target) (InvoicePayer, bool) {
	if t.Kind != UMA || r.Refundable(t) {
		return nil, false
	}
	return r.InvoicePayer(t)
}

// capability is the rail that serves payments to t when it implements T (one of the
// port's optional parts), false when it does not or no rail serves t.
func capability[T any](r *Registry, t Target) (T, bool) {
	rl, ok := r.For(t)
	if !ok {
		var none T
		return none, false
	}
	c, ok := rl.(T)
	return c, ok
}
