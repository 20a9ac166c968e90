package walletauth

import (
	"regexp"
	"slices"
	"strings"

	"paycore/internal/catalog"
	"paycore/internal/email"
	"paycore/internal/problem"
)

// MaxNicknameLength is the longest nickname of a PASSKEY credential.
const MaxNicknameLength = 64

// NewCredential is a request to add a credential as far as its rules go: the type and which
// of the other members were given.
type NewCredential struct {
	Type                                               *catalog.CredentialType
	Email, PhoneNumber, OidcToken, Nickname, Challenge *string
	// Attestation reports whether an attestation was given.
	Attestation bool
}

// Check applies the rules of what each credential type takes: EMAIL_OTP an e-mail (or the
// customer's), SMS_OTP a phone number, OAUTH an oidcToken, PASSKEY a nickname, the
// registration challenge and an attestation.
func (n NewCredential) Check() error {
	if n.Type == nil {
		return problem.Field("type", "type is required (EMAIL_OTP, SMS_OTP, OAUTH or PASSKEY)")
	}
	switch *n.Type {
	case catalog.CredentialEmailOTP:
		if n.OidcToken != nil || n.Attestation || n.Challenge != nil || n.Nickname != nil || n.PhoneNumber != nil {
			return problem.Refuse(catalog.InvalidInput, "EMAIL_OTP credentials take accountId and email only")
		}
	case catalog.CredentialSMSOTP:
		if n.OidcToken != nil || n.Attestation || n.Challenge != nil || n.Nickname != nil || n.Email != nil {
			return problem.Refuse(catalog.InvalidInput, "SMS_OTP credentials take accountId and phoneNumber only")
		}
		return CheckPhoneNumber(n.PhoneNumber)
	case catalog.CredentialOAuth:
		if n.Email != nil || n.PhoneNumber != nil || n.Attestation || n.Challenge != nil || n.Nickname != nil {
			return problem.Refuse(catalog.InvalidInput, "OAUTH credentials take accountId and oidcToken only")
		}
		if n.OidcToken == nil {
			return problem.Field("oidcToken", "oidcToken is required")
		}
	case catalog.CredentialPasskey:
		if n.Email != nil || n.PhoneNumber != nil || n.OidcToken != nil {
			return problem.Refuse(catalog.InvalidInput, "PASSKEY credentials take accountId, nickname, challenge and attestation only")
		}
		if n.Nickname == nil || strings.TrimSpace(*n.Nickname) == "" || len(*n.Nickname) > MaxNicknameLength {
			return problem.Field("nickname", "nickname is required (1 to %d characters)", MaxNicknameLength)
		}
		if !n.Attestation {
			return problem.Field("attestation", "attestation is required")
		}
	default:
		return problem.Field("type", "type must be EMAIL_OTP, SMS_OTP, OAUTH or PASSKEY")
	}
	return nil
}

// e164 is a phone number in E.164: a plus, a country code and the number, 8 to 15 digits.
var e164 = regexp.MustCompile(`^\+[1-9][0-9]{7,14}$`)

// CheckPhoneNumber refuses an SMS_OTP credential's phone number that is missing or not in
// E.164 form (+14155550123).
func CheckPhoneNumber(v *string) error {
	if v == nil {
		return problem.Field("phoneNumber", "phoneNumber is required for SMS_OTP credentials (E.164, e.g. +14155550123)")
	}
	if !e164.MatchString(*v) {
		return problem.Field("phoneNumber", "phoneNumber must be in E.164 form: a plus, the country code and the number, e.g. +14155550123")
	}
	return nil
}

// CredentialEmail is the address an EMAIL_OTP credential sends its codes to: the one
// given, which must be a plain address, or else the customer's (nil when the customer
// has none).
func CredentialEmail(given, customers *string) (string, error) {
	if given != nil {
		if !email.Plain(*given) {
			return "", problem.Field("email", "email must be a plain e-mail address")
		}
		return *given, nil
	}
	if customers != nil {
		return *customers, nil
	}
	return "", problem.Field("email", "email is required: the account's customer has no e-mail address")
}

// OnePerAccount reports whether an account may hold at most one credential of type t
// (EMAIL_OTP, SMS_OTP and PASSKEY; an account may hold several OAUTH identities).
func OnePerAccount(t catalog.CredentialType) bool {
	return t.IsOTP() || t == catalog.CredentialPasskey
}

// CredentialExists is the refusal of a second credential of a type an account holds once.
func CredentialExists(t catalog.CredentialType) *problem.Refusal {
	return problem.Refuse(catalog.CredentialExists(t), "the account already has a %s credential", t)
}

// CredentialNotFound is the refusal of a credential the caller's platform does not have:
// 404 CREDENTIAL_NOT_FOUND.
func CredentialNotFound() error { return problem.NotFound(catalog.CredentialNotFound, "credential") }

// CheckOnePerAccount refuses a credential of type t on an account that already holds the
// existing types, when t is one per account.
func CheckOnePerAccount(existing []catalog.CredentialType, t catalog.CredentialType) error {
	if OnePerAccount(t) && slices.Contains(existing, t) {
		return CredentialExists(t)
	}
	return nil
}

// AddNeedsSignature reports whether adding a credential to an account that holds existing
// credentials needs a signed retry by a session of the account: only the first one does
// not.
func AddNeedsSignature(existing int) bool { return existing > 0 }

// CheckRevoke refuses to revoke the last of an account's count credentials: the wallet
// would be left without a way in.
func CheckRevoke(count int) error {
	if count <= 1 {
		return problem.Refuse(catalog.InvalidInput, "this is the account's only credential; add another before revoking it")
	}
	return nil
}

// CheckChallenge applies the rules of asking a credential of type t for a challenge: the
// optional clientPublicKey must be valid; OAUTH has no challenge; PASSKEY needs the
// clientPublicKey its session will be sealed to.
func CheckChallenge(t catalog.CredentialType, clientPublicKey *string) error {
	if err := CheckClientKey(clientPublicKey); err != nil {
		return err
	}
	switch t {
	case catalog.CredentialOAuth:
		return problem.Refuse(catalog.InvalidInput, "OAUTH credentials need no challenge: verify with a fresh oidcToken")
	case catalog.CredentialPasskey:
		if clientPublicKey == nil {
			return problem.Field("clientPublicKey", "clientPublicKey is required for PASSKEY challenges")
		}
	}
	return nil
}

// Verification is a request to verify a credential as far as its rules go.
type Verification struct {
	Type                            *catalog.CredentialType
	Otp, OidcToken, ClientPublicKey *string
	// EncryptedOtp is an encryptedOtpBundle: the code sealed to its target key with the
	// client's key, which the session then holds (the two-leg flow of OTPRetry).
	EncryptedOtp *string
	// Assertion reports whether an assertion was given.
	Assertion bool
}

// Check applies the rules of verifying a credential of type t and returns the client key
// the session will be sealed to (nil for PASSKEY, whose key came with the challenge).
func (v Verification) Check(t catalog.CredentialType) ([]byte, error) {
	if v.Type != nil {
		switch *v.Type {
		case t:
		case catalog.CredentialEmailOTP, catalog.CredentialSMSOTP, catalog.CredentialOAuth, catalog.CredentialPasskey:
			return nil, problem.Field("type", "type is %s but this credential is %s", *v.Type, t)
		default:
			return nil, problem.Field("type", "type must be EMAIL_OTP, SMS_OTP, OAUTH or PASSKEY (the credential's type, %s)", t)
		}
	}
	if v.EncryptedOtp != nil {
		switch {
		case !t.IsOTP():
			return nil, problem.Field("encryptedOtpBundle", "encryptedOtpBundle verifies EMAIL_OTP and SMS_OTP credentials only; this one is %s", t)
		case v.Otp != nil || v.ClientPublicKey != nil:
			return nil, problem.Field("encryptedOtpBundle", "encryptedOtpBundle carries the code and the client's key: send it without otp and clientPublicKey")
		case *v.EncryptedOtp == "":
			return nil, problem.Field("encryptedOtpBundle", "encryptedOtpBundle must not be empty")
		}
		return nil, nil
	}
	if t == catalog.CredentialPasskey {
		if v.ClientPublicKey != nil || v.Otp != nil || v.OidcToken != nil {
			return nil, problem.Refuse(catalog.InvalidInput, "PASSKEY verification takes type and assertion only (clientPublicKey was given with the challenge)")
		}
		if !v.Assertion {
			return nil, problem.Field("assertion", "assertion is required")
		}
		return nil, nil
	}
	key, err := ClientKey(v.ClientPublicKey)
	if err != nil {
		return nil, err
	}
	switch {
	case t == catalog.CredentialOAuth && v.OidcToken == nil:
		return nil, problem.Field("oidcToken", "oidcToken is required")
	case t.IsOTP() && v.Otp == nil:
		return nil, problem.Field("otp", "otp is required")
	}
	return key, nil
}
