package payment

import (
	"reflect"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/problem"
	"paycore/internal/rail"
)

// Only a completed incoming payment from outside this deployment that was never refunded
// can be sent back; everything else is TRANSACTION_NOT_REFUNDABLE.
func TestCheckRefund(t *testing.T) {
	in := Refundable{Kind: "TRANSFER_IN", Type: catalog.Incoming, Status: catalog.TxCompleted, SourceKind: string(catalog.EndpointExternal)}
	uma := Refundable{Kind: "UMA_IN", Type: catalog.Incoming, Status: catalog.TxCompleted, SourceKind: string(catalog.EndpointUma)}
	with := func(r Refundable, f func(*Refundable)) Refundable { f(&r); return r }
	for name, tc := range map[string]struct {
		r  Refundable
		ok bool
	}{
		"a completed transfer in":          {in, true},
		"a completed UMA payment received": {uma, true},
		"an outgoing transfer":             {with(in, func(r *Refundable) { r.Kind, r.Type = "TRANSFER_OUT", catalog.Outgoing }), false},
		"a quote's payout":                 {with(in, func(r *Refundable) { r.Kind, r.Type = "QUOTE", catalog.Outgoing }), false},
		"a sandbox funding":                {with(in, func(r *Refundable) { r.Kind, r.SourceKind = "SANDBOX_FUNDING", "REALTIME_FUNDING" }), false},
		"a transfer in still processing":   {with(in, func(r *Refundable) { r.Status = catalog.TxProcessing }), false},
		"a failed transfer in":             {with(in, func(r *Refundable) { r.Status = catalog.TxFailed }), false},
		"a refunded one":                   {with(in, func(r *Refundable) { r.Status, r.RefundStatus = catalog.TxRefunded, RefundCompleted }), false},
		"one whose refund is pending":      {with(in, func(r *Refundable) { r.RefundStatus = RefundPending }), false},
		"one whose refund failed":          {with(in, func(r *Refundable) { r.RefundStatus = RefundFailed }), false},
		"one paid by a customer here":      {with(uma, func(r *Refundable) { r.Counterpart = true }), false},
	} {
		err := CheckRefund(tc.r)
		if tc.ok != (err == nil) || (err != nil && problem.CodeOf(err) != catalog.TransactionNotRefundable) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Opening holds the credited amount on the account and opens the refund; a completed refund
// takes the held amount to where the rail pays from and marks the payment REFUNDED; a failed
// one releases it. Every leg balances, and a refund that ended is not ended again.
func TestIncomingRefund(t *testing.T) {
	r := Refundable{Kind: "TRANSFER_IN", Type: catalog.Incoming, Status: catalog.TxCompleted, SourceKind: string(catalog.EndpointExternal)}
	s := Snapshot{ID: dst, Type: catalog.Incoming, Status: catalog.TxCompleted, Currency: "USD", Amount: 700, Destination: out(dst)}
	p, ok, err := s.OpenRefund(r, "")
	if err != nil || !ok || !reflect.DeepEqual(p.Hold, &Hold{Account: dst, Amount: 700}) ||
		!reflect.DeepEqual(p.Refunds, []RefundChange{{Open: RefundReasonPlatform, Webhook: events.IncomingPaymentRefundPending}}) || p.Status != nil || len(p.Legs) != 0 {
		t.Fatalf("open: %+v %v", p, err)
	}
	if _, _, err := (Snapshot{ID: dst, Type: catalog.Incoming, Status: catalog.TxCompleted}).OpenRefund(r, ""); problem.CodeOf(err) != catalog.TransactionNotRefundable {
		t.Fatalf("no account: %v", err)
	}
	// Opening again what is pending (the step run again) writes nothing; a refund that
	// ended is never opened again.
	if _, ok, err := s.OpenRefund(Refundable{Kind: "TRANSFER_IN", Type: catalog.Incoming, Status: catalog.TxCompleted, SourceKind: "EXTERNAL", RefundStatus: RefundPending}, ""); ok || err != nil {
		t.Fatalf("a pending refund opened again: %v %v", ok, err)
	}
	for _, st := range []string{RefundCompleted, RefundFailed} {
		if _, ok, err := s.OpenRefund(Refundable{Kind: "TRANSFER_IN", Type: catalog.Incoming, Status: catalog.TxCompleted, SourceKind: "EXTERNAL", RefundStatus: st}, ""); ok || problem.CodeOf(err) != catalog.TransactionNotRefundable {
			t.Fatalf("a %s refund opened again: %v %v", st, ok, err)
		}
	}

	s.RefundStatus = RefundPending
	done, ok, err := s.FinishRefund(rail.Outcome{Status: catalog.TxCompleted})
	if err != nil || !ok {
		t.Fatalf("complete: %v %v", ok, err)
	}
	balanced(t, "completed", done)
	if want := []Leg{{"USD", []Move{{Internal(dst), -700, -700}, {System(Settlement), 700, 0}}}}; !reflect.DeepEqual(done.Legs, want) ||
		!reflect.DeepEqual(done.Status, &StatusChange{Event: catalog.TxEventRefund, To: catalog.TxRefunded}) ||
		!reflect.DeepEqual(done.Refunds, []RefundChange{{End: RefundCompleted, Webhook: events.IncomingPaymentRefundCompleted}}) {
		t.Fatalf("complete: %+v", done)
	}
	failed, ok, err := s.FinishRefund(rail.Outcome{Status: catalog.TxFailed, Code: catalog.FailRejectedByBank})
	if err != nil || !ok {
		t.Fatalf("fail: %v %v", ok, err)
	}
	balanced(t, "failed", failed)
	if want := []Leg{{"USD", []Move{{Internal(dst), 0, -700}}}}; !reflect.DeepEqual(failed.Legs, want) || failed.Status != nil ||
		!reflect.DeepEqual(failed.Refunds, []RefundChange{{End: RefundFailed, Webhook: events.IncomingPaymentRefundFailed}}) {
		t.Fatalf("fail: %+v", failed)
	}
	for _, st := range []string{"", RefundCompleted, RefundFailed} {
		s.RefundStatus = st
		if _, ok, err := s.FinishRefund(rail.Outcome{Status: catalog.TxCompleted}); ok || err != nil {
			t.Fatalf("refund %q ended again: %v %v", st, ok, err)
		}
	}
}

// A payment a rail collected in satoshis and credited in USD goes back as it was sent: the
// account's held dollars to the FX account, which pays the satoshis sent to the rail's
// funds; the route's fee is the deployment's. Received in satoshis, the surplus the FX
// account kept goes back too. Every currency balances.
func TestCollectedRefund(t *testing.T) {
	r := Refundable{Kind: "UMA_IN", Type: catalog.Incoming, Status: catalog.TxCompleted, SourceKind: string(catalog.EndpointUma)}
	s := Snapshot{ID: dst, Type: catalog.Incoming, Status: catalog.TxCompleted, Currency: "USD", Amount: 2_000, Destination: out(dst),
		Sent: &Sent{Currency: "BTC", Amount: 21_500}}
	p, ok, err := s.OpenRefund(r, "lnbcrt215u1...")
	if err != nil || !ok || !reflect.DeepEqual(p.Hold, &Hold{Account: dst, Amount: 2_000}) ||
		!reflect.DeepEqual(p.Refunds, []RefundChange{{Open: RefundReasonPlatform, PaymentRequest: "lnbcrt215u1...", Webhook: events.IncomingPaymentRefundPending}}) {
		t.Fatalf("open: %+v %v %v", p, ok, err)
	}
	s.RefundStatus = RefundPending
	paid := rail.Outcome{Status: catalog.TxCompleted, Funds: Lightning, FeeMsat: 1_200}
	done, ok, err := s.FinishRefund(paid)
	if err != nil || !ok {
		t.Fatalf("complete: %v %v", ok, err)
	}
	balanced(t, "completed", done)
	want := []Leg{
		{"USD", []Move{{Internal(dst), -2_000, -2_000}, {System(FX), 2_000, 0}}},
		{"BTC", []Move{{System(FX), -21_500, 0}, {System(Lightning), 21_500, 0}}},
		{"BTC", []Move{{System(Lightning), 2, 0}, {System(RailFees), -2, 0}}},
	}
	if !reflect.DeepEqual(done.Legs, want) || done.Status.To != catalog.TxRefunded {
		t.Fatalf("complete: %+v", done.Legs)
	}
	failed, _, _ := s.FinishRefund(rail.Outcome{Status: catalog.TxFailed, Code: catalog.FailPayRequest})
	if want := []Leg{{"USD", []Move{{Internal(dst), 0, -2_000}}}}; !reflect.DeepEqual(failed.Legs, want) {
		t.Fatalf("fail: %+v", failed.Legs)
	}

	sats := Snapshot{ID: dst, Type: catalog.Incoming, Status: catalog.TxCompleted, Currency: "BTC", Amount: 9_990, Destination: out(dst),
		Sent: &Sent{Currency: "BTC", Amount: 10_000}, RefundStatus: RefundPending}
	done, _, _ = sats.FinishRefund(rail.Outcome{Status: catalog.TxCompleted, Funds: Lightning})
	balanced(t, "in satoshis", done)
	if want := []Leg{{"BTC", []Move{{Internal(dst), -9_990, -9_990}, {System(Lightning), 10_000, 0}, {System(FX), -10, 0}}}}; !reflect.DeepEqual(done.Legs, want) {
		t.Fatalf("in satoshis: %+v", done.Legs)
	}
}
