package view

import (
	"encoding/json"
	"time"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
)

// AuthMethod is a credential of an embedded wallet (strict: no other fields).
type AuthMethod struct {
	ID           string                 `json:"id"`
	AccountID    string                 `json:"accountId"`
	Type         catalog.CredentialType `json:"type"`
	Nickname     string                 `json:"nickname"`
	CreatedAt    time.Time              `json:"createdAt"`
	UpdatedAt    time.Time              `json:"updatedAt"`
	CredentialID string                 `json:"credentialId,omitempty"`
	// OtpEncryptionTargetBundle is, on an answer that issued an OTP credential's code, the
	// signed target bundle the client encrypts its attempt to (encryptedOtpBundle).
	OtpEncryptionTargetBundle string `json:"otpEncryptionTargetBundle,omitempty"`
}

// AuthMethodOf renders a credential; a PASSKEY shows its WebAuthn credential id.
func AuthMethodOf(c db.AuthCredential) AuthMethod {
	out := AuthMethod{ID: ids.Format(ids.AuthMethod, c.ID), AccountID: ids.Format(ids.InternalAccount, c.AccountID), Type: c.Type,
		Nickname: c.Nickname, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
	if c.Type == catalog.CredentialPasskey {
		var d struct {
			CredentialID string `json:"credentialId"`
		}
		_ = json.Unmarshal(c.Details, &d)
		out.CredentialID = d.CredentialID
	}
	return out
}

// Session is a wallet session; the sealed signing key appears only when it is issued.
type Session struct {
	ID        string                 `json:"id"`
	AccountID string                 `json:"accountId"`
	Type      catalog.CredentialType `json:"type"`
	Nickname  string                 `json:"nickname"`
	CreatedAt time.Time              `json:"createdAt"`
	UpdatedAt time.Time              `json:"updatedAt"`
	ExpiresAt time.Time              `json:"expiresAt"`
	// CredentialID is the credential the session was opened with (an AuthMethod id).
	CredentialID string `json:"credentialId"`
	// EncryptedSessionSigningKey is the session's signing key sealed to the client's key, in
	// the answer that opened it; absent when the client holds the key (it sent a
	// compressed clientPublicKey).
	EncryptedSessionSigningKey string `json:"encryptedSessionSigningKey,omitempty"`
}

// SessionOf renders a session of a credential of type typ called nickname.
func SessionOf(s db.AuthSession, typ catalog.CredentialType, nickname string) Session {
	return Session{ID: ids.Format(ids.Session, s.ID), AccountID: ids.Format(ids.InternalAccount, s.AccountID), Type: typ, Nickname: nickname,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, ExpiresAt: s.ExpiresAt, CredentialID: ids.Format(ids.AuthMethod, s.CredentialID)}
}

// ActiveSessionOf renders a row of the active sessions list.
func ActiveSessionOf(s db.AuthSessionListActiveRow) Session {
	return SessionOf(s.AuthSession, s.CredentialType, s.CredentialNickname)
}

// IssuedSessionOf renders a session just issued for credential c, with its signing key
// sealed to the client's key (bundle).
func IssuedSessionOf(s db.AuthSession, c db.AuthCredential, bundle string) Session {
	out := SessionOf(s, c.Type, c.Nickname)
	out.EncryptedSessionSigningKey = bundle
	return out
}

// Challenge is the 202 body of a signed-retry flow: what to sign and the requestId to
// send back with the signature.
type Challenge struct {
	Type          catalog.CredentialType `json:"type,omitempty"`
	PayloadToSign string                 `json:"payloadToSign"`
	RequestID     string                 `json:"requestId"`
	ExpiresAt     time.Time              `json:"expiresAt"`
}

// PasskeyAuthChallenge is the PASSKEY answer of the challenge endpoint: the credential
// (AuthMethod, with its credentialId) and the WebAuthn challenge to sign.
type PasskeyAuthChallenge struct {
	AuthMethod
	Challenge string    `json:"challenge"`
	RequestID string    `json:"requestId"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// ExportedWallet is the answer of a wallet export: the recovery phrase sealed to the
// client's key.
type ExportedWallet struct {
	ID                         string `json:"id"`
	EncryptedWalletCredentials string `json:"encryptedWalletCredentials"`
}
