package lnregtest_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"paycore/internal/infra/lnregtest"
)

// The network starts, and an invoice is paid across its channel in both directions.
func TestNetworkPaysBothWays(t *testing.T) {
	bin := os.Getenv("PAYCORE_LIGHTNING_BIN")
	if bin == "" {
		t.Skip("PAYCORE_LIGHTNING_BIN is not set: make test-lightning builds the network's binaries and runs this test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	n, err := lnregtest.Start(ctx, lnregtest.Config{Bin: bin, Dir: t.TempDir(), BasePort: 18610, Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Stop()
	pay := func(from, to *lnregtest.Node, sats string) {
		t.Helper()
		var inv struct {
			PaymentRequest string `json:"payment_request"`
			RHash          string `json:"r_hash"`
		}
		if err := to.CLIJSON(ctx, &inv, "addinvoice", "--amt", sats, "--memo", "test"); err != nil {
			t.Fatal(err)
		}
		if _, err := from.CLI(ctx, "payinvoice", "--force", "--json", inv.PaymentRequest); err != nil {
			t.Fatal(err)
		}
		var got struct {
			State   string `json:"state"`
			AmtPaid string `json:"amt_paid_sat"`
		}
		if err := to.CLIJSON(ctx, &got, "lookupinvoice", inv.RHash); err != nil {
			t.Fatal(err)
		}
		if got.State != "SETTLED" || got.AmtPaid != sats {
			t.Fatalf("%s's invoice paid by %s: %+v", to.Name, from.Name, got)
		}
	}
	pay(n.Node, n.Peer, "25000")
	pay(n.Peer, n.Node, "7000")
	var bal struct {
		Local struct {
			Sat string `json:"sat"`
		} `json:"local_balance"`
	}
	if err := n.Peer.CLIJSON(ctx, &bal, "channelbalance"); err != nil {
		t.Fatal(err)
	}
	if want := "418000"; bal.Local.Sat != want { // 400,000 pushed + 25,000 - 7,000
		b, _ := json.Marshal(bal)
		t.Fatalf("the peer's channel balance is %s, want %s", b, want)
	}
}
