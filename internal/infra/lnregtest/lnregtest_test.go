package lnregtest_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"paycore/internal/infra/lnregtest"
	"paycore/internal/infra/lnregtest/lntest"
)

// The network starts, and an invoice is paid across its channel in both directions.
func TestNetworkPaysBothWays(t *testing.T) {
	n, _ := lntest.Start(t, 18610)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pay := func(from, to *lnregtest.Node, sats int64) {
		t.Helper()
		inv := lntest.NewInvoice(t, to, sats, "--memo", "test")
		if _, err := from.CLI(ctx, "payinvoice", "--force", "--json", inv.PaymentRequest); err != nil {
			t.Fatal(err)
		}
		if state, paid := lntest.InvoiceState(t, to, inv.RHash); state != "SETTLED" || paid != strconv.FormatInt(sats, 10) {
			t.Fatalf("%s's invoice paid by %s: %s, %s sat", to.Name, from.Name, state, paid)
		}
	}
	pay(n.Node, n.Peer, 25_000)
	pay(n.Peer, n.Node, 7_000)
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
