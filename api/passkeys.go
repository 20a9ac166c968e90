package api

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/ids"
)

const (
	reasonBadPasskey      = "Invalid passkey signature"
	sandboxPasskey        = "sandbox-valid-passkey-signature"
	passkeyChallengeKind  = "PASSKEY_SESSION"
	passkeyChallengeLimit = 10 // per account and minute
)

// credParams are the credential algorithms accepted at registration.
var credParams = []protocol.CredentialParameter{
	{Type: protocol.PublicKeyCredentialType, Algorithm: webauthncose.AlgES256},
	{Type: protocol.PublicKeyCredentialType, Algorithm: webauthncose.AlgRS256},
	{Type: protocol.PublicKeyCredentialType, Algorithm: webauthncose.AlgEdDSA},
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

// relyingParty builds the WebAuthn relying party of the caller's platform from
// embeddedWalletConfig.passkeyRpId and passkeyOrigins.
func (s *Server) relyingParty(ctx context.Context) (*webauthn.WebAuthn, error) {
	c, err := s.walletConfig(ctx)
	if err != nil {
		return nil, err
	}
	if c.PasskeyRpID == nil || c.PasskeyOrigins == nil || len(*c.PasskeyOrigins) == 0 {
		return nil, invalid("passkeys need embeddedWalletConfig.passkeyRpId and passkeyOrigins in the platform configuration")
	}
	name := "Wallet"
	if c.AppName != nil {
		name = *c.AppName
	}
	rp, err := webauthn.New(&webauthn.Config{RPID: *c.PasskeyRpID, RPDisplayName: name, RPOrigins: *c.PasskeyOrigins})
	if err != nil {
		s.Logger.WarnContext(ctx, "passkey relying party refused", "rpId", *c.PasskeyRpID, "error", err)
		return nil, invalid("the platform's passkey configuration is not usable: embeddedWalletConfig.passkeyRpId must be a registrable domain and every passkeyOrigins entry an origin on it")
	}
	return rp, nil
}

type attestationIn struct {
	CredentialID      string   `json:"credentialId"`
	ClientDataJSON    string   `json:"clientDataJson"`
	AttestationObject string   `json:"attestationObject"`
	Transports        []string `json:"transports"`
}

// registerPasskey verifies a registration (attestation) against the challenge the platform
// issued and returns the credential details to store.
func (s *Server) registerPasskey(r *http.Request, accountID uuid.UUID, challenge *string, raw json.RawMessage) ([]byte, error) {
	if challenge == nil || *challenge == "" {
		return nil, invalidField("challenge", "challenge (the registration challenge you issued, base64url) is required")
	}
	var att attestationIn
	if err := decodeStrictAt("attestation", raw, &att); err != nil {
		return nil, err
	}
	if err := requireB64url("attestation", [2]string{"credentialId", att.CredentialID}, [2]string{"clientDataJson", att.ClientDataJSON},
		[2]string{"attestationObject", att.AttestationObject}); err != nil {
		return nil, err
	}
	rp, err := s.relyingParty(r.Context())
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(map[string]any{"id": att.CredentialID, "rawId": att.CredentialID, "type": "public-key",
		"response": map[string]any{"clientDataJSON": att.ClientDataJSON, "attestationObject": att.AttestationObject, "transports": att.Transports}})
	parsed, err := protocol.ParseCredentialCreationResponseBytes(body)
	if err != nil {
		s.Logger.InfoContext(r.Context(), "passkey registration unreadable", "error", err)
		return nil, invalidField("attestation", "%s", unreadableAttestation(att))
	}
	cred, err := rp.CreateCredential(walletUser{id: accountID}, webauthn.SessionData{Challenge: *challenge, UserID: accountID[:],
		UserVerification: protocol.VerificationPreferred, CredParams: credParams}, parsed)
	if err != nil {
		return nil, s.refusePasskey(r, "registration", attestationProblem(parsed, att, *challenge, rp.Config.RPID, rp.Config.RPOrigins, err), err)
	}
	return json.Marshal(passkeyDetails{CredentialID: base64.RawURLEncoding.EncodeToString(cred.ID), Credential: *cred})
}

// passkeyChallenge issues the authentication challenge of a PASSKEY credential: the
// SHA-256 of a session-creation payload that includes clientPublicKey, so the assertion
// binds the session to the client's key.
func (s *Server) passkeyChallenge(w http.ResponseWriter, r *http.Request, c db.AuthCredential, clientPublicKey *string) error {
	if clientPublicKey == nil {
		return invalidField("clientPublicKey", "clientPublicKey is required for PASSKEY challenges")
	}
	if _, err := s.relyingParty(r.Context()); err != nil {
		return err
	}
	n, err := s.q.SignedRequestCountRecent(r.Context(), db.SignedRequestCountRecentParams{AccountID: c.AccountID, Kind: passkeyChallengeKind})
	if err != nil {
		return err
	}
	if n >= passkeyChallengeLimit {
		return &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited, RetryAfter: 60, Message: "too many passkey challenges; retry in a minute"}
	}
	var d passkeyDetails
	_ = json.Unmarshal(c.Details, &d)
	id := ids.New()
	expires := time.Now().UTC().Add(signedRetryWindow).Truncate(time.Second)
	payload, _ := json.Marshal(map[string]string{"requestId": ids.Format("Request", id), "type": passkeyChallengeKind,
		"accountId": ids.Format(ids.InternalAccount, c.AccountID), "credentialId": d.CredentialID,
		"clientPublicKey": strings.ToLower(*clientPublicKey), "expiresAt": expires.Format(time.RFC3339)})
	sum := sha256.Sum256(payload)
	key, _ := hex.DecodeString(*clientPublicKey)
	if _, err := s.q.SignedRequestCreate(r.Context(), db.SignedRequestCreateParams{ID: id, PlatformID: c.PlatformID, AccountID: c.AccountID,
		Kind: passkeyChallengeKind, Payload: string(payload), RequestHash: key, ExpiresAt: expires}); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, PasskeyAuthChallenge{AuthMethod: authMethodOf(c), Challenge: base64.RawURLEncoding.EncodeToString(sum[:]),
		RequestID: ids.Format("Request", id), ExpiresAt: expires})
	return nil
}

// PasskeyAuthChallenge is the PASSKEY answer of the challenge endpoint: the credential
// (AuthMethod, with its credentialId) and the challenge to sign.
type PasskeyAuthChallenge struct {
	AuthMethod
	Challenge string    `json:"challenge"`
	RequestID string    `json:"requestId"`
	ExpiresAt time.Time `json:"expiresAt"`
}

type assertionIn struct {
	CredentialID      string  `json:"credentialId"`
	ClientDataJSON    string  `json:"clientDataJson"`
	AuthenticatorData string  `json:"authenticatorData"`
	Signature         string  `json:"signature"`
	UserHandle        *string `json:"userHandle"`
}

// verifyPasskey checks an assertion against the challenge named by Request-Id and issues a
// session sealed to the clientPublicKey given with that challenge.
func (s *Server) verifyPasskey(w http.ResponseWriter, r *http.Request, c db.AuthCredential, raw json.RawMessage) error {
	if len(raw) == 0 {
		return invalidField("assertion", "assertion is required")
	}
	var as assertionIn
	if err := decodeStrictAt("assertion", raw, &as); err != nil {
		return err
	}
	rid := r.Header.Get(headerRequestID)
	reqID, err := ids.Parse("Request", rid)
	if err != nil {
		return invalidField(headerRequestID, "the Request-Id header (the requestId of the challenge) is required")
	}
	sr, err := s.q.SignedRequestGet(r.Context(), db.SignedRequestGetParams{PlatformID: c.PlatformID, ID: reqID})
	switch {
	case isNoRows(err) || (err == nil && (sr.Kind != passkeyChallengeKind || sr.AccountID != c.AccountID)):
		return unauthorized(reasonBadPasskey, "Request-Id is not a challenge of this credential")
	case err != nil:
		return err
	case sr.UsedAt != nil:
		return unauthorized(reasonBadPasskey, "this challenge was already used")
	case time.Now().After(sr.ExpiresAt):
		return unauthorized(reasonBadPasskey, "the challenge has expired; request a new one")
	}
	var d passkeyDetails
	_ = json.Unmarshal(c.Details, &d)
	if !(principalFrom(r.Context()).Sandbox && as.Signature == sandboxPasskey) {
		if err := requireB64url("assertion", [2]string{"credentialId", as.CredentialID}, [2]string{"clientDataJson", as.ClientDataJSON},
			[2]string{"authenticatorData", as.AuthenticatorData}, [2]string{"signature", as.Signature}); err != nil {
			return err
		}
		if as.UserHandle != nil && *as.UserHandle != "" {
			if _, err := b64urlField(*as.UserHandle); err != nil {
				return invalidField("assertion.userHandle", "assertion.userHandle must be base64url")
			}
		}
		rp, err := s.relyingParty(r.Context())
		if err != nil {
			return err
		}
		resp := map[string]any{"clientDataJSON": as.ClientDataJSON, "authenticatorData": as.AuthenticatorData, "signature": as.Signature}
		if as.UserHandle != nil {
			resp["userHandle"] = *as.UserHandle
		}
		body, _ := json.Marshal(map[string]any{"id": as.CredentialID, "rawId": as.CredentialID, "type": "public-key", "response": resp})
		parsed, err := protocol.ParseCredentialRequestResponseBytes(body)
		if err != nil {
			return s.refusePasskey(r, "assertion parse", unreadableAssertion(as), err)
		}
		sum := sha256.Sum256([]byte(sr.Payload))
		challenge := base64.RawURLEncoding.EncodeToString(sum[:])
		cred, err := rp.ValidateLogin(walletUser{id: c.AccountID, creds: []webauthn.Credential{d.Credential}}, webauthn.SessionData{
			Challenge: challenge, UserID: c.AccountID[:], AllowedCredentialIDs: [][]byte{d.Credential.ID},
			UserVerification: protocol.VerificationPreferred}, parsed)
		if err != nil {
			msg := assertionProblem(parsed, as, challenge, rp.Config.RPID, rp.Config.RPOrigins, d.Credential.ID, c.AccountID[:], err)
			return s.refusePasskey(r, "assertion", msg, err)
		}
		d.Credential = *cred
		details, _ := json.Marshal(d)
		if err := s.q.AuthCredentialSetDetails(r.Context(), db.AuthCredentialSetDetailsParams{ID: c.ID, Details: details}); err != nil {
			return err
		}
	}
	n, err := s.q.SignedRequestUse(r.Context(), reqID)
	if err != nil {
		return err
	}
	if n == 0 {
		return unauthorized(reasonBadPasskey, "this challenge was already used")
	}
	out, err := s.issueSession(r, c, sr.RequestHash)
	if err != nil {
		return fmt.Errorf("issue passkey session: %w", err)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
