// Package filecrypt encrypts files at rest, streaming: age (filippo.io/age) with one
// X25519 identity of the service. Each file gets a random file key wrapped to the
// identity's recipient, and its content is encrypted in 64 KiB chunks of
// ChaCha20-Poly1305 (age's STREAM construction), so a file of any size is encrypted and
// decrypted in constant memory, and any change, truncation or reordering of its chunks
// fails decryption. The identity itself is kept sealed under the service master key
// (internal/kit/sealbox).
package filecrypt

import (
	"errors"
	"fmt"
	"io"

	"filippo.io/age"

	"paycore/internal/kit/sealbox"
)

// sealLabel binds a sealed identity to its purpose.
const sealLabel = "filecrypt-x25519-identity"

// Key encrypts files to one X25519 identity and decrypts them with it.
type Key struct {
	id *age.X25519Identity
}

// Generate makes a new random key.
func Generate() (*Key, error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, fmt.Errorf("generate file encryption key: %w", err)
	}
	return &Key{id: id}, nil
}

// Parse reads a key from its secret form (AGE-SECRET-KEY-1…).
func Parse(secret string) (*Key, error) {
	id, err := age.ParseX25519Identity(secret)
	if err != nil {
		return nil, fmt.Errorf("parse file encryption key: %w", err)
	}
	return &Key{id: id}, nil
}

// Secret is the key's secret form; keep it sealed (Seal).
func (k *Key) Secret() string { return k.id.String() }

// Recipient is the key's public form (age1…), which files are encrypted to.
func (k *Key) Recipient() string { return k.id.Recipient().String() }

// Seal encrypts the key under the service master key.
func (k *Key) Seal(box *sealbox.Box) []byte { return box.Seal(sealLabel, []byte(k.Secret())) }

// Unseal opens a key sealed by Seal.
func Unseal(box *sealbox.Box, sealed []byte) (*Key, error) {
	secret, err := box.Open(sealLabel, sealed)
	if err != nil {
		return nil, fmt.Errorf("file encryption key does not open under the master key: %w", err)
	}
	return Parse(string(secret))
}

// Encrypt returns a writer that encrypts what is written to it into dst. Close it to
// write the last chunk; until then dst does not hold a complete file.
func (k *Key) Encrypt(dst io.Writer) (io.WriteCloser, error) {
	w, err := age.Encrypt(dst, k.id.Recipient())
	if err != nil {
		return nil, fmt.Errorf("start encryption: %w", err)
	}
	return w, nil
}

// ErrDecrypt is wrapped by every failure to decrypt a file: another key's file, or one
// that was changed or cut short.
var ErrDecrypt = errors.New("file does not decrypt")

// Decrypt returns a reader of the plaintext of the encrypted file src. The header is read
// at once; each chunk is authenticated before any of it is returned, and a file cut short
// fails at its end rather than ending early.
func (k *Key) Decrypt(src io.Reader) (io.Reader, error) {
	r, err := age.Decrypt(src, k.id)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecrypt, err)
	}
	return &decryptReader{r: r}, nil
}

type decryptReader struct{ r io.Reader }

func (d *decryptReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: %w", ErrDecrypt, err)
	}
	return n, err
}
