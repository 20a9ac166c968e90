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
	"paycore/internal/problem"
)

// InvitationState is what the invitation rules read of a stored invitation.
func InvitationState(i Invitation) invitation.State {
	return invitation.State{Code: i.Code, PlatformID: i.PlatformID, InviterUma: i.InviterUma, Status: i.Status, ExpiresAt: i.ExpiresAt}
}

// EndedBy reports whether the request with key claimed or cancelled the invitation.
func (i Invitation) EndedBy(key string) bool {
	return i.EndKey != nil && *i.EndKey == key
}

// errInvitationNotFound is the refusal of a code no invitation of the environment has.
func errInvitationNotFound() error {
	return problem.NotFound(catalog.InvitationNotFound, "invitation")
}

// InvitationCreate creates an invitation in one database transaction: it reads the
// platform's UMA domain and the inviter customer (InvitationInviter), lets invitation.Admit
// refuse or admit it, and writes it PENDING. Creating an existing code again changes
// nothing and returns it.
func InvitationCreate(ctx context.Context, pool *pgxpool.Pool, r invitation.Request) (Invitation, error) {
	var out Invitation
	err := WithTx(ctx, pool, func(q *Queries, _ pgx.Tx) error {
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

// InvitationClaim claims an invitation in one database transaction: it locks it (as the
// claiming platform's environment sees it), applies invitation.CheckClaim at now (with the
// invitee as InvitationInviteeOf reads it), marks it
// CLAIMED and records the INVITATION_CLAIMED event (rendered by render) for the inviter's
// platform. A repeat of the claim that succeeded (the same key) changes nothing and
// returns the invitation.
func InvitationClaim(ctx context.Context, pool *pgxpool.Pool, code string, c invitation.Claim, now time.Time, render func(Invitation) any) (Invitation, error) {
	var out Invitation
	err := WithTx(ctx, pool, func(q *Queries, _ pgx.Tx) error {
		cur, err := lockInvitation(ctx, q, code, c.Environment)
		if err != nil {
			return err
		}
		if cur.EndedBy(c.Key) {
			out = cur
			return nil
		}
		invitee, err := InvitationInviteeOf(ctx, q, c)
		if err != nil {
			return err
		}
		if err := invitation.CheckClaim(InvitationState(cur), c, invitee, now); err != nil {
			return err
		}
		out, err = q.InvitationMarkClaimed(ctx, InvitationMarkClaimedParams{Code: code, InviteeUma: &c.InviteeUma,
			ClaimedByPlatformID: uuid.NullUUID{UUID: c.PlatformID, Valid: true}, EndKey: &c.Key})
		if err != nil {
			return fmt.Errorf("claim invitation: %w", err)
		}
		_, err = EventRecord(ctx, q, out.PlatformID, events.InvitationClaimed, render(out), false)
		return err
	})
	return out, err
}

// InvitationInviteeOf reads what invitation.CheckClaim reads of claim c's invitee.
func InvitationInviteeOf(ctx context.Context, q *Queries, c invitation.Claim) (invitation.Invitee, error) {
	ok, err := q.InvitationInvitee(ctx, InvitationInviteeParams{PlatformID: c.PlatformID, InviteeUma: c.InviteeUma})
	if err != nil {
		return invitation.Invitee{}, fmt.Errorf("read invitee: %w", err)
	}
	return invitation.Invitee{Customer: ok}, nil
}

// InvitationCancel cancels an invitation in one database transaction: it locks it (as the
// cancelling platform's environment sees it), applies invitation.CheckCancel at now and
// marks it CANCELLED. A repeat of the cancellation that succeeded (the same key) changes
// nothing and returns the invitation.
func InvitationCancel(ctx context.Context, pool *pgxpool.Pool, code string, c invitation.Cancel, now time.Time) (Invitation, error) {
	var out Invitation
	err := WithTx(ctx, pool, func(q *Queries, _ pgx.Tx) error {
		cur, err := lockInvitation(ctx, q, code, c.Environment)
		if err != nil {
			return err
		}
		if cur.EndedBy(c.Key) {
			out = cur
			return nil
		}
		if err := invitation.CheckCancel(InvitationState(cur), c, now); err != nil {
			return err
		}
		if out, err = q.InvitationMarkCancelled(ctx, InvitationMarkCancelledParams{Code: code, EndKey: &c.Key}); err != nil {
			return fmt.Errorf("cancel invitation: %w", err)
		}
		return nil
	})
	return out, err
}

// InvitationExpire marks a PENDING invitation EXPIRED (its workflow's timer fired) and
// returns it; one that was claimed or cancelled meanwhile is returned as it is.
func InvitationExpire(ctx context.Context, q *Queries, code string) (Invitation, error) {
	out, err := q.InvitationMarkExpired(ctx, code)
	if IsNotFound(err) {
		out, err = q.InvitationGetByCode(ctx, code)
	}
	if err != nil {
		return out, fmt.Errorf("expire invitation %s: %w", code, err)
	}
	return out, nil
}

// lockInvitation locks an invitation as a platform of env sees it.
func lockInvitation(ctx context.Context, q *Queries, code string, env catalog.Environment) (Invitation, error) {
	cur, err := q.InvitationLock(ctx, InvitationLockParams{Code: code, Environment: env})
	if IsNotFound(err) {
		return cur, errInvitationNotFound()
	}
	if err != nil {
		return cur, fmt.Errorf("lock invitation: %w", err)
	}
	return cur, nil
}
