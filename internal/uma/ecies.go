package uma

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// The ECIES parameters of UMA's encrypted payloads (UMAD-02), those of the libraries the
// SDKs encrypt with (eciesjs, ecies/go): an ephemeral key, uncompressed; a key derived by
// HKDF-SHA-256 (no salt, no info) from the ephemeral public key and the shared point, both
// uncompressed; AES-256-GCM with a 16-byte nonce. A payload is
// ephemeral public key ‖ nonce ‖ tag ‖ ciphertext.
const (
	eciesKeyLen   = 65
	eciesNonceLen = 16
	eciesTagLen   = 16
)

// ErrDecrypt is a payload that cannot be decrypted with the key: malformed, or for another
// key, or altered.
var ErrDecrypt = errors.New("uma: the payload does not decrypt")

// Encrypt encrypts plaintext to k (a receiver's encryption key), as travel-rule data is
// sent.
func (k PublicKey) Encrypt(plaintext []byte) ([]byte, error) {
	eph, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		return nil, fmt.Errorf("uma: ephemeral key: %w", err)
	}
	ephPub := eph.PubKey().SerializeUncompressed()
	gcm, err := eciesCipher(ephPub, sharedPoint(eph, k.k))
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, eciesNonceLen)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("uma: nonce: %w", err)
	}
	sealed := gcm.Seal(nil, nonce, plaintext, nil) // ciphertext ‖ tag
	ct, tag := sealed[:len(sealed)-eciesTagLen], sealed[len(sealed)-eciesTagLen:]
	out := make([]byte, 0, eciesKeyLen+eciesNonceLen+len(sealed))
	out = append(out, ephPub...)
	out = append(out, nonce...)
	out = append(out, tag...)
	return append(out, ct...), nil
}

// Decrypt decrypts a payload encrypted to p's public key (Encrypt).
func (p PrivateKey) Decrypt(payload []byte) ([]byte, error) {
	if len(payload) < eciesKeyLen+eciesNonceLen+eciesTagLen {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrDecrypt, len(payload))
	}
	ephPub := payload[:eciesKeyLen]
	eph, err := secp256k1.ParsePubKey(ephPub)
	if err != nil {
		return nil, fmt.Errorf("%w: ephemeral key: %v", ErrDecrypt, err)
	}
	gcm, err := eciesCipher(ephPub, sharedPoint(p.k, eph))
	if err != nil {
		return nil, err
	}
	rest := payload[eciesKeyLen:]
	nonce, tag, ct := rest[:eciesNonceLen], rest[eciesNonceLen:eciesNonceLen+eciesTagLen], rest[eciesNonceLen+eciesTagLen:]
	plain, err := gcm.Open(nil, nonce, append(append([]byte{}, ct...), tag...), nil)
	if err != nil {
		return nil, ErrDecrypt
	}
	return plain, nil
}

// sharedPoint is k × pub, uncompressed.
func sharedPoint(k *secp256k1.PrivateKey, pub *secp256k1.PublicKey) []byte {
	var point, result secp256k1.JacobianPoint
	pub.AsJacobian(&point)
	secp256k1.ScalarMultNonConst(&k.Key, &point, &result)
	result.ToAffine()
	return secp256k1.NewPublicKey(&result.X, &result.Y).SerializeUncompressed()
}

// eciesCipher is the AES-256-GCM cipher keyed from the ephemeral public key and the shared
// point.
func eciesCipher(ephPub, shared []byte) (cipher.AEAD, error) {
	key, err := hkdf.Key(sha256.New, append(append([]byte{}, ephPub...), shared...), nil, "", 32)
	if err != nil {
		return nil, fmt.Errorf("uma: derive key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("uma: cipher: %w", err)
	}
	gcm, err := cipher.NewGCMWithNonceSize(block, eciesNonceLen)
	if err != nil {
		return nil, fmt.Errorf("uma: cipher: %w", err)
	}
	return gcm, nil
}
