package walletauth

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

// PasskeyChallengesPerMinute is how many passkey challenges one account may ask for in a
// minute.
const PasskeyChallengesPerMinute = 10

// DefaultRPName names the relying party when the platform configures no appName.
const DefaultRPName = "Wallet"

// RelyingParty is a platform's WebAuthn relying party.
type RelyingParty struct {
	ID      string
	Name    string
	Origins []string
}

// RelyingPartyOf reads the relying party from a platform's embedded-wallet configuration
// (passkeyRpId, passkeyOrigins, appName).
func RelyingPartyOf(c platformconfig.Wallet) (RelyingParty, error) {
	if c.PasskeyRpID == nil || c.PasskeyOrigins == nil || len(*c.PasskeyOrigins) == 0 {
		return RelyingParty{}, problem.Refuse(catalog.InvalidInput, "passkeys need embeddedWalletConfig.passkeyRpId and passkeyOrigins in the platform configuration")
	}
	rp := RelyingParty{ID: *c.PasskeyRpID, Name: DefaultRPName, Origins: *c.PasskeyOrigins}
	if c.AppName != nil {
		rp.Name = *c.AppName
	}
	return rp, nil
}

// UnusableRelyingParty is the refusal of a relying party the WebAuthn library does not
// accept.
func UnusableRelyingParty() error {
	return problem.Refuse(catalog.InvalidInput, "the platform's passkey configuration is not usable: embeddedWalletConfig.passkeyRpId must be a registrable domain and every passkeyOrigins entry an origin on it")
}

// CheckPasskeyChallengeRate refuses a passkey challenge when the account already had
// recent of them in the last minute.
func CheckPasskeyChallengeRate(recent int64) error {
	if recent >= PasskeyChallengesPerMinute {
		return RateLimited(time.Minute, "too many passkey challenges; retry in a minute")
	}
	return nil
}

// NewPasskeyChallenge is the authentication challenge of a PASSKEY credential: a
// session-creation payload that names the client key, so the assertion binds the session
// to it. The WebAuthn challenge is PasskeyChallengeOf(Payload); Binding is the raw client
// key the session will be sealed to. clientPublicKey must have been checked (ClientKey).
func NewPasskeyChallenge(accountID uuid.UUID, credentialID, clientPublicKey string, now time.Time) Challenge {
	c := Challenge{ID: ids.New(), Kind: KindPasskeySession, AccountID: accountID, ExpiresAt: challengeExpiry(now)}
	c.Binding, _ = hex.DecodeString(clientPublicKey)
	payload, _ := json.Marshal(map[string]string{"requestId": c.RequestID(), "type": KindPasskeySession,
		"accountId": ids.Format(ids.InternalAccount, accountID), "credentialId": credentialID,
		"clientPublicKey": strings.ToLower(clientPublicKey), "expiresAt": c.ExpiresAt.Format(time.RFC3339)})
	c.Payload = string(payload)
	return c
}

// PasskeyChallengeOf is the WebAuthn challenge of a passkey challenge's payload: the
// base64url SHA-256 of it.
func PasskeyChallengeOf(payload string) string {
	sum := sha256.Sum256([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// PasskeyRequestID reads the Request-Id header of a passkey verification.
func PasskeyRequestID(header, value string) (uuid.UUID, error) {
	id, err := ids.Parse(ids.Request, value)
	if err != nil {
		return uuid.Nil, problem.Field(header, "the Request-Id header (the requestId of the challenge) is required")
	}
	return id, nil
}

// CheckPasskeyChallenge checks the challenge an assertion answers at now: a passkey
// challenge of the credential's account (found is false when there is none), unused and
// unexpired.
func CheckPasskeyChallenge(is Issued, found bool, accountID uuid.UUID, now time.Time) error {
	switch {
	case !found || is.Kind != KindPasskeySession || is.AccountID != accountID:
		return Unauthorized(ReasonBadPasskey, "Request-Id is not a challenge of this credential")
	case is.UsedAt != nil:
		return PasskeyChallengeUsed()
	case now.After(is.ExpiresAt):
		return Unauthorized(ReasonBadPasskey, "the challenge has expired; request a new one")
	}
	return nil
}

// PasskeyChallengeUsed is the refusal of an assertion whose challenge was used.
func PasskeyChallengeUsed() error {
	return Unauthorized(ReasonBadPasskey, "this challenge was already used")
}

// B64url decodes a base64url member the way the WebAuthn library does (padding
// tolerated).
func B64url(v string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(v, "="))
}

// RequireB64url checks that the named members of the object at prefix are present and
// base64url; the refusal names the first that is not. Each field is {name, value}.
func RequireB64url(prefix string, fields ...[2]string) error {
	for _, f := range fields {
		name := prefix + "." + f[0]
		if f[1] == "" {
			return problem.Field(name, "%s is required", name)
		}
		if _, err := B64url(f[1]); err != nil {
			return problem.Field(name, "%s must be base64url", name)
		}
	}
	return nil
}

// Assertion is a passkey assertion as the request gives it (base64url members).
type Assertion struct {
	CredentialID      string  `json:"credentialId"`
	ClientDataJSON    string  `json:"clientDataJson"`
	AuthenticatorData string  `json:"authenticatorData"`
	Signature         string  `json:"signature"`
	UserHandle        *string `json:"userHandle"`
}

// CheckShape checks the members of an assertion: present, base64url.
func (a Assertion) CheckShape() error {
	if err := RequireB64url("assertion", [2]string{"credentialId", a.CredentialID}, [2]string{"clientDataJson", a.ClientDataJSON},
		[2]string{"authenticatorData", a.AuthenticatorData}, [2]string{"signature", a.Signature}); err != nil {
		return err
	}
	if a.UserHandle != nil && *a.UserHandle != "" {
		if _, err := B64url(*a.UserHandle); err != nil {
			return problem.Field("assertion.userHandle", "assertion.userHandle must be base64url")
		}
	}
	return nil
}

// Attestation is a passkey registration as the request gives it (base64url members).
type Attestation struct {
	CredentialID      string   `json:"credentialId"`
	ClientDataJSON    string   `json:"clientDataJson"`
	AttestationObject string   `json:"attestationObject"`
	Transports        []string `json:"transports"`
}

// CheckShape checks the members of an attestation: present, base64url.
func (a Attestation) CheckShape() error {
	return RequireB64url("attestation", [2]string{"credentialId", a.CredentialID}, [2]string{"clientDataJson", a.ClientDataJSON},
		[2]string{"attestationObject", a.AttestationObject})
}

// CheckRegistrationChallenge requires the registration challenge the platform issued.
func CheckRegistrationChallenge(challenge *string) error {
	if challenge == nil || *challenge == "" {
		return problem.Field("challenge", "challenge (the registration challenge you issued, base64url) is required")
	}
	return nil
}

// The WebAuthn checks themselves are the library's. When one fails, the answer says in
// plain words what was found; the library's wording (which names its internals) goes to
// the log only. The plain words come from re-reading the parsed data in the library's
// order, so a message never blames a part the library accepted.

// ClientData is the collected client data of a ceremony as the library parsed it.
type ClientData struct {
	Type        string
	Challenge   string
	Origin      string
	CrossOrigin bool
	TopOrigin   string
	// OriginAllowed reports whether Origin is one of the relying party's origins (as the
	// library compares origins).
	OriginAllowed bool
}

// ClientDataProblem names the first check of the client data that fails, or returns "".
// field names the member, raw is its base64url text, ceremony the expected type
// ("webauthn.get" or "webauthn.create").
func ClientDataProblem(field, raw string, cd ClientData, ceremony, challenge string) string {
	if raw != "" && !jsonObject(raw) {
		return field + " is not base64url of a JSON object"
	}
	switch {
	case cd.Type != ceremony:
		return fmt.Sprintf("%s.type is %q where %q was expected", field, cd.Type, ceremony)
	case subtle.ConstantTimeCompare([]byte(cd.Challenge), []byte(challenge)) != 1:
		return field + ".challenge is not the challenge this ceremony was started with"
	case !cd.OriginAllowed:
		return fmt.Sprintf("%s.origin %q is not one of the platform's passkeyOrigins", field, cd.Origin)
	case cd.CrossOrigin:
		return field + ".crossOrigin is true: passkeys are accepted from the platform's own origins only, not from a cross-origin frame"
	case cd.TopOrigin != "":
		return field + ".topOrigin is set: passkeys are accepted from the platform's own origins only"
	}
	return ""
}

// AuthData is authenticator data as the library parsed it.
type AuthData struct {
	RPIDHash       []byte
	UserPresent    bool
	BackupEligible bool
	BackupState    bool
}

// AuthDataProblem names the first failing check of authenticator data, or returns "".
func AuthDataProblem(field string, ad AuthData, rpID string) string {
	want := sha256.Sum256([]byte(rpID))
	switch {
	case !bytes.Equal(ad.RPIDHash, want[:]):
		return fmt.Sprintf("%s was made for another relying party: its rpIdHash is not the SHA-256 of passkeyRpId %q", field, rpID)
	case !ad.UserPresent:
		return field + " does not show user presence (the UP flag is not set)"
	case ad.BackupState && !ad.BackupEligible:
		return field + " flags are inconsistent: backup state is set without backup eligibility"
	}
	return ""
}

// AssertionFacts is what an assertion refused by the library showed, beside the client
// and authenticator data.
type AssertionFacts struct {
	RawID, CredentialID  []byte // the assertion's credential id, the passkey's
	UserHandle, WalletID []byte // the assertion's user handle (may be empty), the wallet's
}

// AssertionProblem names the first failing check of an assertion the library refused, or
// returns "" when only the library can tell (a signature, a key type).
func AssertionProblem(f AssertionFacts, clientDataJSON string, cd ClientData, ad AuthData, challenge, rpID string) string {
	if !bytes.Equal(f.RawID, f.CredentialID) {
		return "assertion.credentialId is not the credential id of this passkey"
	}
	if len(f.UserHandle) > 0 && !bytes.Equal(f.UserHandle, f.WalletID) {
		return "assertion.userHandle is not the user handle of this wallet"
	}
	if msg := ClientDataProblem("assertion.clientDataJson", clientDataJSON, cd, "webauthn.get", challenge); msg != "" {
		return msg
	}
	return AuthDataProblem("assertion.authenticatorData", ad, rpID)
}

// AttestationFacts is what a registration refused by the library showed, beside the client
// and authenticator data.
type AttestationFacts struct {
	RawID            []byte // the registration's credential id
	AttestedID       []byte // the credential id inside the attestation object
	AttestedCredData bool   // the AT flag
}

// AttestationProblem names the first failing check of a registration the library refused,
// or returns "" when only the library can tell.
func AttestationProblem(f AttestationFacts, clientDataJSON string, cd ClientData, ad AuthData, challenge, rpID string) string {
	if msg := ClientDataProblem("attestation.clientDataJson", clientDataJSON, cd, "webauthn.create", challenge); msg != "" {
		return msg
	}
	if msg := AuthDataProblem("attestation.attestationObject authenticator data", ad, rpID); msg != "" {
		return msg
	}
	if !f.AttestedCredData || len(f.AttestedID) == 0 {
		return "attestation.attestationObject carries no attested credential (the AT flag is not set)"
	}
	if !bytes.Equal(f.AttestedID, f.RawID) {
		return "attestation.credentialId is not the credential id inside attestation.attestationObject"
	}
	return ""
}

// UnreadableAssertion says in plain words why an assertion could not be parsed at all.
func UnreadableAssertion(a Assertion) string {
	if !jsonObject(a.ClientDataJSON) {
		return "assertion.clientDataJson is not base64url of a JSON object"
	}
	if ad, _ := B64url(a.AuthenticatorData); len(ad) < 37 {
		return "assertion.authenticatorData is shorter than 37 bytes (rpIdHash, flags and signature counter)"
	}
	return "assertion.authenticatorData is not valid WebAuthn authenticator data"
}

// UnreadableAttestation says in plain words why a registration could not be parsed.
func UnreadableAttestation(a Attestation) string {
	if !jsonObject(a.ClientDataJSON) {
		return "attestation.clientDataJson is not base64url of a JSON object"
	}
	return "attestation.attestationObject is not a CBOR WebAuthn attestation object with valid authenticator data"
}

// jsonObject reports whether raw is base64url of a JSON object.
func jsonObject(raw string) bool {
	b, _ := B64url(raw)
	var obj map[string]any
	return json.Unmarshal(b, &obj) == nil
}
