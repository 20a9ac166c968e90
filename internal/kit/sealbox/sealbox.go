// Package sealbox encrypts small secrets at rest (signing keys, webhook secrets, wallet key
// material) under the service master key with AES-256-GCM.
package sealbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// KeySize is the master key length in bytes.
const KeySize = 32

// Box seals and opens values under one master key.
type Box struct {
	aead cipher.AEAD
	key  []byte
}

// New builds a Box from a 32-byte master key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("master key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	return &Box{aead: aead, key: append([]byte(nil), key...)}, nil
}

// ParseKey decodes a base64 (standard or URL alphabet, padded or not) 32-byte key.
func ParseKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) != KeySize {
				return nil, fmt.Errorf("master key must decode to %d bytes, got %d", KeySize, len(b))
			}
			return b, nil
		}
	}
	return nil, errors.New("master key is not valid base64")
}

// NewKey returns a random master key in base64.
func NewKey() string {
	b := make([]byte, KeySize)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// Derive is a 32-byte secret of its own for purpose label, derived from the master key
// with HKDF-SHA256: the same label always gives the same secret, and no secret tells
// anything about the master key or another label's.
func (b *Box) Derive(label string) []byte {
	out, err := hkdf.Key(sha256.New, b.key, nil, "paycore sealbox derive: "+label, 32)
	if err != nil {
		panic(err) // only for an output too long for SHA-256, and 32 bytes is not
	}
	return out
}

// Seal encrypts plaintext; label binds the ciphertext to its purpose (it is authenticated
// but not stored), so a value sealed for one purpose cannot be opened as another.
func (b *Box) Seal(label string, plaintext []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	_, _ = rand.Read(nonce)
	return b.aead.Seal(nonce, nonce, plaintext, []byte(label))
}

// Open decrypts a value made by Seal with the same label.
func (b *Box) Open(label string, sealed []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, errors.New("sealed value too short")
	}
	out, err := b.aead.Open(nil, sealed[:n], sealed[n:], []byte(label))
	if err != nil {
		return nil, fmt.Errorf("open sealed %s: %w", label, err)
	}
	return out, nil
}
