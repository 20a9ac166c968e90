package main

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/internal/infra/lnd"
	"paycore/internal/infra/lnregtest"
	"paycore/internal/rail"
)

// lightningStack is a stack whose Lightning rail pays through the deployment's node of a
// fresh regtest network (make test-lightning builds its binaries), with sandbox BTC payouts
// to LIGHTNING accounts routed to it (a sandbox platform's opt-in to the real network) and
// everything else to the sandbox rail. basePort must differ between tests.
func lightningStack(t *testing.T, basePort int) (*stack, *lnregtest.Network, *lnd.Client) {
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
	routes, err := rail.ParseRoutes("SANDBOX:*:*=sandbox,SANDBOX:BTC:EXTERNAL_ACCOUNT:LIGHTNING=lightning")
	if err != nil {
		t.Fatal(err)
	}
	s := newStack(t, func(c *config.Config) {
		c.LND = config.LND{Address: n.Node.RPCAddr, TLSCertPath: n.Node.TLSCert, MacaroonPath: n.Node.Macaroon, PaymentTimeout: 20 * time.Second}
		c.Rails = routes
	})
	node, err := lnd.Dial(lnd.Config{Address: n.Node.RPCAddr, TLSCertPath: n.Node.TLSCert, MacaroonPath: n.Node.Macaroon})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Close() })
	return s, n, node
}

// lightningWorld is a sandbox platform supporting USD and BTC with one customer whose USD
// account holds funded.
func lightningWorld(t *testing.T, s *stack, funded int64) *world {
	t.Helper()
	w := newWorld(t, s)
	if r := w.c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("BTC")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	w.fund(funded)
	return w
}

// lightningAccount registers a LIGHTNING external account of w's customer paying invoice.
func (w *world) lightningAccount(invoice string) string {
	w.t.Helper()
	r := w.c.Do("POST", "/customers/external-accounts", map[string]any{"customerId": w.customer, "currency": "BTC",
		"accountInfo": map[string]any{"accountType": "LIGHTNING", "invoice": invoice}})
	if r.Status != 201 {
		w.t.Fatalf("create LIGHTNING external account: %d %s", r.Status, r.Body)
	}
	return r.JSON(w.t)["id"].(string)
}

// ledgerLightning is what the ledger's LIGHTNING accounts (every platform's, in BTC) say
// left the deployment's node, fees included, less what came in.
func ledgerLightning(t *testing.T, s *stack) int64 {
	t.Helper()
	var sum int64
	if err := s.app.pool.QueryRow(context.Background(),
		`SELECT coalesce(sum(balance), 0) FROM ledger_accounts WHERE kind = 'LIGHTNING' AND currency = 'BTC'`).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

// A USD → BTC quote paid out to an invoice of the counterparty node completes: the
// invoice is settled for the quoted amount, and what left the node is what the ledger
// posted to its LIGHTNING account, to the satoshi. An invoice the node cannot pay fails
// the quote with its cause and gives the money back.
func TestLightningQuotePayout(t *testing.T) {
	s, n, node := lightningStack(t, 18650)
	ctx := context.Background()
	w := lightningWorld(t, s, 1_000_000)
	start := w.balance()
	before, err := node.Balances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var inv struct {
		PaymentRequest string `json:"payment_request"`
		RHash          string `json:"r_hash"`
	}
	const sats = 21_000
	if err := n.Peer.CLIJSON(ctx, &inv, "addinvoice", "--amt", strconv.Itoa(sats), "--memo", "quote payout"); err != nil {
		t.Fatal(err)
	}
	r := w.quote(w.lightningAccount(inv.PaymentRequest), "RECEIVING", sats, map[string]any{"immediatelyExecute": true})
	if r.Status != 201 && r.Status != 200 {
		t.Fatalf("quote: %d %s", r.Status, r.Body)
	}
	var q view.Quote
	r.Decode(t, &q)
	tx := w.waitFinal(q.TransactionID, time.Minute)
	if tx.Status != "COMPLETED" {
		t.Fatalf("the payout: %s %+v", tx.Status, tx.FailureDetails)
	}
	var got struct {
		State   string `json:"state"`
		AmtPaid string `json:"amt_paid_sat"`
	}
	if err := n.Peer.CLIJSON(ctx, &got, "lookupinvoice", inv.RHash); err != nil {
		t.Fatal(err)
	}
	if got.State != "SETTLED" || got.AmtPaid != strconv.Itoa(sats) {
		t.Fatalf("the counterparty's invoice: %+v", got)
	}
	after, err := node.Balances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if left, posted := before.ChannelLocal-after.ChannelLocal, ledgerLightning(t, s); left != sats || posted != left {
		t.Fatalf("%d sat left the node, the ledger posted %d to LIGHTNING; want %d both", left, posted, sats)
	}
	if paid := start - w.balance(); paid != tx.SentAmount.Amount || paid <= 0 {
		t.Fatalf("the customer paid %d, the transaction sent %d", paid, tx.SentAmount.Amount)
	}
	t.Logf("paid %d sat for %d USD cents; transaction %s", sats, tx.SentAmount.Amount, tx.ID)

	// An invoice for another amount than the quote's: FAILED with the cause, nothing left
	// the node, and the customer's money is back.
	if err := n.Peer.CLIJSON(ctx, &inv, "addinvoice", "--amt", "6000"); err != nil {
		t.Fatal(err)
	}
	start = w.balance()
	r = w.quote(w.lightningAccount(inv.PaymentRequest), "RECEIVING", 5_000, map[string]any{"immediatelyExecute": true})
	if r.Status != 201 && r.Status != 200 {
		t.Fatalf("quote: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &q)
	tx = w.waitFinal(q.TransactionID, time.Minute)
	if tx.Status != "FAILED" || tx.FailureDetails == nil || tx.FailureDetails.Code != "INVOICE_AMOUNT_MISMATCH" || tx.FailureReason == nil || *tx.FailureReason != "LIGHTNING_PAYMENT_FAILED" {
		t.Fatalf("the payout to an invoice for another amount: %s %v %+v", tx.Status, tx.FailureReason, tx.FailureDetails)
	}
	if b := w.balance(); b != start {
		t.Fatalf("the customer's balance is %d after the failed payout, was %d", b, start)
	}
	if now, err := node.Balances(ctx); err != nil || now.ChannelLocal != after.ChannelLocal || ledgerLightning(t, s) != sats {
		t.Fatalf("the failed payout moved money: node %+v (was %+v), ledger %d (%v)", now, after, ledgerLightning(t, s), err)
	}
}
