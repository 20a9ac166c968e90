package api

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"
)

// The WebAuthn checks are go-webauthn's. When one fails, the answer says in plain words
// what was found; the library's own wording (which names its internals) goes to the log
// only. The plain words come from re-reading the parsed data in the library's order, so a
// message never blames a part the library accepted.

// b64urlField decodes a base64url request field the way go-webauthn does (padding
// tolerated).
func b64urlField(v string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(v, "="))
}

// requireB64url checks that the named fields are present and base64url: a 400 naming the
// first that is not.
func requireB64url(prefix string, fields ...[2]string) error {
	for _, f := range fields {
		name := prefix + "." + f[0]
		if f[1] == "" {
			return invalidField(name, "%s is required", name)
		}
		if _, err := b64urlField(f[1]); err != nil {
			return invalidField(name, "%s must be base64url", name)
		}
	}
	return nil
}

// clientDataProblem reads the client data the way the WebAuthn ceremony does. It names the
// first check that fails in plain words, or returns "".
func clientDataProblem(field string, raw string, cd protocol.CollectedClientData, ceremony protocol.CeremonyType, challenge string, origins []string) string {
	if raw != "" {
		b, _ := b64urlField(raw)
		var obj map[string]any
		if json.Unmarshal(b, &obj) != nil {
			return field + " is not base64url of a JSON object"
		}
	}
	switch {
	case cd.Type != ceremony:
		return fmt.Sprintf("%s.type is %q where %q was expected", field, cd.Type, ceremony)
	case subtle.ConstantTimeCompare([]byte(cd.Challenge), []byte(challenge)) != 1:
		return field + ".challenge is not the challenge this ceremony was started with"
	case !protocol.IsOriginInHaystack(cd.Origin, origins):
		return fmt.Sprintf("%s.origin %q is not one of the platform's passkeyOrigins", field, cd.Origin)
	case cd.CrossOrigin:
		return field + ".crossOrigin is true: passkeys are accepted from the platform's own origins only, not from a cross-origin frame"
	case cd.TopOrigin != "":
		return field + ".topOrigin is set: passkeys are accepted from the platform's own origins only"
	}
	return ""
}

// authDataProblem names the first failing check of authenticator data, or returns "".
func authDataProblem(field string, ad protocol.AuthenticatorData, rpID string) string {
	want := sha256.Sum256([]byte(rpID))
	switch {
	case !bytes.Equal(ad.RPIDHash, want[:]):
		return fmt.Sprintf("%s was made for another relying party: its rpIdHash is not the SHA-256 of passkeyRpId %q", field, rpID)
	case !ad.Flags.UserPresent():
		return field + " does not show user presence (the UP flag is not set)"
	case ad.Flags.HasBackupState() && !ad.Flags.HasBackupEligible():
		return field + " flags are inconsistent: backup state is set without backup eligibility"
	}
	return ""
}

// libraryTypeProblem words the checks that only the library's error type identifies.
func libraryTypeProblem(err error, fallback string) string {
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		return fallback
	}
	switch pe.Type {
	case protocol.ErrAssertionSignature.Type:
		return "the signature does not verify with the passkey's public key over authenticatorData and the SHA-256 of clientDataJson"
	case protocol.ErrUnsupportedKey.Type, protocol.ErrUnsupportedAlgorithm.Type:
		return "the passkey's key type or algorithm is not accepted (ES256, RS256 or EdDSA)"
	case protocol.ErrAttestationFormat.Type, protocol.ErrAttestation.Type, protocol.ErrAttestationCertificate.Type:
		return "the attestation statement does not verify"
	case protocol.ErrPolicyRestriction.Type:
		return "the authenticator is not allowed by the relying party's policy"
	}
	return fallback
}

// assertionProblem says in plain words why go-webauthn refused a parsed assertion.
func assertionProblem(p *protocol.ParsedCredentialAssertionData, as assertionIn, challenge, rpID string, origins []string, credentialID, userID []byte, err error) string {
	if !bytes.Equal(p.RawID, credentialID) {
		return "assertion.credentialId is not the credential id of this passkey"
	}
	if h := p.Response.UserHandle; len(h) > 0 && !bytes.Equal(h, userID) {
		return "assertion.userHandle is not the user handle of this wallet"
	}
	if msg := clientDataProblem("assertion.clientDataJson", as.ClientDataJSON, p.Response.CollectedClientData, protocol.AssertCeremony, challenge, origins); msg != "" {
		return msg
	}
	if msg := authDataProblem("assertion.authenticatorData", p.Response.AuthenticatorData, rpID); msg != "" {
		return msg
	}
	return libraryTypeProblem(err, "the assertion did not pass WebAuthn verification")
}

// unreadableAssertion says in plain words why an assertion could not be parsed at all.
func unreadableAssertion(as assertionIn) string {
	cd, _ := b64urlField(as.ClientDataJSON)
	var obj map[string]any
	if json.Unmarshal(cd, &obj) != nil {
		return "assertion.clientDataJson is not base64url of a JSON object"
	}
	if ad, _ := b64urlField(as.AuthenticatorData); len(ad) < 37 {
		return "assertion.authenticatorData is shorter than 37 bytes (rpIdHash, flags and signature counter)"
	}
	return "assertion.authenticatorData is not valid WebAuthn authenticator data"
}

// attestationProblem says in plain words why go-webauthn refused a parsed registration.
func attestationProblem(p *protocol.ParsedCredentialCreationData, att attestationIn, challenge, rpID string, origins []string, err error) string {
	if msg := clientDataProblem("attestation.clientDataJson", att.ClientDataJSON, p.Response.CollectedClientData, protocol.CreateCeremony, challenge, origins); msg != "" {
		return msg
	}
	ad := p.Response.AttestationObject.AuthData
	if msg := authDataProblem("attestation.attestationObject authenticator data", ad, rpID); msg != "" {
		return msg
	}
	if !ad.Flags.HasAttestedCredentialData() || len(ad.AttData.CredentialID) == 0 {
		return "attestation.attestationObject carries no attested credential (the AT flag is not set)"
	}
	if !bytes.Equal(ad.AttData.CredentialID, p.RawID) {
		return "attestation.credentialId is not the credential id inside attestation.attestationObject"
	}
	return libraryTypeProblem(err, "the registration did not pass WebAuthn verification")
}

// unreadableAttestation says in plain words why a registration could not be parsed.
func unreadableAttestation(att attestationIn) string {
	cd, _ := b64urlField(att.ClientDataJSON)
	var obj map[string]any
	if json.Unmarshal(cd, &obj) != nil {
		return "attestation.clientDataJson is not base64url of a JSON object"
	}
	return "attestation.attestationObject is not a CBOR WebAuthn attestation object with valid authenticator data"
}

// refusePasskey is the 401 of a passkey check: plain words to the caller, the library's
// detail to the log.
func (s *Server) refusePasskey(r *http.Request, step, message string, err error) *Error {
	attrs := []any{"step", step, "refusal", message}
	if err != nil {
		attrs = append(attrs, "error", err.Error())
		var pe *protocol.Error
		if errors.As(err, &pe) && pe.DevInfo != "" {
			attrs = append(attrs, "detail", pe.DevInfo)
		}
	}
	s.Logger.InfoContext(r.Context(), "passkey refused", attrs...)
	return unauthorized(reasonBadPasskey, message)
}
