package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"paycore/db"
	"paycore/internal/ids"
	"paycore/internal/ownership"
	"paycore/internal/rail"
	"paycore/internal/sandbox"
	"paycore/workflows"
)

// livenessPagePath is where a sandbox LIVENESS challenge's verificationLink points: the
// service's stand-in for a liveness provider's hosted page.
const livenessPagePath = "/sandbox/liveness"

// ownershipChallenge is the answer to a challenge request: WalletSignatureChallenge
// (messageToSign) or LivenessChallenge (verificationLink).
type ownershipChallenge struct {
	Method           ownership.Method `json:"method"`
	MessageToSign    string           `json:"messageToSign,omitempty"`
	VerificationLink string           `json:"verificationLink,omitempty"`
	ExpiresAt        time.Time        `json:"expiresAt"`
}

func (s *Server) challengeOwnership(platformOwned bool) http.HandlerFunc {
	return handler(func(w http.ResponseWriter, r *http.Request) error {
		in, err := ReadJSON[struct {
			Method *string `json:"method"`
		}](r)
		if err != nil {
			return err
		}
		t, route, err := s.ownershipTarget(r, platformOwned)
		if err != nil {
			return err
		}
		_, offered := s.Rails.LivenessChecker(route)
		m, err := ownership.CheckMethod(in.Method, offered)
		if err != nil {
			return err
		}
		raw, err := s.start.Ownership(r.Context(), s.ownershipInput(t), workflows.UpdateOwnershipChallenge, m)
		if err != nil {
			return err
		}
		var ch ownership.Challenge
		if err := json.Unmarshal(raw, &ch); err != nil {
			return fmt.Errorf("decode ownership challenge: %w", err)
		}
		out := ownershipChallenge{Method: ch.Method, MessageToSign: ch.Message, ExpiresAt: ch.ExpiresAt}
		if ch.Method == ownership.Liveness {
			out.VerificationLink = s.Config.PublicBaseURL + livenessPagePath
		}
		writeJSON(w, http.StatusCreated, out)
		return nil
	})
}

func (s *Server) verifyOwnership(platformOwned bool) http.HandlerFunc {
	return handler(func(w http.ResponseWriter, r *http.Request) error {
		in, err := ReadJSON[ownership.Answer](r)
		if err != nil {
			return err
		}
		if err := in.Check(); err != nil {
			return err
		}
		t, _, err := s.ownershipTarget(r, platformOwned)
		if err != nil {
			return err
		}
		out, err := s.start.Ownership(r.Context(), s.ownershipInput(t), workflows.UpdateOwnershipVerify, in)
		if err != nil {
			return err
		}
		writeRaw(w, http.StatusOK, out)
		return nil
	})
}

// ownershipTarget is the wallet in the path as the route reaches it (the platform's own
// accounts, or its customers'), with what routes payments to it to a rail: one it does not
// reach is 404 before any workflow starts (the workflow's steps check it again under lock).
func (s *Server) ownershipTarget(r *http.Request, platformOwned bool) (ownership.Target, rail.Target, error) {
	id, err := pathID(r, "externalAccountId", ids.ExternalAccount, errExternalNotFound)
	if err != nil {
		return ownership.Target{}, rail.Target{}, err
	}
	pr := principalFrom(r.Context())
	e, err := db.ExternalAccountGet(r.Context(), s.Pool, db.ExternalAccountGetParams{PlatformID: pr.PlatformID, ID: id})
	if isNoRows(err) || (err == nil && !(extOwner{platform: platformOwned}).owns(e)) {
		return ownership.Target{}, rail.Target{}, errExternalNotFound
	}
	if err != nil {
		return ownership.Target{}, rail.Target{}, err
	}
	return ownership.Target{PlatformID: pr.PlatformID, AccountID: id, PlatformOwned: platformOwned, Sandbox: pr.Sandbox},
		db.ExternalAccountTarget(e, pr.environment()), nil
}

func (s *Server) ownershipInput(t ownership.Target) workflows.OwnershipInput {
	return workflows.OwnershipInput{Target: t, LivenessDelay: s.Config.KycReviewDelay}
}

// serveLivenessPage is GET /sandbox/liveness: the page a sandbox LIVENESS challenge's
// verificationLink opens. There is nothing to do on it: the sandbox's provider decides by
// itself after the review delay.
func (s *Server) serveLivenessPage(w http.ResponseWriter, _ *http.Request) error {
	renderPage(w, http.StatusOK, "liveness", struct{ Title, Message, Note string }{
		Title: "Sandbox liveness check",
		Message: fmt.Sprintf("This stands in for a liveness provider's hosted check. Nothing is asked of you here: the check of a sandbox "+
			"wallet completes by itself within %s, and fails for a wallet whose address ends in %q.", s.Config.KycReviewDelay, sandbox.LivenessDead),
		Note: "The outcome arrives as an EXTERNAL_ACCOUNT_STATUS_UPDATED webhook, and in the external account's status.",
	}, "")
	return nil
}
