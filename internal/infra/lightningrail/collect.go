package lightningrail

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"paycore/internal/infra/lnd"
	"paycore/internal/infra/lnd/lndrpc"
	"paycore/internal/payment"
	"paycore/internal/rail"
)

// Collect is an invoice of the node for c's amount in satoshis, committing to c's
// description by its hash (LUD-06), payable for c's expiry. The node refuses a payment to
// it once it expired.
func (r *Rail) Collect(ctx context.Context, c rail.Collection) (rail.PaymentRequest, error) {
	if c.Currency != "BTC" || c.Amount <= 0 {
		return rail.PaymentRequest{}, fmt.Errorf("lightning: cannot collect %d %s", c.Amount, c.Currency)
	}
	hash := sha256.Sum256([]byte(c.Description))
	now := r.opts.Now()
	inv, err := r.node.AddInvoice(ctx, lnd.NewInvoice{Sats: c.Amount, DescriptionHash: hash[:], Expiry: c.Expiry})
	if err != nil {
		return rail.PaymentRequest{}, err
	}
	return rail.PaymentRequest{Request: inv.PaymentRequest, Hash: hex.EncodeToString(inv.RHash), ExpiresAt: now.Add(c.Expiry)}, nil
}

// Collected is what became of the node's invoice of hash: paid (settled) with what it
// received, in satoshis, held by the node (the LIGHTNING account); or unpaid, payable while
// it is open and not expired.
func (r *Rail) Collected(ctx context.Context, hash string) (rail.Collected, error) {
	h, err := hex.DecodeString(hash)
	if err != nil {
		return rail.Collected{}, fmt.Errorf("lightning: payment hash %q: %w", hash, err)
	}
	inv, err := r.node.LookupInvoice(ctx, h)
	if errors.Is(err, lnd.ErrNotFound) {
		return rail.Collected{}, nil
	}
	if err != nil {
		return rail.Collected{}, err
	}
	switch inv.State {
	case lndrpc.Invoice_SETTLED:
		channels, err := r.channels(ctx, inv.Htlcs)
		if err != nil {
			return rail.Collected{}, err
		}
		return rail.Collected{Paid: true, Amount: inv.AmtPaidSat, Funds: payment.Lightning, Channels: channels}, nil
	case lndrpc.Invoice_ACCEPTED:
		// Held by a payment not yet settled (a hold invoice): not final.
		return rail.Collected{Payable: true}, nil
	case lndrpc.Invoice_OPEN:
		expires := time.Unix(inv.CreationDate, 0).Add(time.Duration(inv.Expiry) * time.Second)
		return rail.Collected{Payable: r.opts.Now().Before(expires)}, nil
	}
	return rail.Collected{}, nil
}

// channels are the channels the settled HTLCs of an invoice came through, with what each
// carried; a channel closed since is left out (its outpoint is no longer known).
func (r *Rail) channels(ctx context.Context, htlcs []*lndrpc.InvoiceHTLC) ([]rail.ChannelUse, error) {
	if len(htlcs) == 0 {
		return nil, nil
	}
	points, err := r.node.ChannelPoints(ctx)
	if err != nil {
		return nil, err
	}
	var out []rail.ChannelUse
	for _, h := range htlcs {
		if p, ok := points[h.ChanId]; ok && h.State == lndrpc.InvoiceHTLCState_SETTLED {
			out = append(out, rail.ChannelUse{Outpoint: p, AmountMsat: int64(h.AmtMsat)})
		}
	}
	return out, nil
}
