package incoming

import (
	"time"

	"paycore/internal/catalog"
	"paycore/internal/rail"
)

// Collection is how the money of a payment from another UMA provider is collected once its
// receiving platform approved it: by a payment request of the rail serving the platform's
// BTC payments (an invoice of the deployment's node) for Sats, committing to Description
// (the pay request's LNURL metadata), payable for Expiry. Multiplier is the conversion the
// receiver locked (millisatoshis per smallest unit of the payment's currency).
type Collection struct {
	Environment catalog.Environment
	Sats        int64
	Multiplier  float64
	Description string
	Expiry      time.Duration
	// Domain is the receiving platform's UMA domain; SenderCallback the URL the sender's
	// provider asked to be told, once paid, which channels carried the payment (UMAD-07;
	// "" none).
	Domain         string `json:",omitempty"`
	SenderCallback string `json:",omitempty"`
}

// CollectGrace is how long after its payment request expired a payment's collection is
// judged: a payment the rail took just before the expiry has settled by then.
const CollectGrace = 30 * time.Second

// Collects reports whether the payment r, decided d, now collects its money: an approved
// payment from another provider.
func Collects(r Request, d Decision) bool { return r.Collect != nil && d.Approved }

// Collected is the decision of a payment whose collection ended as c: approved d, with the
// rail's funds and what it received, when the payer paid; FAILED with QUOTE_EXPIRED (the
// locked conversion lapsed unpaid) when the request can no longer be paid; ok false while
// it still can (not final: ask again later).
func Collected(d Decision, c rail.Collected) (out Decision, ok bool) {
	switch {
	case c.Paid:
		d.Funds, d.Collected = c.Funds, c.Amount
		return d, true
	case c.Payable:
		return d, false
	}
	return Unpaid(), true
}

// Unpaid is how a payment ends whose payer did not pay the payment request in time.
func Unpaid() Decision {
	return Decision{Status: catalog.TxFailed, Reason: string(catalog.FailQuoteExpired), Code: catalog.FailQuoteExpired,
		Message: "the payer did not pay the invoice before it expired"}
}

// NotCollectable is how a payment ends whose rail could not make its payment request.
func NotCollectable(cause string) Decision {
	return Decision{Status: catalog.TxFailed, Reason: ReasonPayRequestFail, Code: catalog.FailRailUnavailable,
		Message: "no invoice could be made for the payment: " + cause}
}

// Collecting is what a payment from another UMA provider answers its pay request with, once
// approved: the payment request its payer pays, and what the receiving platform's approval
// (Receiver) and the service (Known) say of the payee.
type Collecting struct {
	Request  rail.PaymentRequest
	Receiver map[string]string `json:",omitempty"`
	Known    map[string]string `json:",omitempty"`
}

// Payee is what is said of the payee: the platform's approval over what the service knows.
func (c Collecting) Payee() map[string]string {
	out := map[string]string{}
	for k, v := range c.Known {
		out[k] = v
	}
	for k, v := range c.Receiver {
		out[k] = v
	}
	return out
}
