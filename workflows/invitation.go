package workflows

import (
	"encoding/json"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/invitation"
)

// UpdateClaim is the update that claims an invitation (its argument is an
// invitation.Claim) and answers with the UmaInvitation as claimed.
const UpdateClaim = "claim"

// UpdateCancel is the update that cancels an invitation (its argument is an
// invitation.Cancel) and answers with the UmaInvitation as cancelled.
const UpdateCancel = "cancel"

// InvitationWorkflowID is the id of an invitation's workflow: one per code.
func InvitationWorkflowID(code string) string {
	return "invitation/" + code
}

// InvitationSearchAttributes are the search attributes an invitation's workflow starts
// with: its platform.
func InvitationSearchAttributes(platformID uuid.UUID) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(AttrPlatformID.ValueSet(ids.Format(ids.Platform, platformID)))
}

// Invitation is the life of a UMA invitation, one workflow per code.
//
// The API starts it with Update-with-Start: UpdateCreate checks and persists the PENDING
// invitation (a refusal ends the workflow with nothing written). It then waits, on a
// durable timer until its expiresAt, for an UpdateClaim or UpdateCancel. The updates run
// one at a time, each applying the rule under the invitation's row lock, so of concurrent
// claims and cancellations exactly one succeeds and the others are refused with what the
// invitation became; a refused one (the inviter's own address) leaves it pending. The first
// that succeeds ends the invitation, CLAIMED (with the INVITATION_CLAIMED webhook to the
// inviter's platform) or CANCELLED; at expiresAt a still pending invitation becomes
// EXPIRED. The updates' validators apply the invitation's state machine to what the
// workflow knows of it (its platform and environment, its inviter, its expiry, how it
// ended, and by which request: that request repeated is taken, and answered with the
// invitation) and reject with the machine's coded refusal, which the API answers as it is;
// the invitee is checked under the lock.
func Invitation(ctx workflow.Context, in invitation.Request) error {
	var created activities.CreatedInvitation
	ok, err := awaitCreate(ctx, func(ctx workflow.Context) (json.RawMessage, error) {
		var a *activities.Activities
		c, err := result[activities.CreatedInvitation](ctx, workflow.ExecuteLocalActivity(ctx, a.CreateInvitation, in))
		created = c
		return c.Resource, err
	})
	if err != nil || !ok {
		return err
	}

	// busy serializes the steps that change the invitation (the updates and the expiry);
	// ended is set once one of them ended it, state.Status says how.
	var busy, ended bool
	exp := in.ExpiresAt
	state := invitation.State{Code: in.Code, PlatformID: in.PlatformID, Environment: in.Environment, InviterUma: in.InviterUma,
		Status: catalog.InvPending, ExpiresAt: &exp}
	step := func(ctx workflow.Context, to catalog.InvitationStatus, key string, run func(ctx workflow.Context) (json.RawMessage, error)) (json.RawMessage, error) {
		if err := workflow.Await(ctx, func() bool { return !busy }); err != nil {
			return nil, err
		}
		busy = true
		defer func() { busy = false }()
		r, err := run(LocalStep(ctx))
		if err == nil && !ended {
			ended, state.Status, state.EndKey = true, to, key
		}
		return r, err
	}
	var a *activities.Activities
	err = workflow.SetUpdateHandlerWithOptions(ctx, UpdateClaim, func(ctx workflow.Context, c invitation.Claim) (json.RawMessage, error) {
		return step(ctx, catalog.InvClaimed, c.Key, func(ctx workflow.Context) (json.RawMessage, error) {
			return result[json.RawMessage](ctx, workflow.ExecuteLocalActivity(ctx, a.ClaimInvitation, in.Code, c))
		})
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, c invitation.Claim) error {
		// Whether the invitee is one of the claiming platform's customers is read under
		// the lock; everything else the workflow knows.
		_, err := state.Claim(c, invitation.Invitee{Customer: true}, workflow.Now(ctx), true)
		return coded(err)
	}})
	if err != nil {
		return err
	}
	err = workflow.SetUpdateHandlerWithOptions(ctx, UpdateCancel, func(ctx workflow.Context, c invitation.Cancel) (json.RawMessage, error) {
		return step(ctx, catalog.InvCancelled, c.Key, func(ctx workflow.Context) (json.RawMessage, error) {
			return result[json.RawMessage](ctx, workflow.ExecuteLocalActivity(ctx, a.CancelInvitation, in.Code, c))
		})
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, c invitation.Cancel) error {
		_, err := state.Cancel(c, workflow.Now(ctx), true)
		return coded(err)
	}})
	if err != nil {
		return err
	}

	wait := created.ExpiresAt.Sub(workflow.Now(ctx))
	if _, err := workflow.AwaitWithTimeout(ctx, wait, func() bool { return ended }); err != nil {
		return err
	}
	// A claim or cancellation under way when the timer fired decides first (the database
	// refuses one that came too late); then a still pending invitation expires.
	if err := workflow.Await(ctx, func() bool { return !busy }); err != nil {
		return err
	}
	if !ended {
		busy, ended, state.Status = true, true, catalog.InvExpired
		var status catalog.InvitationStatus
		if err := workflow.ExecuteLocalActivity(LocalStep(ctx), a.ExpireInvitation, in.Code).Get(ctx, &status); err != nil {
			return err
		}
		if status != "" {
			state.Status = status
		}
		busy = false
	}
	// Updates taken before the invitation ended get their answer (a refusal) first.
	return allHandlersFinished(ctx)
}
