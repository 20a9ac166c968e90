// Package sandboxrail is the sandbox's payment rail, an adapter of the rail port
// (internal/rail): it settles nothing and answers the outcome the destination's magic
// value selects (the rules stay in internal/sandbox and, for UMA addresses, in
// internal/incoming's sandbox counterparties). It serves sandbox platforms only.
package sandboxrail

import (
	"context"

	"paycore/internal/catalog"
	"paycore/internal/extaccount"
	"paycore/internal/incoming"
	"paycore/internal/rail"
	"paycore/internal/sandbox"
)

// Name is the sandbox rail's name in PAYCORE_RAILS.
const Name = "sandbox"

// Rail is the sandbox rail. It keeps no state: an outcome is a function of the
// instruction, so submitting the same key again answers the same outcome.
type Rail struct{}

// Name is "sandbox".
func (Rail) Name() string { return Name }

// Capabilities: every currency and kind of destination, sandbox platforms only; payments to
// external accounts can be cancelled until they settle; completed incoming payments can be
// refunded; payments settle at once (the slow scenarios wait in the workflow).
func (Rail) Capabilities() rail.Capabilities {
	return rail.Capabilities{Environments: []catalog.Environment{catalog.Sandbox}, Kinds: rail.Kinds, Cancellable: true, Refunds: true}
}

// Submit answers Outcome(in).
func (Rail) Submit(_ context.Context, in rail.Instruction) (rail.Outcome, error) {
	return Outcome(in), nil
}

// LivenessPasses is the sandbox provider's verdict on the owner of the wallet at address
// (rail.LivenessChecker): sandbox.LivenessPasses, a magic ending.
func (Rail) LivenessPasses(_ context.Context, address string) (bool, error) {
	return sandbox.LivenessPasses(address), nil
}

// Track is rail.ErrNotFound: the sandbox records nothing, and submitting the instruction
// again under its key answers the same outcome.
func (Rail) Track(context.Context, string) (rail.Outcome, error) {
	return rail.Outcome{}, rail.ErrNotFound
}

// Cancel accepts cancelling a payment to an external account (a bank transfer, which the
// sandbox settles when its slow scenario ends: the workflow asks only while it waits) and
// refuses one to a UMA address (rail.ErrNotCancellable), paid over Lightning, whose
// payments cannot be recalled.
func (Rail) Cancel(_ context.Context, in rail.Instruction) error {
	if in.Kind == rail.UMA {
		return rail.ErrNotCancellable
	}
	return nil
}

// Outcome is how the sandbox ends a payment: a transfer as its external account's
// identifier selects (sandbox.TransferOutcome), a quote's payout to an external account
// likewise (sandbox.QuoteOutcome), a payout to one of the sandbox's UMA counterparties as
// its scenario says (success completes, pending.long completes after the slow delay,
// fail.compliance fails before any money leaves); a payout to a crypto wallet that left
// reports its on-chain transaction (sandbox.OnChain). A refund goes back to an external
// account as sandbox.RefundOutcome says, to a sandbox sender as its scenario says.
func Outcome(in rail.Instruction) rail.Outcome {
	switch {
	case in.Kind == rail.UMA:
		return umaOutcome(in.Identifier)
	case in.Payment == rail.Payout:
		return onChain(in, sandbox.QuoteOutcome(in.Identifier))
	case in.Payment == rail.Refund:
		return sandbox.RefundOutcome(in.Identifier)
	case in.Payment == rail.TransferOut:
		return onChain(in, sandbox.TransferOutcome(in.Identifier))
	}
	return sandbox.TransferOutcome(in.Identifier)
}

// onChain is out with, for money that left for a crypto wallet, its on-chain transaction.
func onChain(in rail.Instruction, out rail.Outcome) rail.Outcome {
	if out.Status == catalog.TxCompleted || out.PaidOut {
		out.OnChain = sandbox.OnChain(extaccount.Network(in.AccountType), in.Key)
	}
	return out
}

func umaOutcome(address string) rail.Outcome {
	c, _ := incoming.SandboxCounterparty("", address) // checked when the quote was made
	switch c.Scenario {
	case incoming.ScenarioPendingLong:
		return rail.Outcome{Status: catalog.TxCompleted, Slow: true}
	case incoming.ScenarioFailCompliance:
		return rail.Outcome{Status: catalog.TxFailed, Code: catalog.FailCompliance, Message: "the receiver's compliance check refused the payment",
			FailureReason: sandbox.ReasonQuoteExecutionFailed}
	}
	return rail.Outcome{Status: catalog.TxCompleted}
}
