package walletauth

import (
	"fmt"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
	"paycore/internal/walletcrypto"
)

// DefaultSessionLifetime is how long a session lives when the platform does not say
// (embeddedWalletConfig.sessionExpirationSeconds).
const DefaultSessionLifetime = 15 * time.Minute

// SessionLifetime is the lifetime of the sessions a platform issues.
func SessionLifetime(c platformconfig.Wallet) time.Duration {
	if c.SessionExpirationSeconds == nil {
		return DefaultSessionLifetime
	}
	return time.Duration(*c.SessionExpirationSeconds) * time.Second
}

// SessionActive reports whether a session may still sign at now: not revoked (revokedAt
// nil) and not expired.
func SessionActive(revokedAt *time.Time, expiresAt, now time.Time) bool {
	return revokedAt == nil && now.Before(expiresAt)
}

// SessionNotFound is the refusal of a session the caller's platform does not have, or of
// one no longer active where only an active one is meant: 404 SESSION_NOT_FOUND.
func SessionNotFound() error { return problem.NotFound(catalog.SessionNotFound, "session") }

// SessionKey is the signing key of a new session: the service keeps only PublicKey
// (compressed); the private key leaves only in Bundle, sealed to the client's key, or
// never exists here (a client-held key: Bundle is empty).
type SessionKey struct {
	PublicKey []byte
	Bundle    string
}

// NewSessionKey is the signing key of a session opened for clientKey (see ClientKey). A
// compressed client key (33 bytes) is the session's key itself, held by the client, which
// signs the session's retries with it: nothing is sealed. An uncompressed one (65 bytes)
// gets a fresh P-256 session key whose private half is sealed to it.
func NewSessionKey(clientKey []byte) (SessionKey, error) {
	if walletcrypto.ClientHeld(clientKey) {
		return SessionKey{PublicKey: clientKey}, nil
	}
	priv, pub, err := walletcrypto.NewSessionKey()
	if err != nil {
		return SessionKey{}, err
	}
	bundle, err := walletcrypto.SealBundle(clientKey, priv)
	if err != nil {
		return SessionKey{}, fmt.Errorf("seal session key: %w", err)
	}
	return SessionKey{PublicKey: pub, Bundle: bundle}, nil
}

// ClientKey checks a required clientPublicKey and returns its raw bytes.
func ClientKey(v *string) ([]byte, error) {
	if v == nil {
		return nil, problem.Field("clientPublicKey", "clientPublicKey is required")
	}
	return parseClientKey(*v)
}

// CheckClientKey checks an optional clientPublicKey.
func CheckClientKey(v *string) error {
	if v == nil {
		return nil
	}
	_, err := parseClientKey(*v)
	return err
}

func parseClientKey(v string) ([]byte, error) {
	key, err := walletcrypto.ParseClientPublicKey(v)
	if err != nil {
		return nil, problem.Field("clientPublicKey", "%v", err)
	}
	return key, nil
}

// CheckRefresh allows refreshing only an active session (revoked at revokedAt, nil when
// not; expiring at expiresAt) whose credential is not revoked (credentialLive).
func CheckRefresh(revokedAt *time.Time, expiresAt time.Time, credentialLive bool, now time.Time) error {
	if !SessionActive(revokedAt, expiresAt, now) {
		return SignatureRefused(catalog.WalletSignatureInvalid, "only an active session can be refreshed; verify the credential again")
	}
	if !credentialLive {
		return SignatureRefused(catalog.WalletSignatureInvalid, "the session's credential was revoked")
	}
	return nil
}
