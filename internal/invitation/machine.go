package invitation

import (
	"time"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// The state machine of an invitation. It is created PENDING; from there:
//
//	PENDING --Claim--> CLAIMED     (a platform of its environment, for one of its customers)
//	PENDING --Cancel--> CANCELLED  (the platform that created it)
//	PENDING --Expire--> EXPIRED    (its workflow's timer at expiresAt)
//
// CLAIMED, CANCELLED and EXPIRED are final. A pending invitation past its expiresAt is
// EXPIRED already for claims and cancellations (StatusAt). Another environment's
// invitation is not found. The request that ended it (State.EndKey), repeated, is answered
// with the invitation as it is: the transition returns the status it has, which changes
// nothing. Each transition returns the next status (for the db operation to apply under
// the invitation's lock, or the workflow to know) or a refusal with its stable code. open
// says whether the invitation's workflow still runs: only it ends an invitation, so once it
// has ended a claim or cancellation is answered (a repeat, or a refusal) but never taken.

// Claim decides whether c may claim the invitation at now for invitee: only in its own
// environment (else 404 INVITATION_NOT_FOUND), only a pending one (else the code of what
// it became), for a UMA address that is not the inviter's own and is one of the claiming
// platform's customers (else INVALID_UMA_ADDRESS: a platform speaks for its own customers
// only). It moves to CLAIMED.
func (s State) Claim(c Claim, invitee Invitee, now time.Time, open bool) (catalog.InvitationStatus, error) {
	if err := s.visibleIn(c.Environment); err != nil {
		return "", err
	}
	if s.endedBy(c.Key) {
		return s.Status, nil
	}
	if err := pending(s, now); err != nil {
		return "", err
	}
	if err := CheckInviteeUma(c.InviteeUma); err != nil {
		return "", err
	}
	if c.InviteeUma == s.InviterUma {
		return "", problem.FieldCode(catalog.InvalidUmaAddress, "inviteeUma", "an invitation cannot be claimed by its inviter (%s)", s.InviterUma)
	}
	if !invitee.Customer {
		return "", problem.FieldCode(catalog.InvalidUmaAddress, "inviteeUma", "inviteeUma %s is not the UMA address of one of the platform's customers", c.InviteeUma)
	}
	if !open {
		return "", errEnded()
	}
	return catalog.InvClaimed, nil
}

// Cancel decides whether c may cancel the invitation at now: only in its own environment
// (else 404), only the platform that created it (else FORBIDDEN, whatever the state), and
// only while it is pending. It moves to CANCELLED.
func (s State) Cancel(c Cancel, now time.Time, open bool) (catalog.InvitationStatus, error) {
	if err := s.visibleIn(c.Environment); err != nil {
		return "", err
	}
	if c.PlatformID != s.PlatformID {
		return "", problem.Refuse(catalog.Forbidden, "only the platform that created an invitation can cancel it")
	}
	if s.endedBy(c.Key) {
		return s.Status, nil
	}
	if err := pending(s, now); err != nil {
		return "", err
	}
	if !open {
		return "", errEnded()
	}
	return catalog.InvCancelled, nil
}

// endedBy reports whether the request with key ended the invitation.
func (s State) endedBy(key string) bool {
	return key != "" && s.EndKey == key
}

// errEnded refuses a claim or cancellation of an invitation still pending as stored whose
// workflow has ended (it was stopped by hand): nothing can end it any more.
func errEnded() error {
	return problem.Refuse(catalog.Conflict, "the invitation's workflow has ended; it can no longer be claimed or cancelled")
}

// Expire is the expiry of the invitation at its expiresAt: a PENDING one becomes EXPIRED
// (ok); one claimed or cancelled before stays as it is.
func (s State) Expire() (next catalog.InvitationStatus, ok bool) {
	if s.Status != catalog.InvPending {
		return s.Status, false
	}
	return catalog.InvExpired, true
}

// ErrNotFound is the refusal of a code no invitation of the environment has.
func ErrNotFound() error {
	return problem.NotFound(catalog.InvitationNotFound, "invitation")
}

// visibleIn refuses an invitation of another environment than env as not found; a state
// whose environment is not known is not checked.
func (s State) visibleIn(env catalog.Environment) error {
	if s.Environment != "" && env != s.Environment {
		return ErrNotFound()
	}
	return nil
}

// pending refuses an invitation that is no longer pending at now, with the code of what
// it became.
func pending(s State, now time.Time) error {
	switch s.StatusAt(now) {
	case catalog.InvClaimed:
		return problem.Refuse(catalog.InvitationAlreadyClaimed, "the invitation has already been claimed")
	case catalog.InvCancelled:
		return problem.Refuse(catalog.InvitationCancelled, "the invitation was cancelled")
	case catalog.InvExpired:
		return problem.Refuse(catalog.InvitationExpired, "the invitation has expired")
	}
	return nil
}
