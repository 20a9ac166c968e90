package view

import (
	"time"

	"paycore/db"
	"paycore/internal/catalog"
)

// Invitation is a UMA invitation (UmaInvitation).
type Invitation struct {
	Code       string                   `json:"code"`
	CreatedAt  time.Time                `json:"createdAt"`
	ClaimedAt  *time.Time               `json:"claimedAt,omitempty"`
	URL        string                   `json:"url"`
	ExpiresAt  *time.Time               `json:"expiresAt,omitempty"`
	InviterUma string                   `json:"inviterUma"`
	InviteeUma string                   `json:"inviteeUma,omitempty"`
	Status     catalog.InvitationStatus `json:"status"`
	FirstName  *string                  `json:"firstName,omitempty"`
	// AmountToSend is shown only: the inviter's platform sends it after the claim.
	AmountToSend *CurrencyAmount `json:"amountToSend,omitempty"`
}

// InvitationClaimedEvent renders a claimed invitation for its INVITATION_CLAIMED event, as
// it stood when it was claimed (db.InvitationClaim's render).
func InvitationClaimedEvent(i db.Invitation) any { return InvitationOf(i, i.UpdatedAt) }

// InvitationOf renders an invitation as it stands at now: a PENDING one past its
// expiresAt shows EXPIRED before its workflow's timer has recorded it.
func InvitationOf(i db.Invitation, now time.Time) Invitation {
	out := Invitation{Code: i.Code, CreatedAt: i.CreatedAt, ClaimedAt: i.ClaimedAt, URL: i.Url, ExpiresAt: i.ExpiresAt,
		InviterUma: i.InviterUma, Status: db.InvitationState(i).StatusAt(now), FirstName: i.FirstName}
	if i.InviteeUma != nil {
		out.InviteeUma = *i.InviteeUma
	}
	if i.AmountToSend != nil && i.Currency != nil {
		a := AmountOf(*i.AmountToSend, *i.Currency)
		out.AmountToSend = &a
	}
	return out
}
