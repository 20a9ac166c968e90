package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/invitation"
)

var errInvitationNotFound = notFound(catalog.InvitationNotFound, "invitation")

// environment is the environment of the caller's platform.
func (p Principal) environment() catalog.Environment {
	if p.Sandbox {
		return catalog.Sandbox
	}
	return catalog.Production
}

// createInvitation is POST /invitations: the invitation's workflow checks and persists it
// (its create update) before this handler answers 201 with the UmaInvitation; the handler
// decodes the request and checks its shape. The code is random (see invitation.NewCode),
// the url is the code under the configured invitation base URL.
func (s *Server) createInvitation(w http.ResponseWriter, r *http.Request) error {
	in, err := ReadJSON[invitation.Input](r)
	if err != nil {
		return err
	}
	code := invitation.NewCode()
	req, err := invitation.NewRequest(principalFrom(r.Context()).PlatformID, code, invitation.URL(s.Config.InvitationBase(), code), in, time.Now())
	if err != nil {
		return err
	}
	created, err := s.start.Invitation(r.Context(), req)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusCreated, created)
	return nil
}

// getInvitation is GET /invitations/{invitationCode}: any platform of the inviter's
// environment reads it (the code is shared with the invitee's platform by design).
func (s *Server) getInvitation(w http.ResponseWriter, r *http.Request) error {
	inv, err := s.loadInvitation(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view.InvitationOf(inv, time.Now()))
	return nil
}

type claimInvitationBody struct {
	InviteeUma *string `json:"inviteeUma"`
}

// claimInvitation is POST /invitations/{invitationCode}/claim: a platform of the
// inviter's environment claims the invitation for its customer's UMA address; the
// inviter's platform gets INVITATION_CLAIMED.
func (s *Server) claimInvitation(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[claimInvitationBody](r)
	if err != nil {
		return err
	}
	if b.InviteeUma == nil {
		return invalidField("inviteeUma", "inviteeUma is required: the UMA address of the customer claiming the invitation")
	}
	if err := invitation.CheckInviteeUma(*b.InviteeUma); err != nil {
		return err
	}
	inv, err := s.loadInvitation(r)
	if err != nil {
		return err
	}
	p := principalFrom(r.Context())
	c := invitation.Claim{PlatformID: p.PlatformID, Environment: p.environment(), InviteeUma: *b.InviteeUma, Key: requestKey(r)}
	invitee, err := db.InvitationInviteeOf(r.Context(), s.q, c)
	if err != nil {
		return err
	}
	return s.endInvitation(w, r, inv, c.Key,
		func(st invitation.State, now time.Time) error { return invitation.CheckClaim(st, c, invitee, now) },
		func(ctx context.Context) (json.RawMessage, error) { return s.start.ClaimInvitation(ctx, inv.Code, c) })
}

// cancelInvitation is POST /invitations/{invitationCode}/cancel: only the platform that
// created the invitation cancels it (403 for another), and only while it is pending.
func (s *Server) cancelInvitation(w http.ResponseWriter, r *http.Request) error {
	inv, err := s.loadInvitation(r)
	if err != nil {
		return err
	}
	p := principalFrom(r.Context())
	c := invitation.Cancel{PlatformID: p.PlatformID, Environment: p.environment(), Key: requestKey(r)}
	return s.endInvitation(w, r, inv, c.Key,
		func(st invitation.State, now time.Time) error { return invitation.CheckCancel(st, c, now) },
		func(ctx context.Context) (json.RawMessage, error) { return s.start.CancelInvitation(ctx, inv.Code, c) })
}

// endInvitation answers a claim or cancellation (key identifies the request): the rule
// (check) on the invitation as stored refuses at once what it can; otherwise send hands the
// request to the invitation's workflow, whose step applies the same rule under the row's
// lock. A request the workflow no longer takes (it ended, or rejected it because the
// invitation ended meanwhile) is answered from the invitation as stored then.
func (s *Server) endInvitation(w http.ResponseWriter, r *http.Request, inv db.Invitation, key string,
	check func(invitation.State, time.Time) error, send func(context.Context) (json.RawMessage, error)) error {
	if inv.EndedBy(key) { // this request, repeated
		writeJSON(w, http.StatusOK, view.InvitationOf(inv, time.Now()))
		return nil
	}
	if err := check(db.InvitationState(inv), time.Now()); err != nil {
		return err
	}
	res, err := send(r.Context())
	if err == nil {
		writeRaw(w, http.StatusOK, res)
		return nil
	}
	if errorOf(err) != nil {
		return err // refused under the lock
	}
	cur, rerr := s.loadInvitation(r)
	if rerr != nil {
		return fmt.Errorf("%w (and reading the invitation: %w)", err, rerr)
	}
	if cur.EndedBy(key) {
		writeJSON(w, http.StatusOK, view.InvitationOf(cur, time.Now()))
		return nil
	}
	if cerr := check(db.InvitationState(cur), time.Now()); cerr != nil {
		return cerr
	}
	return err
}

// loadInvitation reads the invitation whose code is in the path as the caller's
// environment sees it: a malformed code, an unknown one or another environment's is 404
// INVITATION_NOT_FOUND.
func (s *Server) loadInvitation(r *http.Request) (db.Invitation, error) {
	code, ok := invitation.ParseCode(pathParam(r, "invitationCode"))
	if !ok {
		return db.Invitation{}, errInvitationNotFound
	}
	inv, err := s.q.InvitationGet(r.Context(), db.InvitationGetParams{Code: code, Environment: principalFrom(r.Context()).environment()})
	if isNoRows(err) {
		return inv, errInvitationNotFound
	}
	if err != nil {
		return inv, fmt.Errorf("read invitation %s: %w", code, err)
	}
	return inv, nil
}
