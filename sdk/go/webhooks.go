package paycore

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// WebhookVerifier checks the webhooks the service sends a platform, both ways it signs them:
// X-Service-Signature (ECDSA P-256 over SHA-256 of the raw body, with the key of
// GET /webhooks/signing-key) and the Standard Webhooks headers (webhook-id,
// webhook-timestamp, webhook-signature, with the secret of GET /webhooks/secret).
type WebhookVerifier struct {
	// SigningKeyPEM is the service's public key (GET /webhooks/signing-key); X-Service-
	// Signature is not checked when empty.
	SigningKeyPEM string
	// Secrets are the Standard Webhooks secrets ("whsec_..."): during a rotation, the new one
	// and the old one, either of which verifies. The headers are not checked when empty.
	Secrets []string
	// Tolerance is how far webhook-timestamp may be from now (5 minutes when zero): an older
	// webhook is a replay and refused.
	Tolerance time.Duration
	// Now is the clock the timestamp is checked against (time.Now when nil).
	Now func() time.Time
}

// WebhookVerificationError is a webhook that did not verify; Scheme names the check that
// failed: "ecdsa", "standard" or "input".
type WebhookVerificationError struct {
	Scheme string
	Err    error
}

func (e *WebhookVerificationError) Error() string {
	return fmt.Sprintf("paycore: webhook %s check failed: %v", e.Scheme, e.Err)
}

func (e *WebhookVerificationError) Unwrap() error { return e.Err }

// Verify checks a webhook's raw body (exactly as received) and headers with every scheme
// the verifier has a key for, and returns its event.
func (v WebhookVerifier) Verify(body []byte, header http.Header) (*WebhookEnvelope, error) {
	if v.SigningKeyPEM == "" && len(v.Secrets) == 0 {
		return nil, &WebhookVerificationError{"input", errors.New("no signing key and no secret to check with")}
	}
	if v.SigningKeyPEM != "" {
		if err := verifyECDSA(v.SigningKeyPEM, body, header.Get("X-Service-Signature")); err != nil {
			return nil, &WebhookVerificationError{"ecdsa", err}
		}
	}
	if len(v.Secrets) > 0 {
		if err := v.verifyStandard(body, header); err != nil {
			return nil, &WebhookVerificationError{"standard", err}
		}
	}
	var ev WebhookEnvelope
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, &WebhookVerificationError{"input", fmt.Errorf("the body is not an event: %w", err)}
	}
	return &ev, nil
}

func (v WebhookVerifier) verifyStandard(body []byte, header http.Header) error {
	ts, err := strconv.ParseInt(header.Get("webhook-timestamp"), 10, 64)
	if err != nil {
		return errors.New("missing or malformed webhook-timestamp")
	}
	now, tolerance := time.Now, cmpOr(v.Tolerance, 5*time.Minute)
	if v.Now != nil {
		now = v.Now
	}
	if d := now().Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("webhook-timestamp is %s away from now (at most %s): a replay or a wrong clock", d.Round(time.Second), tolerance)
	}
	for _, secret := range v.Secrets {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			return fmt.Errorf("secret: %w", err)
		}
		if wh.VerifyIgnoringTimestamp(body, header) == nil { // the timestamp is checked above, against Now
			return nil
		}
	}
	return fmt.Errorf("no v1 signature of webhook-signature matches any of the %d secret(s)", len(v.Secrets))
}

func verifyECDSA(keyPEM string, body []byte, signature string) error {
	if signature == "" {
		return errors.New("missing X-Service-Signature")
	}
	block, _ := pem.Decode([]byte(keyPEM))
	if block == nil {
		return errors.New("the signing key is not PEM")
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	key, ok := pub.(*ecdsa.PublicKey)
	if !ok {
		return errors.New("the signing key is not ECDSA")
	}
	sig, err := base64.StdEncoding.DecodeString(signature)
	if err != nil {
		return errors.New("X-Service-Signature is not base64")
	}
	sum := sha256.Sum256(body)
	if !ecdsa.VerifyASN1(key, sum[:], sig) {
		return errors.New("X-Service-Signature does not match the body")
	}
	return nil
}
