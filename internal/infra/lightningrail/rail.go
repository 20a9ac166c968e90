// Package lightningrail is the Lightning rail, an adapter of the rail port
// (internal/rail): it pays LIGHTNING external accounts through the deployment's LND node
// (internal/infra/lnd), by the rules of internal/lightning: a BOLT11 invoice as it is, a
// Lightning address (LUD-16) by the invoice its service answers (LNURL-pay through the
// outbound-address guard), resolved once per payment.
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
	"net/http"
	"strings"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/lnd/lndrpc"
	"paycore/internal/infra/metrics"
	"paycore/internal/infra/netguard"
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
	// Invoices records the invoice a payout to a Lightning address resolved to, so that it
	// is resolved once (db.Store); without it such payouts fail before anything is sent.
	Invoices PayoutInvoices
	// Metrics counts the payments in flight, how they end and their fees (none when nil).
	Metrics *metrics.Metrics
	// HTTP is the client a Lightning address is resolved with, for payments of an
	// environment: it must be the outbound-address guard's (netguard), following no
	// redirect (default: the guard's, refusing every non-public address, 10 s a request).
	HTTP func(catalog.Environment) *http.Client
}

// PayoutInvoices keeps the invoice each payout to a Lightning address resolved to, by the
// payment's key.
type PayoutInvoices interface {
	// LightningPayoutInvoice is the invoice recorded under key; false when none is.
	LightningPayoutInvoice(ctx context.Context, key string) (string, bool, error)
	// LightningPayoutInvoiceRecord records invoice under key unless one is, and returns the
	// one recorded.
	LightningPayoutInvoiceRecord(ctx context.Context, key, invoice string, now time.Time) (string, error)
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
	if opts.HTTP == nil {
		opts.HTTP = netguard.PerEnvironment(false, nil, nil) // public addresses only
	}
	return &Rail{node: node, opts: opts}
}

// Name is "lightning".
func (*Rail) Name() string { return Name }

// Capabilities: BTC to LIGHTNING external accounts and to UMA addresses of other
// providers (their receivers' invoices); a payment cannot be cancelled once sent; it
// settles in seconds.
func (r *Rail) Capabilities() rail.Capabilities {
	return rail.Capabilities{Environments: r.opts.Environments, Currencies: []string{"BTC"},
		Kinds: []rail.Kind{rail.ExternalAccount, rail.UMA}, AccountTypes: []string{"LIGHTNING"}, Settlement: 10 * time.Second}
}

// Submit pays the instruction's invoice (its identifier; for a UMA address, the invoice
// its provider answered) and reports how the payment ended. An invoice that cannot be paid
// for the amount (malformed, another amount, expired) fails before anything is sent.
// Submitting again finds the node's payment for the invoice's hash and reports its end:
// never a second payment.
func (r *Rail) Submit(ctx context.Context, in rail.Instruction) (rail.Outcome, error) {
	if in.Currency != "BTC" || (in.Kind != rail.ExternalAccount && in.Kind != rail.UMA) {
		return rail.Outcome{}, fmt.Errorf("lightning: cannot pay %s to a %s", in.Currency, in.Kind)
	}
	if lightning.AsksNetwork(in.Environment) {
		mainnet, err := r.node.Mainnet(ctx)
		if err != nil {
			return rail.Outcome{}, fmt.Errorf("lightning: %w", err)
		}
		if refused, ok := lightning.SimulatedOnMainnet(in.Environment, mainnet); ok {
			return r.sent(in, refused), nil
		}
	}
	invoice := strings.TrimSpace(in.Identifier)
	if in.Kind == rail.UMA {
		invoice = strings.TrimSpace(in.Invoice)
	}
	if strings.HasPrefix(strings.ToLower(invoice), "lno1") {
		return r.sent(in, lightning.Invalid("a BOLT12 offer, which this node does not pay")), nil
	}
	if strings.Contains(invoice, "@") && in.Kind == rail.ExternalAccount {
		pr, refused, err := r.addressInvoice(ctx, in)
		if err != nil {
			return rail.Outcome{}, err
		}
		if refused != nil {
			return r.sent(in, *refused), nil
		}
		invoice = pr
	}
	inv, err := r.decode(ctx, invoice)
	if errors.Is(err, lnd.ErrInvalid) {
		return r.sent(in, lightning.Invalid(err.Error())), nil
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
	done := r.inFlight()
	defer done()
	switch p, err := r.node.Track(ctx, hash); {
	case err == nil:
		return outcome(p), nil
	case !errors.Is(err, lnd.ErrNotFound):
		return rail.Outcome{}, err
	}
	check := lightning.Check
	if in.Kind == rail.UMA {
		check = lightning.CheckUma
	}
	if out, ok := check(inv, in.Amount, r.opts.Now(), r.opts.Timeout); !ok {
		return r.sent(in, out), nil
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
	return r.sent(in, outcome(p)), nil
}

// Carried is which of the node's channels carried the completed payment of the hex hash
// (rail.Carrier): the first hop of each settled HTLC, with what left the node through it.
func (r *Rail) Carried(ctx context.Context, hash string) ([]rail.ChannelUse, error) {
	h, err := hex.DecodeString(hash)
	if err != nil {
		return nil, fmt.Errorf("lightning: payment hash %q: %w", hash, err)
	}
	p, err := r.node.Track(ctx, h)
	if err != nil {
		return nil, err
	}
	points, err := r.node.ChannelPoints(ctx)
	if err != nil {
		return nil, err
	}
	var out []rail.ChannelUse
	for _, a := range p.GetHtlcs() {
		hops := a.GetRoute().GetHops()
		if a.GetStatus() != lndrpc.HTLCAttempt_SUCCEEDED || len(hops) == 0 {
			continue
		}
		if point, ok := points[hops[0].GetChanId()]; ok {
			out = append(out, rail.ChannelUse{Outpoint: point, AmountMsat: a.GetRoute().GetTotalAmtMsat()})
		}
	}
	return out, nil
}

// ReadInvoice is what the invoice request asks, as the node decodes it (rail.InvoicePayer);
// a request the node cannot decode is *rail.Unpayable.
func (r *Rail) ReadInvoice(ctx context.Context, request string) (rail.Invoice, error) {
	inv, err := r.decode(ctx, strings.TrimSpace(request))
	if errors.Is(err, lnd.ErrInvalid) {
		return rail.Invoice{}, &rail.Unpayable{Reason: "not an invoice this node can pay: " + err.Error()}
	}
	if err != nil {
		return rail.Invoice{}, err
	}
	return rail.Invoice{Hash: inv.Hash, AmountMsat: inv.AmountMsat, ExpiresAt: inv.Expires()}, nil
}

// inFlight counts a payment waited on at the node until done is called.
func (r *Rail) inFlight() (done func()) {
	if r.opts.Metrics == nil {
		return func() {}
	}
	r.opts.Metrics.LightningInFlight.Inc()
	return r.opts.Metrics.LightningInFlight.Dec
}

// sent counts how a payment this call sent (or refused) ended, and its fee. A payment to a
// UMA receiver elsewhere whose invoice was refused fails PAY_REQUEST_FAILED (lightning.ForUma).
func (r *Rail) sent(in rail.Instruction, out rail.Outcome) rail.Outcome {
	if in.Kind == rail.UMA {
		out = lightning.ForUma(out)
	}
	if m := r.opts.Metrics; m != nil {
		m.LightningPayments.WithLabelValues(strings.ToLower(string(out.Status)), string(out.Code)).Inc()
		m.LightningFeesMsat.Add(float64(out.FeeMsat))
	}
	return out
}

// decode asks the node what the invoice says.
func (r *Rail) decode(ctx context.Context, invoice string) (lightning.Invoice, error) {
	req, err := r.node.Decode(ctx, invoice)
	if err != nil {
		return lightning.Invoice{}, err
	}
	return lightning.Invoice{Hash: req.PaymentHash, Destination: req.Destination, AmountMsat: req.NumMsat,
		Created: time.Unix(req.Timestamp, 0), Expiry: time.Duration(req.Expiry) * time.Second, DescriptionHash: req.DescriptionHash}, nil
}

// addressInvoice is the invoice a payout to a Lightning address pays: the one recorded for
// its key, else the one the address's service answers now (LNURL-pay through the
// outbound-address guard), checked (for the amount, committing to the pay request's
// metadata) and recorded before anything is paid. refused is the outcome of an address
// that cannot be paid (nothing was sent); err a failure to retry.
func (r *Rail) addressInvoice(ctx context.Context, in rail.Instruction) (invoice string, refused *rail.Outcome, err error) {
	refuse := func(why error) (string, *rail.Outcome, error) {
		out := lightning.AddressFailed(why)
		return "", &out, nil
	}
	if r.opts.Invoices == nil {
		return refuse(errors.New("no store keeps the invoices of payouts to Lightning addresses"))
	}
	if pr, ok, err := r.opts.Invoices.LightningPayoutInvoice(ctx, in.Key); err != nil || ok {
		return pr, nil, err
	}
	pay, pr, err := r.resolve(ctx, in)
	if err != nil {
		return refuse(err)
	}
	inv, err := r.decode(ctx, pr)
	if errors.Is(err, lnd.ErrInvalid) {
		return refuse(fmt.Errorf("its service answered an invalid invoice (%w)", err))
	}
	if err != nil {
		return "", nil, err
	}
	if err := lightning.CheckAddressInvoice(pay, inv, inv.DescriptionHash, in.Amount); err != nil {
		return refuse(err)
	}
	stored, err := r.opts.Invoices.LightningPayoutInvoiceRecord(ctx, in.Key, pr, r.opts.Now())
	return stored, nil, err
}

// resolve asks the Lightning address's service for its pay request, then for an invoice
// of the instruction's amount.
func (r *Rail) resolve(ctx context.Context, in rail.Instruction) (lightning.PayRequest, string, error) {
	u, err := lightning.AddressURL(in.Identifier)
	if err != nil {
		return lightning.PayRequest{}, "", err
	}
	body, err := r.get(ctx, in.Environment, u)
	if err != nil {
		return lightning.PayRequest{}, "", err
	}
	pay, err := lightning.ParsePayRequest(body)
	if err != nil {
		return lightning.PayRequest{}, "", err
	}
	cb, err := pay.CallbackURL(in.Amount)
	if err != nil {
		return lightning.PayRequest{}, "", err
	}
	if body, err = r.get(ctx, in.Environment, cb); err != nil {
		return lightning.PayRequest{}, "", err
	}
	pr, err := lightning.ParseInvoiceAnswer(body)
	return pay, pr, err
}

// maxAnswer is the largest answer of a Lightning address's service read.
const maxAnswer = 64 << 10

// get fetches u with the environment's guarded client (netguard.Fetch).
func (r *Rail) get(ctx context.Context, env catalog.Environment, u string) ([]byte, error) {
	return netguard.Fetch(ctx, r.opts.HTTP(env), u, maxAnswer)
}

// outcome is the rail's outcome of a final payment.
func outcome(p *lndrpc.Payment) rail.Outcome {
	out := lightning.Failed(cause(p.FailureReason))
	if p.Status == lndrpc.Payment_SUCCEEDED {
		out = lightning.Settled(p.FeeMsat)
	}
	out.PaymentHash = p.PaymentHash
	return out
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

// FeeReserve is what a quote paying amount satoshis out over Lightning reserves for the
// route's fees: the rail's default fee limit (lightning.FeeLimit), which the payment is then
// given as its limit.
func (r *Rail) FeeReserve(amount int64) int64 { return lightning.FeeLimit(amount, 0) }

// ProbeFee probes the route to the instruction's invoice (a probe payment its recipient
// cannot settle) and answers its routing fee in satoshis, rounded up. A Lightning address
// is not probed: only paying it asks its service for an invoice.
func (r *Rail) ProbeFee(ctx context.Context, in rail.Instruction) (int64, bool, error) {
	invoice := strings.TrimSpace(in.Identifier)
	if strings.Contains(invoice, "@") {
		return 0, false, nil
	}
	probe, err := r.node.EstimateFee(ctx, invoice, r.opts.Timeout)
	if errors.Is(err, lnd.ErrInvalid) {
		return 0, false, &rail.Unpayable{Reason: "not an invoice this node can pay"}
	}
	if err != nil {
		return 0, false, err
	}
	if c := cause(probe.Failure); probe.Failure != lndrpc.PaymentFailureReason_FAILURE_REASON_NONE {
		return 0, false, &rail.Unpayable{Reason: lightning.Failed(c).Message}
	}
	return rail.SatsUp(probe.FeeMsat), true, nil
}

// Track is rail.ErrNotFound: the node knows payments by hash, not by key, and submitting
// the instruction again under its key finds the node's payment for its hash.
func (*Rail) Track(context.Context, string) (rail.Outcome, error) {
	return rail.Outcome{}, rail.ErrNotFound
}

// Cancel is rail.ErrNotCancellable: a Lightning payment's HTLCs cannot be recalled.
func (*Rail) Cancel(context.Context, rail.Instruction) error { return rail.ErrNotCancellable }
