package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/invitation"
)

// CreatedInvitation is what the create step of an invitation answers: the UmaInvitation
// resource (JSON) for the API, and when the invitation expires.
type CreatedInvitation struct {
	Resource  json.RawMessage `json:"resource"`
	ExpiresAt time.Time       `json:"expiresAt"`
}

// CreateInvitation creates an invitation (see db.InvitationCreate). Running it again for
// the same code changes nothing. A refusal (no UMA domain, an inviter who is not a
// customer of the platform) is a non-retryable application error and nothing is written.
func (a *Activities) CreateInvitation(ctx context.Context, in invitation.Request) (CreatedInvitation, error) {
	inv, err := db.InvitationCreate(ctx, a.pool, in)
	if err != nil {
		return CreatedInvitation{}, refusal(err)
	}
	res, err := renderInvitation(inv, a.now())
	if err != nil {
		return CreatedInvitation{}, err
	}
	out := CreatedInvitation{Resource: res}
	if inv.ExpiresAt != nil {
		out.ExpiresAt = *inv.ExpiresAt
	}
	return out, nil
}

// ClaimInvitation claims an invitation with its INVITATION_CLAIMED event (see
// db.InvitationClaim) and returns the UmaInvitation as claimed. A refusal (claimed,
// cancelled or expired already, the inviter's own address) is a non-retryable
// application error.
func (a *Activities) ClaimInvitation(ctx context.Context, code string, c invitation.Claim) (json.RawMessage, error) {
	inv, err := db.InvitationClaim(ctx, a.pool, code, c, a.now(), true, view.InvitationClaimedEvent)
	if err != nil {
		return nil, refusal(err)
	}
	return renderInvitation(inv, a.now())
}

// CancelInvitation cancels an invitation (see db.InvitationCancel) and returns the
// UmaInvitation as cancelled. A refusal (another platform's, no longer pending) is a
// non-retryable application error.
func (a *Activities) CancelInvitation(ctx context.Context, code string, c invitation.Cancel) (json.RawMessage, error) {
	inv, err := db.InvitationCancel(ctx, a.pool, code, c, a.now(), true)
	if err != nil {
		return nil, refusal(err)
	}
	return renderInvitation(inv, a.now())
}

// ExpireInvitation expires an invitation nobody claimed or cancelled before its
// expiresAt (see db.InvitationExpire) and returns the status it ended with.
func (a *Activities) ExpireInvitation(ctx context.Context, code string) (catalog.InvitationStatus, error) {
	inv, err := db.InvitationExpire(ctx, a.pool, code)
	if err != nil {
		return "", err
	}
	return inv.Status, nil
}

// renderInvitation renders an invitation as it stands at now.
func renderInvitation(inv db.Invitation, now time.Time) (json.RawMessage, error) {
	res, err := json.Marshal(view.InvitationOf(inv, now))
	if err != nil {
		return nil, fmt.Errorf("render invitation: %w", err)
	}
	return res, nil
}
