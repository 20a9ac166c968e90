// Package secrets creates API token secrets and checks them. A secret is 32 random bytes;
// only its SHA-256 digest is stored. A fast hash suits a high-entropy secret: brute force
// is infeasible, and a slow hash would cost every request.
package secrets

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
)

// SecretBytes is the entropy of a generated secret.
const SecretBytes = 32

// New returns a fresh secret in its printable form (base64url, no padding) and its digest.
func New() (secret string, digest []byte) {
	b := make([]byte, SecretBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	secret = base64.RawURLEncoding.EncodeToString(b)
	return secret, Digest(secret)
}

// Digest is the stored form of a secret.
func Digest(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// Matches reports, in constant time, whether secret hashes to digest.
func Matches(secret string, digest []byte) bool {
	return subtle.ConstantTimeCompare(Digest(secret), digest) == 1
}
