// Package sealbox encrypts small secrets at rest (signing keys, webhook secrets, wallet key
// material) under the service master key with AES-256-GCM.
package sealbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
)

// KeySize is the master key length in bytes.
const KeySize = 32

// Box seals and opens values under one master key.
type Box struct {
	aead cipher.AEAD
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
	return &Box{aead: aead}, nil
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
