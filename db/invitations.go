package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/invitation"
)

// InvitationState is what the invitation rules read of a stored invitation.
func InvitationState(i Invitation) invitation.State {
	return invitation.State{Code: i.Code, PlatformID: i.PlatformID, InviterUma: i.InviterUma, Status: i.Status, ExpiresAt: i.ExpiresAt, EndKey: Deref(i.EndKey)}
}

// InvitationCreate creates an invitation in one database transaction: it reads the
// platform's UMA domain and the inviter customer (InvitationInviter), lets invitation.Admit
// refuse or admit it, and writes it PENDING. Creating an existing code again changes
// nothing and returns it.
func InvitationCreate(ctx context.Context, pool *pgxpool.Pool, r invitation.Request) (Invitation, error) {
	var out Invitation
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		if existing, err := q.InvitationGetByCode(ctx, r.Code); err == nil {
			out = existing // created by an earlier attempt
			return nil
		} else if !IsNotFound(err) {
			return fmt.Errorf("read invitation: %w", err)
		}
		row, err := q.InvitationInviter(ctx, InvitationInviterParams{PlatformID: r.PlatformID, InviterUma: r.InviterUma})
		if err != nil {
			return fmt.Errorf("read inviter: %w", err)
		}
		terms, err := invitation.Admit(r, invitation.Inviter{UmaDomain: row.UmaDomain, Found: row.CustomerID.Valid,
			CustomerID: row.CustomerID.UUID, Currencies: row.Currencies})
		if err != nil {
			return err
		}
		p := InvitationInsertParams{Code: r.Code, PlatformID: r.PlatformID, InviterCustomerID: terms.CustomerID, InviterUma: r.InviterUma,
			FirstName: optional(r.FirstName), Currency: optional(terms.Currency), Url: r.URL, ExpiresAt: &r.ExpiresAt}
		if r.AmountToSend > 0 {
			p.AmountToSend = &r.AmountToSend
		}
		if err := q.InvitationInsert(ctx, p); err != nil {
			return fmt.Errorf("create invitation: %w", err)
		}
		if out, err = q.InvitationGetByCode(ctx, r.Code); err != nil {
			return fmt.Errorf("read invitation: %w", err)
		}
		return nil
	})
	return out, err
}

// InvitationClaim claims an invitation for c at now (see endInvitation; the claim is
// decided by invitation.State.Claim with the invitee as invitationInviteeOf reads it), with
// the INVITATION_CLAIMED event (rendered by render) for the inviter's platform.
func InvitationClaim(ctx context.Context, pool *pgxpool.Pool, code string, c invitation.Claim, now time.Time, open bool, render func(Invitation) any) (Invitation, error) {
	return endInvitation(ctx, pool, code, invitationEnding{claim: &c}, now, open, render)
}

// InvitationCancel cancels an invitation for c at now (see endInvitation; the
// cancellation is decided by invitation.State.Cancel).
func InvitationCancel(ctx context.Context, pool *pgxpool.Pool, code string, c invitation.Cancel, now time.Time, open bool) (Invitation, error) {
	return endInvitation(ctx, pool, code, invitationEnding{cancel: &c}, now, open, nil)
}

// invitationEnding is a claim or a cancellation of an invitation (exactly one is set).
type invitationEnding struct {
	claim  *invitation.Claim
	cancel *invitation.Cancel
}

// endInvitation applies a claim or a cancellation in one database transaction: it locks
// the invitation (as the requesting platform's environment sees it: another's is 404), lets
// the invitation's state machine decide at now (open: whether the invitation's workflow
// still runs), and writes what it decided: CLAIMED with the INVITATION_CLAIMED event
// (rendered by render) for the inviter's platform, or CANCELLED. A refusal is returned as
// it is, with nothing written; a repeat of the request that ended the invitation (the
// machine answers the status it has) changes nothing and returns it.
func endInvitation(ctx context.Context, pool *pgxpool.Pool, code string, e invitationEnding, now time.Time, open bool, render func(Invitation) any) (Invitation, error) {
	env := invitationEndingEnvironment(e)
	var out Invitation
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		cur, err := lockInvitation(ctx, q, code, env)
		if err != nil {
			return err
		}
		var next catalog.InvitationStatus
		if e.claim != nil {
			invitee, err := invitationInviteeOf(ctx, q, *e.claim)
			if err != nil {
				return err
			}
			next, err = InvitationState(cur).Claim(*e.claim, invitee, now, open)
			if err != nil {
				return err
			}
		} else if next, err = InvitationState(cur).Cancel(*e.cancel, now, open); err != nil {
			return err
		}
		switch {
		case next == cur.Status: // the request that ended it, repeated
			out = cur
			return nil
		case next == catalog.InvClaimed:
			key := e.claim.Key
			out, err = q.InvitationMarkClaimed(ctx, InvitationMarkClaimedParams{Code: code, InviteeUma: &e.claim.InviteeUma,
				ClaimedByPlatformID: uuid.NullUUID{UUID: e.claim.PlatformID, Valid: true}, EndKey: &key, Now: now})
			if err != nil {
				return fmt.Errorf("claim invitation: %w", err)
			}
			_, err = eventRecord(ctx, q, out.PlatformID, events.InvitationClaimed, render(out), nil)
			return err
		case next == catalog.InvCancelled:
			key := e.cancel.Key
			if out, err = q.InvitationMarkCancelled(ctx, InvitationMarkCancelledParams{Code: code, EndKey: &key, Now: now}); err != nil {
				return fmt.Errorf("cancel invitation: %w", err)
			}
			return nil
		}
		return fmt.Errorf("invitation %s: no way to end it %s", code, next)
	})
	return out, err
}

// invitationEndingEnvironment is the environment of the platform asking for e.
func invitationEndingEnvironment(e invitationEnding) catalog.Environment {
	if e.claim != nil {
		return e.claim.Environment
	}
	return e.cancel.Environment
}

// invitationInviteeOf reads what the claim rule (invitation.State.Claim) reads of claim
// c's invitee.
func invitationInviteeOf(ctx context.Context, q *queries, c invitation.Claim) (invitation.Invitee, error) {
	ok, err := q.InvitationInvitee(ctx, InvitationInviteeParams{PlatformID: c.PlatformID, InviteeUma: c.InviteeUma})
	if err != nil {
		return invitation.Invitee{}, fmt.Errorf("read invitee: %w", err)
	}
	return invitation.Invitee{Customer: ok}, nil
}

// InvitationExpire expires an invitation at its expiresAt (its workflow's timer fired) as
// invitation.State.Expire decides: a PENDING one becomes EXPIRED; one that was claimed or
// cancelled is returned as it is (the update is guarded by the status it was read in).
func InvitationExpire(ctx context.Context, d DBTX, code string) (Invitation, error) {
	q := newQueries(d)
	cur, err := q.InvitationGetByCode(ctx, code)
	if err != nil {
		return cur, fmt.Errorf("read invitation %s: %w", code, err)
	}
	if _, ok := InvitationState(cur).Expire(); !ok {
		return cur, nil
	}
	out, err := q.InvitationMarkExpired(ctx, code)
	if IsNotFound(err) { // claimed or cancelled meanwhile
		out, err = q.InvitationGetByCode(ctx, code)
	}
	if err != nil {
		return out, fmt.Errorf("expire invitation %s: %w", code, err)
	}
	return out, nil
}

// lockInvitation locks an invitation as a platform of env sees it.
func lockInvitation(ctx context.Context, q *queries, code string, env catalog.Environment) (Invitation, error) {
	cur, err := q.InvitationLock(ctx, InvitationLockParams{Code: code, Environment: env})
	if IsNotFound(err) {
		return cur, invitation.ErrNotFound()
	}
	if err != nil {
		return cur, fmt.Errorf("lock invitation: %w", err)
	}
	return cur, nil
}
