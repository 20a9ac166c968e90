package incoming

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/rail"
)

// The collection of a payment from another UMA provider: it collects only once approved,
// and an approval whose receiver lacks a required detail fails before any money comes; the
// rail's word decides how it ends: paid (with what it received), unpaid once the request can
// no longer be paid, not yet while it still can.
func TestCollection(t *testing.T) {
	remote := Request{Collect: &Collection{Sats: 10_000}}
	approved := Approve(map[string]string{"FULL_NAME": "Carol"})
	if !Collects(remote, approved) || Collects(Request{}, approved) || Collects(remote, Reject("no")) {
		t.Error("Collects")
	}
	if d := CheckPayee(Approve(nil), nil); d.Approved || d.Reason != ReasonMissingPayee {
		t.Errorf("an approval without the receiver's name: %+v", d)
	}
	if d := CheckPayee(Approve(nil), map[string]string{"FULL_NAME": "Carol R."}); !d.Approved {
		t.Errorf("an approval with the name the service knows: %+v", d)
	}
	if d := CheckPayee(Reject("no"), nil); d.Status != catalog.TxRejected {
		t.Errorf("a rejection checked: %+v", d)
	}
	d, ok := Collected(approved, rail.Collected{Paid: true, Amount: 10_050, Funds: "LIGHTNING"})
	if !ok || !d.Approved || d.Collected != 10_050 || d.Funds != "LIGHTNING" || d.ReceiverInfo["FULL_NAME"] != "Carol" {
		t.Errorf("paid: %+v %v", d, ok)
	}
	if out := d.Outcome(); out.Status != catalog.TxCompleted || out.Collected != 10_050 || out.Funds != "LIGHTNING" {
		t.Errorf("paid outcome: %+v", out)
	}
	if _, ok := Collected(approved, rail.Collected{Payable: true}); ok {
		t.Error("a request still payable ended the payment")
	}
	d, ok = Collected(approved, rail.Collected{})
	if !ok || d.Approved || d.Status != catalog.TxFailed || d.Reason != "QUOTE_EXPIRED" {
		t.Errorf("unpaid: %+v %v", d, ok)
	}
	if d := NotCollectable("node down"); d.Status != catalog.TxFailed || d.Reason != ReasonPayRequestFail {
		t.Errorf("no invoice: %+v", d)
	}
}
