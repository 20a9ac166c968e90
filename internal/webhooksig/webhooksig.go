// Package webhooksig signs outgoing webhooks two ways:
//
//   - X-Service-Signature: ECDSA P-256 over SHA-256 of the raw body, base64 of the ASN.1 DER
//     signature, verifiable with the service public key (PEM, SPKI) a platform reads from the API;
//   - Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature "v1,<base64 HMAC-SHA256>"),
//     keyed by a per-platform secret, which also covers the id and timestamp and so gives
//     receivers replay protection.
package webhooksig

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Header names.
const (
	HeaderServiceSignature = "X-Service-Signature"
	HeaderID               = "webhook-id"
	HeaderTimestamp        = "webhook-timestamp"
	HeaderSignature        = "webhook-signature"
)

// SealLabel is the sealbox label under which Standard Webhooks secrets are stored.
const SealLabel = "webhook-secret"

// SecretPrefix marks a Standard Webhooks secret in its printable form.
const SecretPrefix = "whsec_"

// ECDSASigner signs bodies with the service key.
type ECDSASigner struct {
	key *ecdsa.PrivateKey
}

// GenerateKey makes a new P-256 signing key and returns it as PKCS#8 DER.
func GenerateKey() ([]byte, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate webhook signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, fmt.Errorf("marshal webhook signing key: %w", err)
	}
	return der, nil
}

// NewECDSASigner loads a PKCS#8 DER P-256 private key.
func NewECDSASigner(pkcs8 []byte) (*ECDSASigner, error) {
	k, err := x509.ParsePKCS8PrivateKey(pkcs8)
	if err != nil {
		return nil, fmt.Errorf("parse webhook signing key: %w", err)
	}
	ek, ok := k.(*ecdsa.PrivateKey)
	if !ok || ek.Curve != elliptic.P256() {
		return nil, errors.New("webhook signing key is not an ECDSA P-256 key")
	}
	return &ECDSASigner{key: ek}, nil
}

// PublicKeyPEM is the SPKI public key in PEM form, for platforms to verify with.
func (s *ECDSASigner) PublicKeyPEM() string {
	der, _ := x509.MarshalPKIXPublicKey(&s.key.PublicKey) // cannot fail for a P-256 key
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// Sign returns the X-Service-Signature value for body.
func (s *ECDSASigner) Sign(body []byte) (string, error) {
	sum := sha256.Sum256(body)
	sig, err := ecdsa.SignASN1(rand.Reader, s.key, sum[:])
	if err != nil {
		return "", fmt.Errorf("sign webhook: %w", err)
	}
	return base64.StdEncoding.EncodeToString(sig), nil
}

// VerifyECDSA checks an X-Service-Signature value against a PEM public key. Receivers in
// Go can use it; it is also what the service's own tests are cross-checked against.
func VerifyECDSA(publicKeyPEM string, body []byte, signature string) error {
	block, _ := pem.Decode([]byte(publicKeyPEM))
	if block == nil {
		return errors.New("public key is not PEM")
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return fmt.Errorf("parse public key: %w", err)
	}
	ek, ok := pub.(*ecdsa.PublicKey)
	if !ok {
		return errors.New("public key is not ECDSA")
	}
	sig, err := base64.StdEncoding.DecodeString(signature)
	if err != nil {
		return fmt.Errorf("signature is not base64: %w", err)
	}
	sum := sha256.Sum256(body)
	if !ecdsa.VerifyASN1(ek, sum[:], sig) {
		return errors.New("signature does not verify")
	}
	return nil
}

// NewSecret returns a fresh Standard Webhooks secret: its raw bytes and printable form.
func NewSecret() (raw []byte, printable string) {
	raw = make([]byte, 32)
	_, _ = rand.Read(raw)
	return raw, FormatSecret(raw)
}

// FormatSecret renders raw secret bytes as "whsec_<base64>".
func FormatSecret(raw []byte) string {
	return SecretPrefix + base64.StdEncoding.EncodeToString(raw)
}

// SignStandard returns the webhook-signature header value: one "v1,<sig>" per secret,
// space separated, so a receiver holding either the new or the rotated-out secret verifies.
func SignStandard(secrets [][]byte, msgID string, ts time.Time, body []byte) string {
	parts := make([]string, 0, len(secrets))
	content := msgID + "." + strconv.FormatInt(ts.Unix(), 10) + "."
	for _, sec := range secrets {
		mac := hmac.New(sha256.New, sec)
		mac.Write([]byte(content))
		mac.Write(body)
		parts = append(parts, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(parts, " ")
}

// SetHeaders sets, through set (an http.Header's Set), the signature headers of a webhook
// POST of body, the event msgID sent at ts: X-Service-Signature (serviceSignature, the
// service's signature of body) and the Standard Webhooks headers, signed with each of
// secrets.
func SetHeaders(set func(key, value string), serviceSignature, msgID string, ts time.Time, secrets [][]byte, body []byte) {
	set(HeaderServiceSignature, serviceSignature)
	set(HeaderID, msgID)
	set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	set(HeaderSignature, SignStandard(secrets, msgID, ts, body))
}

// ParseSecret reads a secret in its printable form ("whsec_<base64>"), as FormatSecret
// writes it.
func ParseSecret(s string) ([]byte, error) {
	b64, ok := strings.CutPrefix(s, SecretPrefix)
	if !ok {
		return nil, fmt.Errorf("a webhook secret starts with %q", SecretPrefix)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) < 24 {
		return nil, errors.New("a webhook secret is whsec_ and the base64 of at least 24 bytes")
	}
	return raw, nil
}
