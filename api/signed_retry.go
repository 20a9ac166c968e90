package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/sandbox"
	"paycore/internal/walletauth"
)

// Signed-retry headers.
const (
	headerWalletSignature = "Service-Wallet-Signature"
	// headerPeerWalletSignature is the wallet signature's header in the peer API, read as
	// the same (walletSignature).
	headerPeerWalletSignature = "Grid-Wallet-Signature"
	headerRequestID           = "Request-Id"
)

type rawBodyKey struct{}

// keepBody keeps the exact request body for routes that take a wallet signature: the
// signed retry binds the signature to the body however the handler reads it.
func keepBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeError(w, r, bodyReadError(err))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), rawBodyKey{}, body)))
	})
}

// noBody is keepBody for routes that take no body (quote execution): a body sent anyway
// was refused before routing (checkRequest), and the signed retry binds the signature to the
// empty body, so a signature made up front over a payload issued for the request still
// matches it.
func noBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.NoBody
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), rawBodyKey{}, []byte{})))
	})
}

// signedRequest describes the request that needs a wallet signature.
type signedRequest struct {
	accountID uuid.UUID
	kind      string                 // what the signature authorises (walletauth.KindAddCredential, …)
	typ       catalog.CredentialType // credential type shown in the challenge, if any
	// excludeCredential, when set, refuses sessions of that credential (a credential
	// cannot authorise its own revocation).
	excludeCredential uuid.UUID
	// used, when set, receives the id of the signed retry this request consumed, for
	// operations that bind it to what it authorised (a debit of the wallet).
	used *uuid.UUID
	// upFront, when valid, is a challenge issued with the resource (a quote's
	// payloadToSign): a signature without Request-Id answers it.
	upFront uuid.NullUUID
}

// requireSignature runs the signed retry of req: answered is true when the request was
// answered with the 202 challenge; the handler carries on when answered and err are both
// unset.
func (s *Server) requireSignature(w http.ResponseWriter, r *http.Request, req signedRequest) (answered bool, err error) {
	ch, err := s.signedRetry(r, req)
	if err != nil || ch == nil {
		return false, err
	}
	markChallenge(r.Context())
	writeJSON(w, http.StatusAccepted, ch)
	return true, nil
}

// signedRetry implements the one signed-retry mechanism. Without signature headers it
// issues a challenge (the caller answers 202 with it). With them it checks that the retry
// repeats the challenged request, arrives before expiresAt, uses its requestId once, and
// carries a stamp over the exact payloadToSign by an active session of the same account.
// It returns (nil, nil) when the request may proceed.
func (s *Server) signedRetry(r *http.Request, req signedRequest) (*view.Challenge, error) {
	body, ok := r.Context().Value(rawBodyKey{}).([]byte)
	if !ok {
		return nil, errors.New("signed retry on a route without the keepBody middleware")
	}
	sig, rid := walletSignature(r), r.Header.Get(headerRequestID)
	if sig != "" && rid == "" && req.upFront.Valid {
		rid = ids.Format(ids.Request, req.upFront.UUID)
	}
	if sig == "" && rid == "" {
		ch := walletauth.NewRetryChallenge(req.kind, req.accountID, r.Method, r.URL.Path, body, s.now())
		if err := s.storeChallenge(r.Context(), ch); err != nil {
			return nil, err
		}
		return &view.Challenge{Type: req.typ, PayloadToSign: ch.Payload, RequestID: ch.RequestID(), ExpiresAt: ch.ExpiresAt}, nil
	}
	reqID, err := s.useRetry(r.Context(), req, walletauth.RequestHash(r.Method, r.URL.Path, body), sig, rid)
	if err != nil {
		return nil, err
	}
	if req.used != nil {
		*req.used = reqID
	}
	return nil, nil
}

// useRetry checks a signed retry of req (its request hash, signature and Request-Id)
// against the challenge it answers and uses the challenge, in one database operation; it
// returns the challenge's id.
func (s *Server) useRetry(ctx context.Context, req signedRequest, hash []byte, sig, rid string) (uuid.UUID, error) {
	reqID, err := walletauth.RetryRequestID(sig, rid)
	if err != nil {
		return reqID, err
	}
	now := s.now()
	err = db.SignedRetryUse(ctx, s.Pool, principalFrom(ctx).PlatformID, reqID, now, func(sr db.SignedRetry) error {
		issued := walletauth.Issued{AccountID: sr.Request.AccountID, Kind: sr.Request.Kind, Payload: sr.Request.Payload,
			Binding: sr.Request.RequestHash, ExpiresAt: sr.Request.ExpiresAt, UsedAt: sr.Request.UsedAt}
		if err := walletauth.CheckRetry(issued, req.accountID, req.kind, hash, now); err != nil {
			return err
		}
		if sandbox.WalletSignature.Accepts(principalFrom(ctx).Sandbox, sig) {
			return nil
		}
		return checkStamp(sig, issued.Payload, req, sr.Sessions)
	})
	switch {
	case errors.Is(err, db.ErrNotFound):
		return reqID, walletauth.UnknownRequest()
	case errors.Is(err, db.ErrSignedRequestUsed):
		return reqID, walletauth.RetryUsed()
	case err != nil:
		return reqID, err
	}
	return reqID, nil
}

// storeChallenge stores a challenge for the caller's platform.
func (s *Server) storeChallenge(ctx context.Context, ch walletauth.Challenge) error {
	return db.SignedRequestStore(ctx, s.Pool, db.SignedRequestCreateParams{ID: ch.ID, PlatformID: principalFrom(ctx).PlatformID,
		AccountID: ch.AccountID, Kind: ch.Kind, Payload: ch.Payload, RequestHash: ch.Binding, ExpiresAt: ch.ExpiresAt})
}

// checkStamp checks a Service-Wallet-Signature over payload by an active session of the
// request's account (not of its excluded credential).
func checkStamp(sig, payload string, req signedRequest, active func() ([]db.AuthSessionListActiveRow, error)) error {
	key, err := walletauth.StampKey(sig, payload)
	if err != nil {
		return err
	}
	sessions, err := active()
	if err != nil {
		return err
	}
	signers := make([]walletauth.SessionSigner, len(sessions))
	for i, ss := range sessions {
		signers[i] = walletauth.SessionSigner{CredentialID: ss.AuthSession.CredentialID, PublicKey: ss.AuthSession.PublicKey}
	}
	return walletauth.CheckSigner(key, signers, req.excludeCredential)
}

// loadChallenge reads a challenge of the caller's platform; found is false when there is
// none.
func (s *Server) loadChallenge(ctx context.Context, id uuid.UUID) (is walletauth.Issued, found bool, err error) {
	sr, err := db.SignedRequestFind(ctx, s.Pool, principalFrom(ctx).PlatformID, id)
	if errors.Is(err, db.ErrNotFound) {
		return is, false, nil
	}
	if err != nil {
		return is, false, err
	}
	return walletauth.Issued{AccountID: sr.AccountID, Kind: sr.Kind, Payload: sr.Payload, Binding: sr.RequestHash,
		ExpiresAt: sr.ExpiresAt, UsedAt: sr.UsedAt}, true, nil
}
