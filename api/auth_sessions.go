package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/platformconfig"
	"paycore/internal/walletauth"

	"github.com/google/uuid"
)

// newSession prepares a session of credential cred: a fresh signing key sealed to the
// client key, and the row to store, expiring after the session lifetime of the platform's
// wallet configuration c.
func newSession(cred db.AuthCredential, clientKey []byte, c platformconfig.Wallet, now time.Time) (db.AuthSessionCreateParams, walletauth.SessionKey, error) {
	key, err := walletauth.NewSessionKey(clientKey)
	if err != nil {
		return db.AuthSessionCreateParams{}, key, err
	}
	return db.AuthSessionCreateParams{ID: ids.New(), PlatformID: cred.PlatformID, AccountID: cred.AccountID, CredentialID: cred.ID,
		PublicKey: key.PublicKey, ExpiresAt: now.Add(walletauth.SessionLifetime(c))}, key, nil
}

// issueSession creates a session for a credential whose proof was checked.
func (s *Server) issueSession(ctx context.Context, cred db.AuthCredential, clientKey []byte, c platformconfig.Wallet) (view.Session, error) {
	p, key, err := newSession(cred, clientKey, c, s.now())
	if err != nil {
		return view.Session{}, err
	}
	sess, err := db.AuthSessionCreate(ctx, s.Pool, p)
	if err != nil {
		return view.Session{}, fmt.Errorf("create session: %w", err)
	}
	return view.IssuedSessionOf(sess, cred, key.Bundle), nil
}

// loadSession finds a session of the caller's platform.
func (s *Server) loadSession(r *http.Request) (db.AuthSession, error) {
	return loadOne(r, "id", ids.Session, errorOf(walletauth.SessionNotFound()), func(ctx context.Context, pid, id uuid.UUID) (db.AuthSession, error) {
		return db.AuthSessionGet(ctx, s.Pool, db.AuthSessionGetParams{PlatformID: pid, ID: id})
	})
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) error {
	return serveWalletList(s, w, r, s.activeSessions, view.ActiveSessionOf)
}

// deleteSession revokes a session by signed retry.
func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.loadSession(r)
	if err != nil {
		return err
	}
	// A retry is checked even when the session is already gone, so a reused requestId is
	// a 401 as the spec says.
	if !walletauth.SessionActive(sess.RevokedAt, sess.ExpiresAt, s.now()) && r.Header.Get(headerRequestID) == "" {
		return walletauth.SessionNotFound()
	}
	typ, err := db.AuthCredentialTypeOf(r.Context(), s.Pool, sess.CredentialID)
	if err != nil {
		return fmt.Errorf("load the session's credential: %w", err)
	}
	req := signedRequest{accountID: sess.AccountID, kind: walletauth.KindRevokeSession, typ: typ}
	if answered, err := s.requireSignature(w, r, req); answered || err != nil {
		return err
	}
	if _, err := db.AuthSessionRevoke(r.Context(), s.Pool, sess.ID, s.now()); err != nil {
		return fmt.Errorf("revoke session: %w", err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// clientKeyBody is the body of refresh and export: the client's public key.
type clientKeyBody struct {
	ClientPublicKey *string `json:"clientPublicKey"`
}

// readClientKey reads a body of refresh or export and returns the client's raw key.
func readClientKey(r *http.Request) ([]byte, error) {
	b, err := ReadJSON[clientKeyBody](r)
	if err != nil {
		return nil, err
	}
	return walletauth.ClientKey(b.ClientPublicKey)
}

// refreshSession issues a new session for the credential of an active session, sealed to
// a fresh client key, by signed retry.
func (s *Server) refreshSession(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.loadSession(r)
	if err != nil {
		return err
	}
	clientKey, err := readClientKey(r)
	if err != nil {
		return err
	}
	cred, err := db.AuthCredentialGet(r.Context(), s.Pool, db.AuthCredentialGetParams{PlatformID: sess.PlatformID, ID: sess.CredentialID})
	if err != nil && !isNoRows(err) {
		return fmt.Errorf("load the session's credential: %w", err)
	}
	if err := walletauth.CheckRefresh(sess.RevokedAt, sess.ExpiresAt, err == nil, s.now()); err != nil {
		return err
	}
	req := signedRequest{accountID: sess.AccountID, kind: walletauth.KindRefreshSession, typ: cred.Type}
	if answered, err := s.requireSignature(w, r, req); answered || err != nil {
		return err
	}
	wc, err := s.walletConfig(r.Context())
	if err != nil {
		return err
	}
	out, err := s.issueSession(r.Context(), cred, clientKey, wc)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// activeSessions lists the sessions of a wallet account active at the API's clock.
func (s *Server) activeSessions(ctx context.Context, accountID uuid.UUID) ([]db.AuthSessionListActiveRow, error) {
	return db.AuthSessionListActive(ctx, s.Pool, accountID, s.now())
}
