package walletauth

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/walletcrypto"
)

// RetryWindow is how long a challenge (of a signed retry or a passkey session) stays
// valid.
const RetryWindow = 5 * time.Minute

// What a signed retry authorises (the kind of a stored challenge). Money movements use
// their transfer kind.
const (
	KindAddCredential    = "ADD_CREDENTIAL"
	KindRevokeCredential = "REVOKE_CREDENTIAL"
	KindRevokeSession    = "REVOKE_SESSION"
	KindRefreshSession   = "REFRESH_SESSION"
	KindUpdateAccount    = "UPDATE_ACCOUNT"
	KindExportWallet     = "EXPORT_WALLET"
	// KindUpdateCustomerEmail moves where a wallet's one-time codes go.
	KindUpdateCustomerEmail = "UPDATE_CUSTOMER_EMAIL"
	// KindPasskeySession is the kind of passkey authentication challenges.
	KindPasskeySession = "PASSKEY_SESSION"
	// KindExecuteQuote authorises executing a quote whose source is an embedded wallet.
	KindExecuteQuote = "EXECUTE_QUOTE"
	// KindOTPSession is the second leg of an encrypted one-time code: the client key the
	// code came with signs for its session.
	KindOTPSession = "OTP_SESSION"
)

// Challenge is a challenge to store and hand out.
type Challenge struct {
	ID        uuid.UUID
	Kind      string
	AccountID uuid.UUID
	// Payload is the exact text to sign (a signed retry's payloadToSign), or whose hash a
	// passkey signs.
	Payload string
	// Binding is what the answer must match: the RequestHash of a signed retry, the raw
	// client key of a passkey challenge.
	Binding   []byte
	ExpiresAt time.Time
}

// RequestID is the challenge's requestId.
func (c Challenge) RequestID() string { return ids.Format(ids.Request, c.ID) }

// challengeExpiry is when a challenge issued at now expires, in whole seconds (the
// payload states it to the second).
func challengeExpiry(now time.Time) time.Time {
	return now.UTC().Add(RetryWindow).Truncate(time.Second)
}

// RequestHash binds a signed retry to its request: the SHA-256 of "METHOD PATH\n"
// followed by the exact body.
func RequestHash(method, path string, body []byte) []byte {
	h := sha256.Sum256(append([]byte(method+" "+path+"\n"), body...))
	return h[:]
}

// NewRetryChallenge is the challenge of a request that needs a wallet signature: the
// payloadToSign names the request id, what it authorises, the account, the expiry and the
// request itself (method, path and the SHA-256 of its body).
func NewRetryChallenge(kind string, accountID uuid.UUID, method, path string, body []byte, now time.Time) Challenge {
	return NewRetryChallengeUntil(kind, accountID, method, path, body, challengeExpiry(now))
}

// NewRetryChallengeUntil is NewRetryChallenge with the given expiry (a quote's own
// challenge lasts as long as the quote).
func NewRetryChallengeUntil(kind string, accountID uuid.UUID, method, path string, body []byte, expiresAt time.Time) Challenge {
	c := Challenge{ID: ids.New(), Kind: kind, AccountID: accountID, Binding: RequestHash(method, path, body), ExpiresAt: expiresAt.UTC().Truncate(time.Second)}
	bodySum := sha256.Sum256(body)
	payload, _ := json.Marshal(struct {
		RequestID  string `json:"requestId"`
		Type       string `json:"type"`
		AccountID  string `json:"accountId"`
		ExpiresAt  string `json:"expiresAt"`
		Method     string `json:"method"`
		Path       string `json:"path"`
		BodySha256 string `json:"bodySha256"`
	}{c.RequestID(), kind, ids.Format(ids.InternalAccount, accountID), c.ExpiresAt.Format(time.RFC3339),
		method, path, hex.EncodeToString(bodySum[:])})
	c.Payload = string(payload)
	return c
}

// Issued is a stored challenge as the answer to it finds it.
type Issued struct {
	AccountID uuid.UUID
	Kind      string
	Payload   string
	Binding   []byte
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// RetryRequestID reads the Request-Id of a signed retry; the Service-Wallet-Signature
// (sig) must come with it.
func RetryRequestID(sig, requestID string) (uuid.UUID, error) {
	switch {
	case sig == "":
		return uuid.Nil, SignatureRefused(catalog.WalletSignatureMissing, "the signed retry carries Request-Id without Service-Wallet-Signature: both go together")
	case requestID == "":
		return uuid.Nil, SignatureRefused(catalog.RequestIDMissing, "the signed retry carries Service-Wallet-Signature without Request-Id: both go together")
	}
	id, err := ids.Parse(ids.Request, requestID)
	if err != nil {
		return uuid.Nil, UnknownRequest()
	}
	return id, nil
}

// UnknownRequest is the refusal of a Request-Id that names no challenge of the platform.
func UnknownRequest() error {
	return SignatureRefused(catalog.WalletSignatureInvalid, "Request-Id is not a requestId this service issued")
}

// CheckRetry checks a signed retry against its challenge at now: used once, before the
// challenge expires, and repeating the challenged request exactly (account, kind and
// request hash).
func CheckRetry(is Issued, accountID uuid.UUID, kind string, hash []byte, now time.Time) error {
	switch {
	case is.UsedAt != nil:
		return Unauthorized(ReasonRequestUsed, "this requestId was already used; start again without signature headers")
	case now.After(is.ExpiresAt):
		return Unauthorized(ReasonRetryExpired, "the signed retry arrived after expiresAt; start again without signature headers")
	case is.AccountID != accountID || is.Kind != kind || !bytes.Equal(is.Binding, hash):
		return SignatureRefused(catalog.WalletSignatureBodyMismatch, "the signed retry must repeat the original request exactly")
	}
	return nil
}

// RetryUsed is the refusal of a signed retry whose challenge another retry used first.
func RetryUsed() error {
	return Unauthorized(ReasonRequestUsed, "this requestId was already used")
}

// StampKey checks a Service-Wallet-Signature over the exact payload and returns the
// signing public key.
func StampKey(sig, payload string) ([]byte, error) {
	stamp, err := walletcrypto.ParseStamp(sig)
	if err != nil {
		return nil, SignatureRefused(catalog.WalletSignatureMalformed, "Service-Wallet-Signature: %s", err.Error())
	}
	if err := stamp.Verify([]byte(payload)); err != nil {
		return nil, SignatureRefused(catalog.WalletSignatureInvalid, "Service-Wallet-Signature does not sign payloadToSign")
	}
	return stamp.PublicKey, nil
}

// SessionSigner is the key of one active session of an account.
type SessionSigner struct {
	CredentialID uuid.UUID
	PublicKey    []byte
}

// CheckSigner checks that key belongs to one of the active sessions, and not to a session
// of the credential exclude (a credential cannot authorise its own revocation; uuid.Nil
// excludes none).
func CheckSigner(key []byte, active []SessionSigner, exclude uuid.UUID) error {
	for _, s := range active {
		if walletcrypto.SameKey(s.PublicKey, key) && s.CredentialID != exclude {
			return nil
		}
	}
	return SignatureRefused(catalog.WalletSignatureInvalid, "the signing key is not an active session of this account (of another credential, for a revocation)")
}

// NewOTPRetry is the challenge of an encrypted one-time code that was right: its
// payloadToSign carries a fresh verificationToken bound to clientKey (the key the code came
// with, hex in publicKey), and only that key's stamp over it, on a retry of the same
// request, issues the session (OTPRetryKey).
func NewOTPRetry(accountID uuid.UUID, clientKey []byte, method, path string, body []byte, now time.Time) (Challenge, error) {
	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		return Challenge{}, fmt.Errorf("verification token: %w", err)
	}
	c := Challenge{ID: ids.New(), Kind: KindOTPSession, AccountID: accountID, Binding: RequestHash(method, path, body), ExpiresAt: challengeExpiry(now)}
	payload, err := json.Marshal(otpRetryPayload{RequestID: c.RequestID(), Type: KindOTPSession, AccountID: ids.Format(ids.InternalAccount, accountID),
		ExpiresAt: c.ExpiresAt.Format(time.RFC3339), VerificationToken: hex.EncodeToString(token), PublicKey: hex.EncodeToString(clientKey)})
	if err != nil {
		return Challenge{}, fmt.Errorf("encode OTP retry: %w", err)
	}
	c.Payload = string(payload)
	return c, nil
}

// otpRetryPayload is the payloadToSign of an encrypted code's retry.
type otpRetryPayload struct {
	RequestID         string `json:"requestId"`
	Type              string `json:"type"`
	AccountID         string `json:"accountId"`
	ExpiresAt         string `json:"expiresAt"`
	VerificationToken string `json:"verificationToken"`
	PublicKey         string `json:"publicKey"`
}

// OTPRetryKey checks the stamp sig of an encrypted code's retry over its challenge's
// payload and returns the key the session is issued to: the stamp must be by the key the
// code came with.
func OTPRetryKey(sig, payload string) ([]byte, error) {
	var p otpRetryPayload
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		return nil, fmt.Errorf("decode OTP retry payload: %w", err)
	}
	want, err := hex.DecodeString(p.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("decode OTP retry key: %w", err)
	}
	key, err := StampKey(sig, payload)
	if err != nil {
		return nil, err
	}
	if !walletcrypto.SameKey(key, want) {
		return nil, SignatureRefused(catalog.WalletSignatureInvalid, "the signed retry of an encrypted code is signed by the key the code came with (public_key in encryptedOtpBundle)")
	}
	return want, nil
}
