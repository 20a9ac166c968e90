package lightningrail_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/infra/lightningrail"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/lnregtest"
	"paycore/internal/infra/lnregtest/lntest"
	"paycore/internal/rail"
)

// peerInvoice is a new invoice of the counterparty node (sats 0: no amount).
func peerInvoice(t *testing.T, n *lnregtest.Network, sats int64, args ...string) lntest.Invoice {
	t.Helper()
	return lntest.NewInvoice(t, n.Peer, sats, args...)
}

// paidToPeer is what the counterparty's invoice was paid (state and satoshis).
func paidToPeer(t *testing.T, n *lnregtest.Network, hash string) (string, string) {
	t.Helper()
	return lntest.InvoiceState(t, n.Peer, hash)
}

func payout(key, invoice string, sats int64) rail.Instruction {
	return rail.Instruction{Key: key, Payment: rail.Payout, Environment: catalog.Production, Currency: "BTC",
		Kind: rail.ExternalAccount, AccountType: "LIGHTNING", Identifier: invoice, Amount: sats}
}

// The rail pays invoices of the counterparty node: once per invoice however often it is
// submitted, amountless invoices for the instruction's amount, and every invoice it must
// not pay (malformed, another amount, expired, cancelled by its recipient, more than the
// channel can carry) fails with its cause and nothing sent.
func TestLightningRailPaysInvoices(t *testing.T) {
	n, node := lntest.Start(t, 18630)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := lightningrail.New(node, lightningrail.Options{Timeout: 20 * time.Second})
	if !r.Capabilities().Serves(rail.Target{Environment: catalog.Production, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "LIGHTNING"}) {
		t.Fatal("the rail does not serve BTC payouts to LIGHTNING accounts")
	}
	before, err := node.Balances(ctx)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("paid once", func(t *testing.T) {
		inv := peerInvoice(t, n, 12_000)
		for i := range 3 { // a retried activity submits the same instruction again
			out, err := r.Submit(ctx, payout("tx-once", inv.PaymentRequest, 12_000))
			if err != nil || out.Status != catalog.TxCompleted {
				t.Fatalf("submit %d: %+v, %v", i, out, err)
			}
		}
		if state, paid := paidToPeer(t, n, inv.RHash); state != "SETTLED" || paid != "12000" {
			t.Fatalf("the peer's invoice: %s, %s sat paid", state, paid)
		}
	})
	t.Run("a sandbox platform's payout on a test network", func(t *testing.T) {
		if mainnet, err := node.Mainnet(ctx); err != nil || mainnet {
			t.Fatalf("the regtest node on mainnet: %v %v", mainnet, err)
		}
		inv := peerInvoice(t, n, 1_500)
		in := payout("tx-sandbox", inv.PaymentRequest, 1_500)
		in.Environment = catalog.Sandbox
		if out, err := r.Submit(ctx, in); err != nil || out.Status != catalog.TxCompleted {
			t.Fatalf("submit: %+v, %v", out, err)
		}
	})
	t.Run("amountless invoice", func(t *testing.T) {
		inv := peerInvoice(t, n, 0)
		if out, err := r.Submit(ctx, payout("tx-amountless", inv.PaymentRequest, 3_456)); err != nil || out.Status != catalog.TxCompleted {
			t.Fatalf("submit: %+v, %v", out, err)
		}
		if state, paid := paidToPeer(t, n, inv.RHash); state != "SETTLED" || paid != "3456" {
			t.Fatalf("the peer's invoice: %s, %s sat paid", state, paid)
		}
	})
	refused := func(t *testing.T, in rail.Instruction, opts lightningrail.Options, code catalog.Code) {
		t.Helper()
		out, err := lightningrail.New(node, opts).Submit(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != catalog.TxFailed || out.Code != code || out.FailureReason != string(catalog.FailLightning) || out.Message == "" {
			t.Fatalf("outcome %+v, want FAILED %s", out, code)
		}
	}
	t.Run("malformed", func(t *testing.T) {
		refused(t, payout("tx-malformed", "lnbcrt1notaninvoice", 1_000), lightningrail.Options{}, catalog.FailInvoiceInvalid)
	})
	t.Run("another amount", func(t *testing.T) {
		inv := peerInvoice(t, n, 1_000)
		refused(t, payout("tx-amount", inv.PaymentRequest, 999), lightningrail.Options{}, catalog.FailInvoiceAmount)
		if state, _ := paidToPeer(t, n, inv.RHash); state != "OPEN" {
			t.Fatalf("the refused invoice is %s", state)
		}
	})
	t.Run("a UMA receiver's invoice", func(t *testing.T) {
		// Paid as its own, by the instruction's Invoice (the identifier is the address).
		inv := peerInvoice(t, n, 2_000)
		uma := rail.Instruction{Key: "tx-uma", Payment: rail.Payout, Environment: catalog.Production, Currency: "BTC", Kind: rail.UMA,
			Identifier: "$bob@pay.bob.example", Invoice: inv.PaymentRequest, Amount: 2_000}
		if out, err := r.Submit(ctx, uma); err != nil || out.Status != catalog.TxCompleted {
			t.Fatalf("a UMA receiver's invoice: %+v, %v", out, err)
		}
		// Refused before anything is sent: the pay request's answer cannot be paid.
		inv = peerInvoice(t, n, 1_000)
		uma.Key, uma.Invoice, uma.Amount = "tx-uma-amount", inv.PaymentRequest, 999
		out, err := r.Submit(ctx, uma)
		if err != nil || out.Status != catalog.TxFailed || out.Code != catalog.FailInvoiceAmount || out.FailureReason != string(catalog.FailPayRequest) {
			t.Fatalf("a UMA receiver's invoice for another amount: %+v, %v", out, err)
		}
	})
	t.Run("expired", func(t *testing.T) {
		inv := peerInvoice(t, n, 1_000, "--expiry", "600")
		later := func() time.Time { return time.Now().Add(11 * time.Minute) }
		refused(t, payout("tx-expired", inv.PaymentRequest, 1_000), lightningrail.Options{Now: later}, catalog.FailInvoiceExpired)
		// An invoice about to expire is refused too: the payment needs its timeout.
		refused(t, payout("tx-expiring", inv.PaymentRequest, 1_000), lightningrail.Options{Timeout: 20 * time.Minute}, catalog.FailInvoiceExpired)
	})
	t.Run("cancelled by its recipient", func(t *testing.T) {
		inv := peerInvoice(t, n, 2_000)
		if _, err := n.Peer.CLI(ctx, "cancelinvoice", inv.RHash); err != nil {
			t.Fatal(err)
		}
		refused(t, payout("tx-cancelled", inv.PaymentRequest, 2_000), lightningrail.Options{Timeout: 20 * time.Second}, catalog.FailRecipientRefused)
	})
	t.Run("more than the channel carries", func(t *testing.T) {
		inv := peerInvoice(t, n, 900_000)
		refused(t, payout("tx-too-much", inv.PaymentRequest, 900_000), lightningrail.Options{Timeout: 20 * time.Second}, catalog.FailInsufficientLiquidity)
	})

	// The node's channel side went down by what was paid, exactly once (a direct channel
	// charges no routing fee).
	after := settled(ctx, t, node)
	if got, want := before.Total()-after.Total(), int64(12_000+1_500+2_000+3_456); got != want {
		t.Fatalf("the node's channel balance went down by %d sat, want %d", got, want)
	}

	// The counterparty goes offline: its channel, the only route, is inactive, so the node
	// has no usable outbound liquidity (LND's INSUFFICIENT_BALANCE) and an invoice of it
	// fails at once with nothing sent, rather than waiting.
	inv := peerInvoice(t, n, 1_500)
	n.Peer.Kill()
	eventually(t, "the channel to the counterparty inactive", func() bool {
		var chans struct {
			Channels []json.RawMessage `json:"channels"`
		}
		return n.Node.CLIJSON(ctx, &chans, "listchannels", "--active_only") == nil && len(chans.Channels) == 0
	})
	refused(t, payout("tx-offline", inv.PaymentRequest, 1_500), lightningrail.Options{Timeout: 20 * time.Second}, catalog.FailInsufficientLiquidity)
	if now := settled(ctx, t, node); now.Total() != after.Total() {
		t.Fatalf("a payment with no route moved money: %+v (was %+v)", now, after)
	}
}

// settled reads the node's balances once no payment is in flight in its channels: LND
// reports a payment succeeded when the preimage comes back, before the channel update
// that settles its HTLC, which until then still counts as the node's money.
func settled(ctx context.Context, t *testing.T, node *lnd.Client) lnd.Balances {
	t.Helper()
	var b lnd.Balances
	eventually(t, "no payment in flight", func() bool {
		var err error
		b, err = node.Balances(ctx)
		return err == nil && !b.InFlight()
	})
	return b
}

// eventually polls cond every 100 ms for up to 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
