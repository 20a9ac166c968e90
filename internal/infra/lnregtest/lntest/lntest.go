// Package lntest is the tests' way to the regtest Lightning network: a fresh network per
// test, skipped where its binaries are not built (make test-lightning builds them and sets
// PAYCORE_LIGHTNING_BIN), stopped when the test ends, with clients of its nodes.
package lntest

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"paycore/internal/infra/lnd"
	"paycore/internal/infra/lnregtest"
)

// Start starts a network on the loopback ports from basePort (tests running at the same
// time need different ones) and returns it with a client of the deployment's node.
func Start(t testing.TB, basePort int) (*lnregtest.Network, *lnd.Client) {
	t.Helper()
	bin := os.Getenv("PAYCORE_LIGHTNING_BIN")
	if bin == "" {
		t.Skip("PAYCORE_LIGHTNING_BIN is not set: make test-lightning builds the network's binaries and runs this test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	n, err := lnregtest.Start(ctx, lnregtest.Config{Bin: bin, Dir: t.TempDir(), BasePort: basePort, Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Stop)
	return n, Dial(t, n.Node)
}

// Dial is a client of node, closed when the test ends.
func Dial(t testing.TB, node *lnregtest.Node) *lnd.Client {
	t.Helper()
	c, err := lnd.Dial(node.LNDConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Invoice is an invoice a node made.
type Invoice struct {
	PaymentRequest string `json:"payment_request"`
	RHash          string `json:"r_hash"` // hex
}

// NewInvoice has node make an invoice of sats (0: any amount), with more lncli addinvoice
// arguments.
func NewInvoice(t testing.TB, node *lnregtest.Node, sats int64, args ...string) Invoice {
	t.Helper()
	var inv Invoice
	if err := node.CLIJSON(context.Background(), &inv, append([]string{"addinvoice", "--amt", strconv.FormatInt(sats, 10)}, args...)...); err != nil {
		t.Fatal(err)
	}
	return inv
}

// InvoiceState is the state of node's invoice with the hash (hex) and what was paid to it,
// in satoshis, as lncli writes them.
func InvoiceState(t testing.TB, node *lnregtest.Node, hash string) (state, paidSats string) {
	t.Helper()
	var got struct {
		State   string `json:"state"`
		AmtPaid string `json:"amt_paid_sat"`
	}
	if err := node.CLIJSON(context.Background(), &got, "lookupinvoice", hash); err != nil {
		t.Fatal(err)
	}
	return got.State, got.AmtPaid
}
