package uma

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// KeySet is a provider's keys (UMAD-02): the signing key its messages are signed with and
// the encryption key travel-rule data is encrypted to, each with its self-signed
// certificate (DER), both valid until NotAfter.
type KeySet struct {
	Signing, Encryption         PrivateKey
	SigningCert, EncryptionCert []byte
	NotAfter                    time.Time
}

// CertificateLifetime is how long a new key set's certificates are valid: keys are rotated
// before (paycore uma rotate-keys).
const CertificateLifetime = 365 * 24 * time.Hour

// PublishedKeysTTL is how long other providers may cache the published keys: an hour, as
// UMAD-02 advises short caching for self-signed certificates. A rotated key set still
// decrypts for that long what was encrypted to it from a cache.
const PublishedKeysTTL = time.Hour

// CertificateName is the common name of the deployment's certificates ("UMA signing",
// "UMA encryption"): the domain that serves them is what names the provider.
const CertificateName = "UMA"

// NewKeySet makes a key set whose certificates name commonName, valid from now.
func NewKeySet(commonName string, now time.Time) (KeySet, error) {
	ks := KeySet{NotAfter: now.Add(CertificateLifetime).UTC().Truncate(time.Second)}
	var err error
	if ks.Signing, err = NewPrivateKey(); err != nil {
		return KeySet{}, err
	}
	if ks.Encryption, err = NewPrivateKey(); err != nil {
		return KeySet{}, err
	}
	serial := now.UnixNano()
	if ks.SigningCert, err = SelfSigned(ks.Signing, commonName+" signing", serial, now.Add(-time.Minute), ks.NotAfter); err != nil {
		return KeySet{}, err
	}
	if ks.EncryptionCert, err = SelfSigned(ks.Encryption, commonName+" encryption", serial+1, now.Add(-time.Minute), ks.NotAfter); err != nil {
		return KeySet{}, err
	}
	return ks, nil
}

// NewSealedKeySet is a new key set (NewKeySet, with the deployment's CertificateName) sealed
// with s, as it is stored.
func NewSealedKeySet(s Sealer, now time.Time) (SealedKeySet, error) {
	ks, err := NewKeySet(CertificateName, now)
	if err != nil {
		return SealedKeySet{}, err
	}
	return ks.Seal(s), nil
}

// Published is what /.well-known/lnurlpubkey answers for ks at now: both chains (one
// self-signed certificate each), the leaves' keys, and when to fetch them again.
func (ks KeySet) Published(now time.Time) PubKeyResponse {
	expires := now.Add(PublishedKeysTTL)
	if ks.NotAfter.Before(expires) {
		expires = ks.NotAfter
	}
	return PubKeyResponse{SigningCertChain: []string{hex.EncodeToString(ks.SigningCert)}, EncryptionCertChain: []string{hex.EncodeToString(ks.EncryptionCert)},
		SigningPubKey: hex.EncodeToString(ks.Signing.Public().Uncompressed()), EncryptionPubKey: hex.EncodeToString(ks.Encryption.Public().Uncompressed()),
		ExpirationTimestamp: expires.Unix()}
}

// Sealer seals secrets under the deployment's master key and opens them (sealbox.Box).
type Sealer interface {
	Seal(label string, plaintext []byte) []byte
	Open(label string, sealed []byte) ([]byte, error)
}

// Labels the private keys are sealed under.
const (
	signingSealLabel    = "uma-signing-key"
	encryptionSealLabel = "uma-encryption-key"
)

// SealedKeySet is a key set as it is stored: its private keys sealed.
type SealedKeySet struct {
	SigningSealed, SigningCert       []byte
	EncryptionSealed, EncryptionCert []byte
	NotAfter                         time.Time
}

// Seal seals ks's private keys with s.
func (ks KeySet) Seal(s Sealer) SealedKeySet {
	return SealedKeySet{SigningSealed: s.Seal(signingSealLabel, ks.Signing.Bytes()), SigningCert: ks.SigningCert,
		EncryptionSealed: s.Seal(encryptionSealLabel, ks.Encryption.Bytes()), EncryptionCert: ks.EncryptionCert, NotAfter: ks.NotAfter}
}

// Open opens a stored key set with s.
func (sk SealedKeySet) Open(s Sealer) (KeySet, error) {
	open := func(label string, sealed []byte) (PrivateKey, error) {
		b, err := s.Open(label, sealed)
		if err != nil {
			return PrivateKey{}, fmt.Errorf("uma: the %s does not open under the master key: %w", label, err)
		}
		return ParsePrivateKey(b)
	}
	signing, err := open(signingSealLabel, sk.SigningSealed)
	if err != nil {
		return KeySet{}, err
	}
	encryption, err := open(encryptionSealLabel, sk.EncryptionSealed)
	if err != nil {
		return KeySet{}, err
	}
	return KeySet{Signing: signing, Encryption: encryption, SigningCert: sk.SigningCert, EncryptionCert: sk.EncryptionCert, NotAfter: sk.NotAfter}, nil
}

// OpenedKeys keeps the last key set opened, so that serving the same stored set again
// (every LNURLP answer, every published-keys request) does not unseal it again; a
// different stored set (a rotation) is opened anew. Safe for concurrent use.
type OpenedKeys struct {
	mu     sync.Mutex
	sealed SealedKeySet
	keys   KeySet
	ok     bool
}

// Open is sk opened with s, from the last one opened when sk is the same stored set.
func (o *OpenedKeys) Open(sk SealedKeySet, s Sealer) (KeySet, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ok && bytes.Equal(o.sealed.SigningSealed, sk.SigningSealed) && bytes.Equal(o.sealed.EncryptionSealed, sk.EncryptionSealed) &&
		bytes.Equal(o.sealed.SigningCert, sk.SigningCert) && bytes.Equal(o.sealed.EncryptionCert, sk.EncryptionCert) && o.sealed.NotAfter.Equal(sk.NotAfter) {
		return o.keys, nil
	}
	ks, err := sk.Open(s)
	if err != nil {
		return KeySet{}, err
	}
	o.sealed, o.keys, o.ok = sk, ks, true
	return ks, nil
}
