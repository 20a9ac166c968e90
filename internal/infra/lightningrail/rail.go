// Package lightningrail is the Lightning rail, an adapter of the rail port
// (internal/rail): it pays the BOLT11 invoices of LIGHTNING external accounts through the
// deployment's LND node (internal/infra/lnd), by the rules of internal/lightning.
//
// Sending is idempotent by payment hash: the node never pays one hash twice, so
// submitting an instruction again (a retried activity, a restarted worker, a restarted
// node) finds the payment the node already has and waits for its end instead of paying.
package lightningrail

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/lnd/lndrpc"
	"paycore/internal/lightning"
	"paycore/internal/rail"
)

// Name is the Lightning rail's name in PAYCORE_RAILS.
const Name = "lightning"

// Options tune the rail.
type Options struct {
	// Environments it may serve (default: production only; a sandbox platform's payments
	// reach it only where a route names it).
	Environments []catalog.Environment
	// Timeout is how long the node keeps looking for a route for one payment (default 60 s).
	Timeout time.Duration
	// Now is the clock invoices' expiry is judged by (default time.Now).
	Now func() time.Time
}

// Rail is the Lightning rail over one LND node.
type Rail struct {
	node *lnd.Client
	opts Options
}

// New is the rail paying through node.
func New(node *lnd.Client, opts Options) *Rail {
	if len(opts.Environments) == 0 {
		opts.Environments = []catalog.Environment{catalog.Production}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Rail{node: node, opts: opts}
}

// Name is "lightning".
func (*Rail) Name() string { return Name }

// Capabilities: BTC to LIGHTNING external accounts; a payment cannot be cancelled once
// sent; it settles in seconds.
func (r *Rail) Capabilities() rail.Capabilities {
	return rail.Capabilities{Environments: r.opts.Environments, Currencies: []string{"BTC"},
		Kinds: []rail.Kind{rail.ExternalAccount}, AccountTypes: []string{"LIGHTNING"}, Settlement: 10 * time.Second}
}

// Submit pays the instruction's invoice (its identifier) and reports how the payment
// ended. An invoice that cannot be paid for the amount (malformed, another amount,
// expired) fails before anything is sent. Submitting again finds the node's payment for
// the invoice's hash and reports its end: never a second payment.
func (r *Rail) Submit(ctx context.Context, in rail.Instruction) (rail.Outcome, error) {
	if in.Currency != "BTC" || in.Kind != rail.ExternalAccount {
		return rail.Outcome{}, fmt.Errorf("lightning: cannot pay %s to a %s", in.Currency, in.Kind)
	}
	invoice := strings.TrimSpace(in.Identifier)
	if strings.Contains(invoice, "@") {
		return lightning.Refusal(catalog.FailInvoiceInvalid, "paying a Lightning address needs its invoice resolved first"), nil
	}
	inv, err := r.decode(ctx, invoice)
	if errors.Is(err, lnd.ErrInvalid) {
		return lightning.Invalid(err.Error()), nil
	}
	if err != nil {
		return rail.Outcome{}, err
	}
	hash, err := hex.DecodeString(inv.Hash)
	if err != nil {
		return rail.Outcome{}, fmt.Errorf("lightning: the node decoded a payment hash %q: %w", inv.Hash, err)
	}
	// A payment the node already has (sent before a crash) ends as it ends, whatever the
	// invoice's expiry says now.
	switch p, err := r.node.Track(ctx, hash); {
	case err == nil:
		return outcome(p), nil
	case !errors.Is(err, lnd.ErrNotFound):
		return rail.Outcome{}, err
	}
	if out, ok := lightning.Check(inv, in.Amount, r.opts.Now(), r.opts.Timeout); !ok {
		return out, nil
	}
	amount := int64(0)
	if inv.AmountMsat == 0 {
		amount = in.Amount
	}
	p, err := r.node.Pay(ctx, lnd.Payment{Invoice: invoice, Sats: amount,
		FeeLimitSats: lightning.FeeLimit(in.Amount, in.FeeLimit), Timeout: r.opts.Timeout})
	if errors.Is(err, lnd.ErrPaymentExists) {
		p, err = r.node.Track(ctx, hash)
	}
	if err != nil {
		return rail.Outcome{}, err
	}
	return outcome(p), nil
}

// decode asks the node what the invoice says.
func (r *Rail) decode(ctx context.Context, invoice string) (lightning.Invoice, error) {
	req, err := r.node.Decode(ctx, invoice)
	if err != nil {
		return lightning.Invoice{}, err
	}
	return lightning.Invoice{Hash: req.PaymentHash, Destination: req.Destination, AmountMsat: req.NumMsat,
		Created: time.Unix(req.Timestamp, 0), Expiry: time.Duration(req.Expiry) * time.Second}, nil
}

// outcome is the rail's outcome of a final payment.
func outcome(p *lndrpc.Payment) rail.Outcome {
	if p.Status == lndrpc.Payment_SUCCEEDED {
		return lightning.Settled(p.FeeMsat)
	}
	return lightning.Failed(cause(p.FailureReason))
}

// cause is the domain's cause of LND's failure reason.
func cause(r lndrpc.PaymentFailureReason) lightning.Cause {
	switch r {
	case lndrpc.PaymentFailureReason_FAILURE_REASON_TIMEOUT:
		return lightning.CauseTimeout
	case lndrpc.PaymentFailureReason_FAILURE_REASON_NO_ROUTE:
		return lightning.CauseNoRoute
	case lndrpc.PaymentFailureReason_FAILURE_REASON_ERROR:
		return lightning.CauseError
	case lndrpc.PaymentFailureReason_FAILURE_REASON_INCORRECT_PAYMENT_DETAILS:
		return lightning.CauseIncorrectDetails
	case lndrpc.PaymentFailureReason_FAILURE_REASON_INSUFFICIENT_BALANCE:
		return lightning.CauseInsufficientFunds
	case lndrpc.PaymentFailureReason_FAILURE_REASON_CANCELED:
		return lightning.CauseCanceled
	}
	return lightning.CauseUnknown
}

// Track is rail.ErrNotFound: the node knows payments by hash, not by key, and submitting
// the instruction again under its key finds the node's payment for its hash.
func (*Rail) Track(context.Context, string) (rail.Outcome, error) {
	return rail.Outcome{}, rail.ErrNotFound
}

// Cancel is rail.ErrNotCancellable: a Lightning payment's HTLCs cannot be recalled.
func (*Rail) Cancel(context.Context, string) error { return rail.ErrNotCancellable }
