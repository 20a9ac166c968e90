package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/tyler-smith/go-bip39"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/walletcrypto"
)

// clientKeyBody is the body of refresh and export: the client's public key.
type clientKeyBody struct {
	ClientPublicKey *string `json:"clientPublicKey"`
}

// refreshSession issues a new session for the credential of an active session, sealed to
// a fresh client key, by signed retry.
func (s *Server) refreshSession(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.loadSession(r)
	if err != nil {
		return err
	}
	b, err := ReadJSON[clientKeyBody](r)
	if err != nil {
		return err
	}
	clientKey, err := clientPublicKeyField(b.ClientPublicKey)
	if err != nil {
		return err
	}
	if sess.RevokedAt != nil || time.Now().After(sess.ExpiresAt) {
		return unauthorized(reasonBadSignature, "only an active session can be refreshed; verify the credential again")
	}
	cred, err := s.q.AuthCredentialGet(r.Context(), db.AuthCredentialGetParams{PlatformID: sess.PlatformID, ID: sess.CredentialID})
	if isNoRows(err) {
		return unauthorized(reasonBadSignature, "the session's credential was revoked")
	}
	if err != nil {
		return err
	}
	ch, err := s.signedRetry(r, signedRequest{accountID: sess.AccountID, kind: "REFRESH_SESSION", typ: cred.Type})
	if err != nil {
		return err
	}
	if ch != nil {
		writeJSON(w, http.StatusAccepted, ch)
		return nil
	}
	out, err := s.issueSession(r, cred, clientKey)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// issueSession creates a session for a credential: a fresh P-256 key sealed to the client
// key; only the public half is stored.
func (s *Server) issueSession(r *http.Request, cred db.AuthCredential, clientKey []byte) (Session, error) {
	return s.issueSessionTx(r, s.q, cred, clientKey)
}

// issueSessionTx is issueSession inside the caller's transaction.
func (s *Server) issueSessionTx(r *http.Request, q *db.Queries, cred db.AuthCredential, clientKey []byte) (Session, error) {
	priv, pub, err := walletcrypto.NewSessionKey()
	if err != nil {
		return Session{}, err
	}
	bundle, err := walletcrypto.SealBundle(clientKey, priv)
	if err != nil {
		return Session{}, err
	}
	lifetime, err := s.sessionLifetime(r.Context())
	if err != nil {
		return Session{}, err
	}
	sess, err := q.AuthSessionCreate(r.Context(), db.AuthSessionCreateParams{ID: ids.New(), PlatformID: cred.PlatformID, AccountID: cred.AccountID,
		CredentialID: cred.ID, PublicKey: pub, ExpiresAt: time.Now().Add(lifetime)})
	if err != nil {
		return Session{}, fmt.Errorf("create session: %w", err)
	}
	out := sessionOf(sess, cred.Type, cred.Nickname)
	out.EncryptedSessionSigningKey = bundle
	return out, nil
}

// updateWalletAccount applies a PATCH to an embedded wallet once the signed retry checks out.
func (s *Server) updateWalletAccount(w http.ResponseWriter, r *http.Request, a db.InternalAccountGetRow, private bool) error {
	ch, err := s.signedRetry(r, signedRequest{accountID: a.InternalAccount.ID, kind: "UPDATE_ACCOUNT"})
	if err != nil {
		return err
	}
	if ch != nil {
		ch.Type = ""
		writeJSON(w, http.StatusAccepted, ch)
		return nil
	}
	updated, err := s.q.InternalAccountSetPrivate(r.Context(), db.InternalAccountSetPrivateParams{PlatformID: a.InternalAccount.PlatformID, ID: a.InternalAccount.ID, PrivateEnabled: &private})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view.InternalAccountOf(updated, a.Balance, a.Held))
	return nil
}

// ExportedWallet is the answer of a wallet export.
type ExportedWallet struct {
	ID                         string `json:"id"`
	EncryptedWalletCredentials string `json:"encryptedWalletCredentials"`
}

// exportWallet seals the wallet's recovery phrase (BIP-39, from the key material created
// with the account) to the client key given in the request, by signed retry. The phrase is
// never logged or returned in clear.
func (s *Server) exportWallet(w http.ResponseWriter, r *http.Request) error {
	a, err := s.loadInternalAccount(r, "id")
	if err != nil {
		return err
	}
	b, err := ReadJSON[clientKeyBody](r)
	if err != nil {
		return err
	}
	clientKey, err := clientPublicKeyField(b.ClientPublicKey)
	if err != nil {
		return err
	}
	if a.InternalAccount.Type != TypeEmbeddedWallet || a.InternalAccount.WalletSealed == nil {
		return invalid("only EMBEDDED_WALLET accounts can be exported")
	}
	ch, err := s.signedRetry(r, signedRequest{accountID: a.InternalAccount.ID, kind: "EXPORT_WALLET"})
	if err != nil {
		return err
	}
	if ch != nil {
		ch.Type = ""
		writeJSON(w, http.StatusAccepted, ch)
		return nil
	}
	entropy, err := s.Box.Open(walletSealLabel, a.InternalAccount.WalletSealed)
	if err != nil {
		return fmt.Errorf("open wallet key material: %w", err)
	}
	phrase, err := bip39.NewMnemonic(entropy)
	if err != nil {
		return fmt.Errorf("derive recovery phrase: %w", err)
	}
	bundle, err := walletcrypto.SealBundle(clientKey, []byte(phrase))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ExportedWallet{ID: ids.Format(ids.InternalAccount, a.InternalAccount.ID), EncryptedWalletCredentials: bundle})
	return nil
}

// sessionLifetime is the platform's embeddedWalletConfig.sessionExpirationSeconds, or 15
// minutes.
func (s *Server) sessionLifetime(ctx context.Context) (time.Duration, error) {
	c, err := s.walletConfig(ctx)
	if err != nil || c.SessionExpirationSeconds == nil {
		return sessionLifetime, err
	}
	return time.Duration(*c.SessionExpirationSeconds) * time.Second, nil
}
