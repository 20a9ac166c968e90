package paycore

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Signer makes the Service-Wallet-Signature of a signed retry: the stamp of payloadToSign,
// exactly as given, by the key of one of the wallet's sessions. SessionStamper is one;
// a signer can as well run where the session key lives (a browser, a secure element).
type Signer interface {
	Sign(ctx context.Context, payloadToSign string) (string, error)
}

// SignerFunc adapts a function to Signer.
type SignerFunc func(ctx context.Context, payloadToSign string) (string, error)

// Sign calls f.
func (f SignerFunc) Sign(ctx context.Context, payloadToSign string) (string, error) {
	return f(ctx, payloadToSign)
}

// SignedRetryError is a signed retry that could not be completed on the client's side: the
// signer failed, or the signed request was challenged again.
type SignedRetryError struct{ Err error }

func (e *SignedRetryError) Error() string { return "paycore: signed retry: " + e.Err.Error() }

func (e *SignedRetryError) Unwrap() error { return e.Err }

// SignedRetry runs a request that may need the wallet's signature (a transfer or a quote's
// execution out of an embedded wallet, a session's revocation, ...). The first call goes
// without signature headers; if it answers 202 with payloadToSign and requestId, signer
// stamps the payload and the call is made once more with Service-Wallet-Signature and
// Request-Id. It returns the final result (also a first answer that needed no signature);
// an error answer of either call is an *APIError whose Reason names a refused signature's
// check ("Invalid Service-Wallet-Signature", "Request-Id already used", "Signed retry
// expired"). A refused retry cannot be repeated: call SignedRetry again for a new challenge.
func SignedRetry[R any](ctx context.Context, call Call[R], signer Signer) (R, error) {
	none := func(context.Context, *http.Request) error { return nil }
	first, err := Check(call(ctx, none))
	if err != nil {
		return first, err
	}
	challenge, ok := challengeOf(first)
	if !ok {
		return first, nil
	}
	stamp, err := signer.Sign(ctx, challenge.PayloadToSign)
	if err != nil {
		return first, &SignedRetryError{Err: fmt.Errorf("signing the payload of %s: %w", challenge.RequestId, err)}
	}
	if stamp == "" {
		return first, &SignedRetryError{Err: errors.New("the signer returned no stamp")}
	}
	second, err := Check(call(ctx, WithHeaders(http.Header{"Service-Wallet-Signature": {stamp}, "Request-Id": {challenge.RequestId}})))
	if err != nil {
		return second, err
	}
	if _, again := challengeOf(second); again {
		return second, &SignedRetryError{Err: errors.New("the signed request was challenged again")}
	}
	return second, nil
}

// challengeOf reads a signed retry's challenge from a generated result: a 202 with
// payloadToSign and requestId.
func challengeOf(r any) (AuthSignedRequestChallenge, bool) {
	resp, body := answerOf(r)
	var c AuthSignedRequestChallenge
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal(body, &c) != nil || c.PayloadToSign == "" || c.RequestId == "" {
		return c, false
	}
	return c, true
}

// SessionStamper signs with a wallet session's private key (the 32-byte P-256 scalar, hex,
// that the session's creation sealed to the client), as @turnkey/api-key-stamper does: the
// base64url of {"publicKey", "scheme": "SIGNATURE_SCHEME_TK_API_P256", "signature"} with
// the compressed public key and the DER ECDSA signature of SHA-256(payload), both hex.
type SessionStamper struct {
	key *ecdsa.PrivateKey
	pub string
}

// NewSessionStamper reads a session's private key (64 hex digits).
func NewSessionStamper(privateKeyHex string) (*SessionStamper, error) {
	raw, err := hex.DecodeString(privateKeyHex)
	if err != nil || len(raw) != 32 {
		return nil, errors.New("paycore: a session private key is 64 hex digits")
	}
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), raw)
	if err != nil {
		return nil, fmt.Errorf("paycore: session private key: %w", err)
	}
	pub, err := k.PublicKey.Bytes()
	if err != nil {
		return nil, fmt.Errorf("paycore: session public key: %w", err)
	}
	// Compressed: 02 or 03 (the parity of y), then x.
	compressed := append([]byte{2 + pub[64]&1}, pub[1:33]...)
	return &SessionStamper{key: k, pub: hex.EncodeToString(compressed)}, nil
}

// Sign stamps payloadToSign.
func (s *SessionStamper) Sign(_ context.Context, payloadToSign string) (string, error) {
	sum := sha256.Sum256([]byte(payloadToSign))
	sig, err := ecdsa.SignASN1(rand.Reader, s.key, sum[:])
	if err != nil {
		return "", fmt.Errorf("paycore: stamp: %w", err)
	}
	j, err := json.Marshal(map[string]string{"publicKey": s.pub, "scheme": "SIGNATURE_SCHEME_TK_API_P256", "signature": hex.EncodeToString(sig)})
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(j), nil
}

// GenerateSessionStamper makes a new session key held by this client: pass PublicKeyHex as
// clientPublicKey when verifying a credential, and the session the service opens signs with
// this key (the service keeps no copy of it).
func GenerateSessionStamper() (*SessionStamper, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("paycore: session key: %w", err)
	}
	raw, err := k.Bytes()
	if err != nil {
		return nil, fmt.Errorf("paycore: session key: %w", err)
	}
	return NewSessionStamper(hex.EncodeToString(raw))
}

// PublicKeyHex is the session key's compressed public key, hex.
func (s *SessionStamper) PublicKeyHex() string { return s.pub }
