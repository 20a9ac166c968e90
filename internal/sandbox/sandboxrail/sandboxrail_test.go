package sandboxrail_test

import (
	"context"
	"errors"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/incoming"
	"paycore/internal/rail"
	"paycore/internal/sandbox"
	"paycore/internal/sandbox/sandboxrail"
)

// The adapter answers exactly what the sandbox's rules say, suffix by suffix.
func TestSubmitIsTheSandboxRules(t *testing.T) {
	r := sandboxrail.Rail{}
	for _, suffix := range []string{"001", "002", "003", "004", "005", "006", "007", "008", "999"} {
		id := "12345678" + suffix
		for _, tc := range []struct {
			payment rail.Payment
			want    rail.Outcome
		}{
			{rail.TransferOut, sandbox.TransferOutcome(id)},
			{rail.TransferIn, sandbox.TransferOutcome(id)},
			{rail.Payout, sandbox.QuoteOutcome(id)},
		} {
			got, err := r.Submit(context.Background(), rail.Instruction{Key: "k", Payment: tc.payment, Environment: catalog.Sandbox, Currency: "USD",
				Kind: rail.ExternalAccount, Identifier: id})
			if err != nil || got != tc.want {
				t.Errorf("%s %s: %+v %v, want %+v", tc.payment, suffix, got, err, tc.want)
			}
		}
	}
	for address, want := range map[string]rail.Outcome{
		"$success.usd@" + incoming.SandboxDomain:         {Status: catalog.TxCompleted},
		"$pending.long.usd@" + incoming.SandboxDomain:    {Status: catalog.TxCompleted, Slow: true},
		"$fail.compliance.usd@" + incoming.SandboxDomain: {Status: catalog.TxFailed, Code: catalog.FailCompliance, Message: "the receiver's compliance check refused the payment", FailureReason: sandbox.ReasonQuoteExecutionFailed},
	} {
		if got := sandboxrail.Outcome(rail.Instruction{Payment: rail.Payout, Kind: rail.UMA, Identifier: address}); got != want {
			t.Errorf("%s: %+v", address, got)
		}
	}
}

func TestCapabilities(t *testing.T) {
	r := sandboxrail.Rail{}
	c := r.Capabilities()
	if !c.Serves(rail.Target{Environment: catalog.Sandbox, Currency: "EUR", Kind: rail.UMA}) || c.Serves(rail.Target{Environment: catalog.Production, Currency: "USD", Kind: rail.ExternalAccount}) || !c.Cancellable {
		t.Fatalf("capabilities %+v", c)
	}
	if _, err := r.Track(context.Background(), "k"); !errors.Is(err, rail.ErrNotFound) {
		t.Fatalf("track: %v", err)
	}
	// A bank transfer waiting in its slow scenario can be cancelled; a UMA payment cannot.
	if err := r.Cancel(context.Background(), rail.Instruction{Key: "k", Kind: rail.ExternalAccount}); err != nil {
		t.Fatalf("cancel a payment to an external account: %v", err)
	}
	if err := r.Cancel(context.Background(), rail.Instruction{Key: "k", Kind: rail.UMA}); !errors.Is(err, rail.ErrNotCancellable) {
		t.Fatalf("cancel a payment to a UMA address: %v", err)
	}
}
