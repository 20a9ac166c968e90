package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/invitation"
	"paycore/workflows/start"
)

var errInvitationNotFound = errorOf(invitation.ErrNotFound())

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
	p := principalFrom(r.Context())
	req, err := invitation.NewRequest(p.PlatformID, code, invitation.URL(s.Config.InvitationBase(), code), in, s.now())
	if err != nil {
		return err
	}
	req.Environment = p.environment()
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
	writeJSON(w, http.StatusOK, view.InvitationOf(inv, s.now()))
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
	p := principalFrom(r.Context())
	c := invitation.Claim{PlatformID: p.PlatformID, Environment: p.environment(), InviteeUma: *b.InviteeUma, Key: requestKey(r)}
	return s.endInvitation(w, r,
		func(ctx context.Context, code string) (json.RawMessage, error) {
			return s.start.ClaimInvitation(ctx, code, c)
		},
		func(ctx context.Context, code string) (db.Invitation, error) {
			return db.InvitationClaim(ctx, s.Pool, code, c, s.now(), false, view.InvitationClaimedEvent)
		})
}

// cancelInvitation is POST /invitations/{invitationCode}/cancel: only the platform that
// created the invitation cancels it (403 for another), and only while it is pending.
func (s *Server) cancelInvitation(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	c := invitation.Cancel{PlatformID: p.PlatformID, Environment: p.environment(), Key: requestKey(r)}
	return s.endInvitation(w, r,
		func(ctx context.Context, code string) (json.RawMessage, error) {
			return s.start.CancelInvitation(ctx, code, c)
		},
		func(ctx context.Context, code string) (db.Invitation, error) {
			return db.InvitationCancel(ctx, s.Pool, code, c, s.now(), false)
		})
}

// endInvitation answers a claim or cancellation of the invitation whose code is in the
// path: send hands it to the invitation's workflow, whose validator and step (under the
// row's lock) apply the invitation's state machine and answer the invitation as it ended,
// or the machine's coded refusal, returned as it is. An invitation whose workflow has ended
// (or that does not exist) takes no claim or cancellation: ended answers in its place,
// under the invitation's lock, with the repeat of the request that ended it or the
// machine's refusal, and writes nothing.
func (s *Server) endInvitation(w http.ResponseWriter, r *http.Request,
	send func(context.Context, string) (json.RawMessage, error), ended func(context.Context, string) (db.Invitation, error)) error {
	code, ok := invitation.ParseCode(pathParam(r, "invitationCode"))
	if !ok {
		return errInvitationNotFound
	}
	res, err := send(r.Context(), code)
	if errors.Is(err, start.ErrWorkflowClosed) {
		inv, err := ended(r.Context(), code)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, view.InvitationOf(inv, s.now()))
		return nil
	}
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, res)
	return nil
}

// loadInvitation reads the invitation whose code is in the path as the caller's
// environment sees it: a malformed code, an unknown one or another environment's is 404
// INVITATION_NOT_FOUND.
func (s *Server) loadInvitation(r *http.Request) (db.Invitation, error) {
	code, ok := invitation.ParseCode(pathParam(r, "invitationCode"))
	if !ok {
		return db.Invitation{}, errInvitationNotFound
	}
	inv, err := db.InvitationGet(r.Context(), s.Pool, db.InvitationGetParams{Code: code, Environment: principalFrom(r.Context()).environment()})
	if isNoRows(err) {
		return inv, errInvitationNotFound
	}
	if err != nil {
		return inv, fmt.Errorf("read invitation %s: %w", code, err)
	}
	return inv, nil
}
