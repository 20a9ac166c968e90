package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/ids"
	"paycore/internal/walletcrypto"
)

// Signed-retry headers and limits.
const (
	headerWalletSignature = "Service-Wallet-Signature"
	headerRequestID       = "Request-Id"
	signedRetryWindow     = 5 * time.Minute
	sandboxSignature      = "sandbox-valid-signature"
	reasonBadSignature    = "Invalid Service-Wallet-Signature"
)

// Challenge is the 202 body of a signed-retry flow.
type Challenge struct {
	Type          string    `json:"type,omitempty"`
	PayloadToSign string    `json:"payloadToSign"`
	RequestID     string    `json:"requestId"`
	ExpiresAt     time.Time `json:"expiresAt"`
}

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

// signedRequest describes the request that needs a wallet signature.
type signedRequest struct {
	accountID uuid.UUID
	kind      string // what the signature authorises (ADD_CREDENTIAL, REVOKE_SESSION, …)
	typ       string // credential type shown in the challenge, if any
	// excludeCredential, when set, refuses sessions of that credential (a credential
	// cannot authorise its own revocation).
	excludeCredential uuid.UUID
	// used, when set, receives the id of the signed retry this request consumed, for
	// operations that bind it to what it authorised (a debit of the wallet).
	used *uuid.UUID
}

// unauthorized is the 401 of wallet authentication, with the spec's reason.
func unauthorized(reason, message string) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: CodeUnauthorized, Reason: reason, Message: message}
}

// signedRetry implements the one signed-retry mechanism. Without signature headers it
// issues a challenge (the caller answers 202 with it). With them it checks that the retry
// repeats the challenged request, arrives before expiresAt, uses its requestId once, and
// carries a stamp over the exact payloadToSign by an active session of the same account.
// It returns (nil, nil) when the request may proceed.
func (s *Server) signedRetry(r *http.Request, req signedRequest) (*Challenge, error) {
	body, ok := r.Context().Value(rawBodyKey{}).([]byte)
	if !ok {
		return nil, errors.New("signed retry on a route without the keepBody middleware")
	}
	h := sha256.Sum256(append([]byte(r.Method+" "+r.URL.Path+"\n"), body...))
	pr := principalFrom(r.Context())
	sig, rid := r.Header.Get(headerWalletSignature), r.Header.Get(headerRequestID)
	if sig == "" && rid == "" {
		return s.issueChallenge(r, req, h[:], body)
	}
	if sig == "" || rid == "" {
		return nil, unauthorized(reasonBadSignature, "Service-Wallet-Signature and Request-Id go together on the signed retry")
	}
	reqID, err := ids.Parse("Request", rid)
	if err != nil {
		return nil, unauthorized(reasonBadSignature, "Request-Id is not a requestId this service issued")
	}
	sr, err := s.q.SignedRequestGet(r.Context(), db.SignedRequestGetParams{PlatformID: pr.PlatformID, ID: reqID})
	if isNoRows(err) {
		return nil, unauthorized(reasonBadSignature, "Request-Id is not a requestId this service issued")
	}
	if err != nil {
		return nil, err
	}
	switch {
	case sr.UsedAt != nil:
		return nil, unauthorized("Request-Id already used", "this requestId was already used; start again without signature headers")
	case time.Now().After(sr.ExpiresAt):
		return nil, unauthorized("Signed retry expired", "the signed retry arrived after expiresAt; start again without signature headers")
	case sr.AccountID != req.accountID || sr.Kind != req.kind || !bytes.Equal(sr.RequestHash, h[:]):
		return nil, unauthorized(reasonBadSignature, "the signed retry must repeat the original request exactly")
	}
	if !(pr.Sandbox && sig == sandboxSignature) {
		stamp, err := walletcrypto.ParseStamp(sig)
		if err != nil {
			return nil, unauthorized(reasonBadSignature, "Service-Wallet-Signature: "+err.Error())
		}
		if err := stamp.Verify([]byte(sr.Payload)); err != nil {
			return nil, unauthorized(reasonBadSignature, "Service-Wallet-Signature does not sign payloadToSign")
		}
		sessions, err := s.q.AuthSessionListActive(r.Context(), req.accountID)
		if err != nil {
			return nil, err
		}
		ok := false
		for _, ss := range sessions {
			if walletcrypto.SameKey(ss.AuthSession.PublicKey, stamp.PublicKey) && ss.AuthSession.CredentialID != req.excludeCredential {
				ok = true
				break
			}
		}
		if !ok {
			return nil, unauthorized(reasonBadSignature, "the signing key is not an active session of this account (of another credential, for a revocation)")
		}
	}
	n, err := s.q.SignedRequestUse(r.Context(), reqID)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, unauthorized("Request-Id already used", "this requestId was already used")
	}
	if req.used != nil {
		*req.used = reqID
	}
	return nil, nil
}

func (s *Server) issueChallenge(r *http.Request, req signedRequest, hash, body []byte) (*Challenge, error) {
	id := ids.New()
	expires := time.Now().UTC().Add(signedRetryWindow).Truncate(time.Second)
	bodySum := sha256.Sum256(body)
	payload, _ := json.Marshal(struct {
		RequestID  string `json:"requestId"`
		Type       string `json:"type"`
		AccountID  string `json:"accountId"`
		ExpiresAt  string `json:"expiresAt"`
		Method     string `json:"method"`
		Path       string `json:"path"`
		BodySha256 string `json:"bodySha256"`
	}{ids.Format("Request", id), req.kind, ids.Format(ids.InternalAccount, req.accountID), expires.Format(time.RFC3339),
		r.Method, r.URL.Path, hex.EncodeToString(bodySum[:])})
	if _, err := s.q.SignedRequestCreate(r.Context(), db.SignedRequestCreateParams{ID: id, PlatformID: principalFrom(r.Context()).PlatformID,
		AccountID: req.accountID, Kind: req.kind, Payload: string(payload), RequestHash: hash, ExpiresAt: expires}); err != nil {
		return nil, err
	}
	return &Challenge{Type: req.typ, PayloadToSign: string(payload), RequestID: ids.Format("Request", id), ExpiresAt: expires}, nil
}
