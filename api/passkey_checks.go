package api

import (
	"context"
	"errors"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"paycore/internal/walletauth"
)

// The WebAuthn checks are go-webauthn's; walletauth words a refusal from the parsed data
// (see walletauth.AssertionProblem). This file hands it what the library parsed, and words
// the checks only the library's error type identifies.

// clientDataOf is the parsed client data as walletauth reads it.
func clientDataOf(cd protocol.CollectedClientData, origins []string) walletauth.ClientData {
	return walletauth.ClientData{Type: string(cd.Type), Challenge: cd.Challenge, Origin: cd.Origin, CrossOrigin: cd.CrossOrigin,
		TopOrigin: cd.TopOrigin, OriginAllowed: protocol.IsOriginInHaystack(cd.Origin, origins)}
}

// authDataOf is the parsed authenticator data as walletauth reads it.
func authDataOf(ad protocol.AuthenticatorData) walletauth.AuthData {
	return walletauth.AuthData{RPIDHash: ad.RPIDHash, UserPresent: ad.Flags.UserPresent(),
		BackupEligible: ad.Flags.HasBackupEligible(), BackupState: ad.Flags.HasBackupState()}
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
func assertionProblem(p *protocol.ParsedCredentialAssertionData, as walletauth.Assertion, challenge string, rp *webauthn.Config, credentialID, userID []byte, err error) string {
	facts := walletauth.AssertionFacts{RawID: p.RawID, CredentialID: credentialID, UserHandle: p.Response.UserHandle, WalletID: userID}
	if msg := walletauth.AssertionProblem(facts, as.ClientDataJSON, clientDataOf(p.Response.CollectedClientData, rp.RPOrigins),
		authDataOf(p.Response.AuthenticatorData), challenge, rp.RPID); msg != "" {
		return msg
	}
	return libraryTypeProblem(err, "the assertion did not pass WebAuthn verification")
}

// attestationProblem says in plain words why go-webauthn refused a parsed registration.
func attestationProblem(p *protocol.ParsedCredentialCreationData, att walletauth.Attestation, challenge string, rp *webauthn.Config, err error) string {
	ad := p.Response.AttestationObject.AuthData
	facts := walletauth.AttestationFacts{RawID: p.RawID, AttestedID: ad.AttData.CredentialID, AttestedCredData: ad.Flags.HasAttestedCredentialData()}
	if msg := walletauth.AttestationProblem(facts, att.ClientDataJSON, clientDataOf(p.Response.CollectedClientData, rp.RPOrigins),
		authDataOf(ad), challenge, rp.RPID); msg != "" {
		return msg
	}
	return libraryTypeProblem(err, "the registration did not pass WebAuthn verification")
}

// refusePasskey is the 401 of a passkey check: plain words to the caller, the library's
// detail to the log.
func (s *Server) refusePasskey(ctx context.Context, step, message string, err error) error {
	attrs := []any{"step", step, "refusal", message}
	if err != nil {
		attrs = append(attrs, "error", err.Error())
		var pe *protocol.Error
		if errors.As(err, &pe) && pe.DevInfo != "" {
			attrs = append(attrs, "detail", pe.DevInfo)
		}
	}
	s.Logger.InfoContext(ctx, "passkey refused", attrs...)
	return walletauth.Unauthorized(walletauth.ReasonBadPasskey, "%s", message)
}
