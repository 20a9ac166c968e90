package filecrypt

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"

	"paycore/internal/kit/sealbox"
)

func encrypt(t testing.TB, k *Key, plain []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := k.Encrypt(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(plain); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decrypt(k *Key, sealed []byte) ([]byte, error) {
	r, err := k.Decrypt(bytes.NewReader(sealed))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func TestRoundTrip(t *testing.T) {
	k, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{0, 1, 64 << 10, 64<<10 + 1, 300 << 10} {
		plain := make([]byte, size)
		_, _ = rand.Read(plain)
		copy(plain, "%PDF-1.7 a recognisable plaintext")
		sealed := encrypt(t, k, plain)
		if size > 8 && bytes.Contains(sealed, plain[:min(size, 33)]) {
			t.Fatalf("size %d: plaintext visible in the encrypted file", size)
		}
		got, err := decrypt(k, sealed)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("size %d: decrypt = %d bytes, %v", size, len(got), err)
		}
	}
}

func TestRefusesOtherKeysAndTampering(t *testing.T) {
	k, _ := Generate()
	other, _ := Generate()
	plain := bytes.Repeat([]byte("document "), 20000) // several chunks
	sealed := encrypt(t, k, plain)
	if _, err := decrypt(other, sealed); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("another key: %v", err)
	}
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)/2] ^= 1
	if _, err := decrypt(k, flipped); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("a changed byte: %v", err)
	}
	if _, err := decrypt(k, sealed[:len(sealed)-100]); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("a file cut short: %v", err)
	}
	if _, err := decrypt(k, []byte("not an age file")); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("garbage: %v", err)
	}
}

func TestSealParse(t *testing.T) {
	key, _ := sealbox.ParseKey(sealbox.NewKey())
	box, _ := sealbox.New(key)
	k, _ := Generate()
	sealed := k.Seal(box)
	if bytes.Contains(sealed, []byte(k.Secret())) || !strings.HasPrefix(k.Secret(), "AGE-SECRET-KEY-1") || !strings.HasPrefix(k.Recipient(), "age1") {
		t.Fatal("secret visible in the sealed key, or unexpected forms")
	}
	back, err := Unseal(box, sealed)
	if err != nil || back.Secret() != k.Secret() || back.Recipient() != k.Recipient() {
		t.Fatalf("Unseal: %v", err)
	}
	otherKey, _ := sealbox.ParseKey(sealbox.NewKey())
	otherBox, _ := sealbox.New(otherKey)
	if _, err := Unseal(otherBox, sealed); err == nil {
		t.Fatal("unsealed under another master key")
	}
	if _, err := Parse("AGE-SECRET-KEY-1NOTAKEY"); err == nil {
		t.Fatal("parsed a malformed key")
	}
	// A file encrypted before a restart decrypts with the key read back.
	plain := []byte("%PDF-1.4 kept across restarts")
	if got, err := decrypt(back, encrypt(t, k, plain)); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("decrypt with the unsealed key: %v", err)
	}
}

// Encrypting a large file streams: memory per file stays far below its size.
func BenchmarkEncrypt10MiB(b *testing.B) {
	k, _ := Generate()
	chunk := make([]byte, 32<<10)
	b.ReportAllocs()
	b.SetBytes(10 << 20)
	for b.Loop() {
		w, _ := k.Encrypt(io.Discard)
		for i := 0; i < (10<<20)/len(chunk); i++ {
			_, _ = w.Write(chunk)
		}
		_ = w.Close()
	}
}
