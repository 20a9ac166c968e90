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

// Money that leaves for a crypto wallet reports its on-chain transaction, the same for
// the same key and shaped as its network writes hashes; a bank payout, and a payout that
// failed before anything left, report none.
func TestOnChainTransaction(t *testing.T) {
	pay := func(payment rail.Payment, accountType, identifier, key string) rail.Outcome {
		return sandboxrail.Outcome(rail.Instruction{Key: key, Payment: payment, Kind: rail.ExternalAccount, AccountType: accountType, Identifier: identifier})
	}
	evm := pay(rail.Payout, "BASE_WALLET", "0x00000000000000000000000000000000000000a1", "k1")
	if evm.OnChain == nil || evm.OnChain.Network != "BASE" || len(evm.OnChain.TransactionHash) != 66 || evm.OnChain.TransactionHash[:2] != "0x" {
		t.Fatalf("base payout: %+v", evm.OnChain)
	}
	if again := pay(rail.Payout, "BASE_WALLET", "0x00000000000000000000000000000000000000a1", "k1"); *again.OnChain != *evm.OnChain {
		t.Fatalf("the same key reported %+v, then %+v", evm.OnChain, again.OnChain)
	}
	if other := pay(rail.Payout, "BASE_WALLET", "0x00000000000000000000000000000000000000a1", "k2"); *other.OnChain == *evm.OnChain {
		t.Fatal("two payments share a hash")
	}
	if sol := pay(rail.TransferOut, "SOLANA_WALLET", "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV", "k3"); sol.OnChain == nil || sol.OnChain.Network != "SOLANA" || len(sol.OnChain.TransactionHash) < 86 {
		t.Fatalf("solana transfer: %+v", sol.OnChain)
	}
	if bank := pay(rail.Payout, "USD_ACCOUNT", "123456789001", "k4"); bank.OnChain != nil {
		t.Fatalf("a bank payout reported %+v", bank.OnChain)
	}
	if failed := pay(rail.Payout, "BASE_WALLET", "0x00000000000000000000000000000000000ab002", "k5"); failed.Status != catalog.TxFailed || failed.OnChain != nil {
		t.Fatalf("a payout refused before anything left: %+v", failed)
	}
	if in := pay(rail.TransferIn, "SOLANA_WALLET", "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV", "k6"); in.OnChain != nil {
		t.Fatalf("a transfer in reported %+v", in.OnChain)
	}
}
