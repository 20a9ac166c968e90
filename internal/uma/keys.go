// Package uma is the Universal Money Address protocol, version 1 (the UMAD documents of
// uma-universal-money-address/protocol), as both sides of a payment speak it: the keys and
// certificates a provider publishes, the signatures its messages carry, the encryption of
// travel-rule data, and the messages themselves. It is pure: it builds, signs, verifies and
// parses; fetching and serving them is the service's.
package uma

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// PrivateKey is a provider's secp256k1 private key: its signing key or its encryption key
// (UMAD-02; they may be the same key).
type PrivateKey struct{ k *secp256k1.PrivateKey }

// NewPrivateKey makes a new random key.
func NewPrivateKey() (PrivateKey, error) {
	k, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		return PrivateKey{}, fmt.Errorf("uma: generate key: %w", err)
	}
	return PrivateKey{k}, nil
}

// ParsePrivateKey reads a key's 32 bytes.
func ParsePrivateKey(b []byte) (PrivateKey, error) {
	if len(b) != secp256k1.PrivKeyBytesLen {
		return PrivateKey{}, fmt.Errorf("uma: a private key is %d bytes, not %d", secp256k1.PrivKeyBytesLen, len(b))
	}
	k := secp256k1.PrivKeyFromBytes(b)
	if k.Key.IsZero() {
		return PrivateKey{}, errors.New("uma: the private key is zero")
	}
	return PrivateKey{k}, nil
}

// Bytes is the key's 32 bytes, for sealing it.
func (p PrivateKey) Bytes() []byte { return p.k.Serialize() }

// Public is the key's public half.
func (p PrivateKey) Public() PublicKey { return PublicKey{p.k.PubKey()} }

// Sign signs payload as every UMA message is signed: ECDSA over the SHA-256 of its bytes,
// DER-encoded, hex (UMAD-02).
func (p PrivateKey) Sign(payload string) string {
	h := sha256.Sum256([]byte(payload))
	return hex.EncodeToString(ecdsa.Sign(p.k, h[:]).Serialize())
}

// PublicKey is a provider's secp256k1 public key, as its certificates carry it.
type PublicKey struct{ k *secp256k1.PublicKey }

// ParsePublicKey reads a public key, compressed (33 bytes) or not (65 bytes).
func ParsePublicKey(b []byte) (PublicKey, error) {
	k, err := secp256k1.ParsePubKey(b)
	if err != nil {
		return PublicKey{}, fmt.Errorf("uma: public key: %w", err)
	}
	return PublicKey{k}, nil
}

// Uncompressed is the key's 65-byte uncompressed form.
func (k PublicKey) Uncompressed() []byte { return k.k.SerializeUncompressed() }

// Equal reports whether k and o are the same key.
func (k PublicKey) Equal(o PublicKey) bool { return k.k != nil && o.k != nil && k.k.IsEqual(o.k) }

// ErrBadSignature is a signature that does not verify: malformed, or not by the key over
// the payload.
var ErrBadSignature = errors.New("uma: the signature does not verify")

// Verify checks a hex DER signature (Sign) of payload by k.
func (k PublicKey) Verify(payload, signature string) error {
	der, err := hex.DecodeString(signature)
	if err != nil {
		return fmt.Errorf("%w: not hex", ErrBadSignature)
	}
	sig, err := ecdsa.ParseDERSignature(der)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	h := sha256.Sum256([]byte(payload))
	if !sig.Verify(h[:], k.k) {
		return ErrBadSignature
	}
	return nil
}
