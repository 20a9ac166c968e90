package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
	"paycore/internal/sandbox"
	"paycore/internal/walletauth"
)

// credParams are the credential algorithms accepted at registration.
func credParams() []protocol.CredentialParameter {
	return []protocol.CredentialParameter{
		{Type: protocol.PublicKeyCredentialType, Algorithm: webauthncose.AlgES256},
		{Type: protocol.PublicKeyCredentialType, Algorithm: webauthncose.AlgRS256},
		{Type: protocol.PublicKeyCredentialType, Algorithm: webauthncose.AlgEdDSA},
	}
}

// walletUser is an embedded wallet as a WebAuthn user.
type walletUser struct {
	id    uuid.UUID
	creds []webauthn.Credential
}

func (u walletUser) WebAuthnID() []byte                         { return u.id[:] }
func (u walletUser) WebAuthnName() string                       { return ids.Format(ids.InternalAccount, u.id) }
func (u walletUser) WebAuthnDisplayName() string                { return u.WebAuthnName() }
func (u walletUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// passkeyDetails is what a PASSKEY credential stores.
type passkeyDetails struct {
	CredentialID string              `json:"credentialId"` // base64url raw id
	Credential   webauthn.Credential `json:"credential"`
}

func passkeyDetailsOf(c db.AuthCredential) passkeyDetails {
	var d passkeyDetails
	_ = json.Unmarshal(c.Details, &d)
	return d
}

// relyingParty builds the WebAuthn relying party of the caller's platform from
// embeddedWalletConfig.passkeyRpId and passkeyOrigins.
func (s *Server) relyingParty(ctx context.Context, c platformconfig.Wallet) (*webauthn.WebAuthn, error) {
	party, err := walletauth.RelyingPartyOf(c)
	if err != nil {
		return nil, err
	}
	rp, err := webauthn.New(&webauthn.Config{RPID: party.ID, RPDisplayName: party.Name, RPOrigins: party.Origins})
	if err != nil {
		s.Logger.WarnContext(ctx, "passkey relying party refused", "rpId", party.ID, "error", err)
		return nil, walletauth.UnusableRelyingParty()
	}
	return rp, nil
}

// registerPasskey verifies a registration (attestation) against the challenge the platform
// issued and returns the credential details to store.
func (s *Server) registerPasskey(r *http.Request, accountID uuid.UUID, challenge *string, raw json.RawMessage) ([]byte, error) {
	if err := walletauth.CheckRegistrationChallenge(challenge); err != nil {
		return nil, err
	}
	var att walletauth.Attestation
	if err := decodeStrictAt("attestation", raw, &att); err != nil {
		return nil, err
	}
	if err := att.CheckShape(); err != nil {
		return nil, err
	}
	wc, err := s.walletConfig(r.Context())
	if err != nil {
		return nil, err
	}
	rp, err := s.relyingParty(r.Context(), wc)
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(map[string]any{"id": att.CredentialID, "rawId": att.CredentialID, "type": "public-key",
		"response": map[string]any{"clientDataJSON": att.ClientDataJSON, "attestationObject": att.AttestationObject, "transports": att.Transports}})
	parsed, err := protocol.ParseCredentialCreationResponseBytes(body)
	if err != nil {
		s.Logger.InfoContext(r.Context(), "passkey registration unreadable", "error", err)
		return nil, problem.Field("attestation", "%s", walletauth.UnreadableAttestation(att))
	}
	cred, err := rp.CreateCredential(walletUser{id: accountID}, webauthn.SessionData{Challenge: *challenge, UserID: accountID[:],
		UserVerification: protocol.VerificationPreferred, CredParams: credParams()}, parsed)
	if err != nil {
		return nil, s.refusePasskey(r.Context(), "registration", attestationProblem(parsed, att, *challenge, rp.Config, err), err)
	}
	return json.Marshal(passkeyDetails{CredentialID: base64.RawURLEncoding.EncodeToString(cred.ID), Credential: *cred})
}

// passkeyChallenge issues the authentication challenge of a PASSKEY credential: the
// SHA-256 of a session-creation payload that includes clientPublicKey, so the assertion
// binds the session to the client's key.
func (s *Server) passkeyChallenge(ctx context.Context, c db.AuthCredential, clientPublicKey string) (view.PasskeyAuthChallenge, error) {
	wc, err := s.walletConfig(ctx)
	if err != nil {
		return view.PasskeyAuthChallenge{}, err
	}
	if _, err := s.relyingParty(ctx, wc); err != nil {
		return view.PasskeyAuthChallenge{}, err
	}
	n, err := db.SignedRequestsRecent(ctx, s.Pool, c.AccountID, walletauth.KindPasskeySession)
	if err != nil {
		return view.PasskeyAuthChallenge{}, fmt.Errorf("count passkey challenges: %w", err)
	}
	if err := walletauth.CheckPasskeyChallengeRate(n); err != nil {
		return view.PasskeyAuthChallenge{}, err
	}
	ch := walletauth.NewPasskeyChallenge(c.AccountID, passkeyDetailsOf(c).CredentialID, clientPublicKey, s.now())
	if err := s.storeChallenge(ctx, ch); err != nil {
		return view.PasskeyAuthChallenge{}, err
	}
	return view.PasskeyAuthChallenge{AuthMethod: view.AuthMethodOf(c), Challenge: walletauth.PasskeyChallengeOf(ch.Payload),
		RequestID: ch.RequestID(), ExpiresAt: ch.ExpiresAt}, nil
}

// verifyPasskey checks an assertion against the challenge named by Request-Id and issues a
// session sealed to the clientPublicKey given with that challenge.
func (s *Server) verifyPasskey(r *http.Request, c db.AuthCredential, raw json.RawMessage, wc platformconfig.Wallet) (view.Session, error) {
	var as walletauth.Assertion
	if err := decodeStrictAt("assertion", raw, &as); err != nil {
		return view.Session{}, err
	}
	ctx := r.Context()
	reqID, err := walletauth.PasskeyRequestID(headerRequestID, r.Header.Get(headerRequestID))
	if err != nil {
		return view.Session{}, err
	}
	issued, found, err := s.loadChallenge(ctx, reqID)
	if err != nil {
		return view.Session{}, err
	}
	if err := walletauth.CheckPasskeyChallenge(issued, found, c.AccountID, s.now()); err != nil {
		return view.Session{}, err
	}
	var details []byte
	if !sandbox.PasskeySignature.Accepts(principalFrom(ctx).Sandbox, as.Signature) {
		if details, err = s.checkAssertion(ctx, wc, c, as, walletauth.PasskeyChallengeOf(issued.Payload)); err != nil {
			return view.Session{}, err
		}
	}
	p, key, err := newSession(c, issued.Binding, wc, s.now())
	if err != nil {
		return view.Session{}, fmt.Errorf("issue passkey session: %w", err)
	}
	sess, err := db.PasskeySessionCreate(ctx, s.Pool, reqID, details, p, s.now())
	if err != nil {
		return view.Session{}, err
	}
	return view.IssuedSessionOf(sess, c, key.Bundle), nil
}

// checkAssertion has go-webauthn check an assertion of credential c over challenge and
// returns the credential's details with its new sign counter.
func (s *Server) checkAssertion(ctx context.Context, wc platformconfig.Wallet, c db.AuthCredential, as walletauth.Assertion, challenge string) ([]byte, error) {
	if err := as.CheckShape(); err != nil {
		return nil, err
	}
	rp, err := s.relyingParty(ctx, wc)
	if err != nil {
		return nil, err
	}
	resp := map[string]any{"clientDataJSON": as.ClientDataJSON, "authenticatorData": as.AuthenticatorData, "signature": as.Signature}
	if as.UserHandle != nil {
		resp["userHandle"] = *as.UserHandle
	}
	body, _ := json.Marshal(map[string]any{"id": as.CredentialID, "rawId": as.CredentialID, "type": "public-key", "response": resp})
	parsed, err := protocol.ParseCredentialRequestResponseBytes(body)
	if err != nil {
		return nil, s.refusePasskey(ctx, "assertion parse", walletauth.UnreadableAssertion(as), err)
	}
	d := passkeyDetailsOf(c)
	cred, err := rp.ValidateLogin(walletUser{id: c.AccountID, creds: []webauthn.Credential{d.Credential}}, webauthn.SessionData{
		Challenge: challenge, UserID: c.AccountID[:], AllowedCredentialIDs: [][]byte{d.Credential.ID},
		UserVerification: protocol.VerificationPreferred}, parsed)
	if err != nil {
		msg := assertionProblem(parsed, as, challenge, rp.Config, d.Credential.ID, c.AccountID[:], err)
		return nil, s.refusePasskey(ctx, "assertion", msg, err)
	}
	d.Credential = *cred
	return json.Marshal(d)
}
