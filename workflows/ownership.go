package workflows

import (
	"encoding/json"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/ids"
	"paycore/internal/ownership"
)

// The updates of a wallet's ownership verification workflow: UpdateOwnershipChallenge
// issues a challenge (its argument the ownership.Method) and answers with the
// ownership.Challenge; UpdateOwnershipVerify answers a WALLET_SIGNATURE challenge (an
// ownership.Answer) and answers with the ExternalAccount.
const (
	UpdateOwnershipChallenge = "challenge"
	UpdateOwnershipVerify    = "verify"
)

// OwnershipInput starts the ownership verification of one wallet. LivenessDelay is how
// long the sandbox's liveness provider takes to decide (a durable timer).
type OwnershipInput struct {
	Target        ownership.Target
	LivenessDelay time.Duration
}

// OwnershipWorkflowID is the id of the ownership verification of an external account: one
// runs per account at a time, so its challenges and answers are serialised.
func OwnershipWorkflowID(in OwnershipInput) string {
	return "external-account-ownership/" + ids.Format(ids.ExternalAccount, in.Target.AccountID)
}

// OwnershipSearchAttributes are the attributes the workflow starts with, so an operator
// finds it by platform or customer.
func OwnershipSearchAttributes(in OwnershipInput) temporal.SearchAttributes {
	attrs := []temporal.SearchAttributeUpdate{AttrPlatformID.ValueSet(ids.Format(ids.Platform, in.Target.PlatformID))}
	if in.Target.Customer.Valid {
		attrs = append(attrs, AttrCustomerID.ValueSet(ids.Format(ids.Customer, in.Target.Customer.UUID)))
	}
	return temporal.NewSearchAttributes(attrs...)
}

// OwnershipVerification is the ownership verification of one self-custody wallet
// (internal/ownership). The API starts it (or joins the run under way) with
// Update-with-Start. A challenge update issues a challenge, replacing any outstanding one;
// a verify update decides a signature at once. A LIVENESS challenge (sandbox platforms
// only) is decided by the sandbox's provider after LivenessDelay, unless another challenge
// replaced it meanwhile (that one's outcome is then awaited). The workflow ends when no
// update is in flight and no liveness check is pending; the next request starts a new run.
func OwnershipVerification(ctx workflow.Context, in OwnershipInput) error {
	var (
		updates, inFlight int
		changed           bool
		liveness          *time.Time // the pending liveness check's challenge expiry
	)
	var a *activities.Activities
	challenge := func(ctx workflow.Context, m ownership.Method) (ownership.Challenge, error) {
		updates++
		inFlight++
		defer func() { inFlight--; changed = true }()
		ch, err := result[ownership.Challenge](ctx, workflow.ExecuteLocalActivity(LocalStep(ctx), a.StartOwnershipChallenge, in.Target, m))
		if err != nil {
			return ch, err
		}
		liveness = nil
		if ch.Method == ownership.Liveness {
			liveness = &ch.ExpiresAt
		}
		return ch, nil
	}
	verify := func(ctx workflow.Context, r ownership.Answer) (json.RawMessage, error) {
		updates++
		inFlight++
		defer func() { inFlight--; changed = true }()
		return result[json.RawMessage](ctx, workflow.ExecuteLocalActivity(LocalStep(ctx), a.VerifyOwnership, in.Target, r))
	}
	if err := workflow.SetUpdateHandler(ctx, UpdateOwnershipChallenge, challenge); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateOwnershipVerify, verify, workflow.UpdateHandlerOptions{
		Validator: func(_ workflow.Context, r ownership.Answer) error { return coded(r.Check()) }}); err != nil {
		return err
	}
	// A run is started by the update it carries (Update-with-Start); it waits for it.
	if _, err := workflow.AwaitWithTimeout(ctx, time.Minute, func() bool { return updates > 0 }); err != nil {
		return err
	}
	for {
		if liveness != nil {
			pending := *liveness
			changed = false
			replaced, err := workflow.AwaitWithTimeout(ctx, in.LivenessDelay, func() bool { return changed && (liveness == nil || !liveness.Equal(pending)) })
			if err != nil {
				return err
			}
			if replaced {
				continue
			}
			if err := workflow.ExecuteActivity(DatabaseStep(ctx), a.DecideLiveness, in.Target.AccountID, pending).Get(ctx, nil); err != nil {
				return err
			}
			if liveness != nil && liveness.Equal(pending) {
				liveness = nil
			}
			continue
		}
		if inFlight == 0 {
			return nil
		}
		changed = false
		if err := workflow.Await(ctx, func() bool { return changed }); err != nil {
			return err
		}
	}
}
