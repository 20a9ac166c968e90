package uma

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func newKey(t *testing.T) PrivateKey {
	t.Helper()
	k, err := NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A signature verifies with its key over its payload only; a malformed one is refused.
func TestSignVerify(t *testing.T) {
	k, other := newKey(t), newKey(t)
	sig := k.Sign("$bob@vasp2.com|nonce|1700000000")
	if err := k.Public().Verify("$bob@vasp2.com|nonce|1700000000", sig); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		key          PublicKey
		payload, sig string
	}{
		"another payload": {k.Public(), "$bob@vasp2.com|nonce|1700000001", sig},
		"another key":     {other.Public(), "$bob@vasp2.com|nonce|1700000000", sig},
		"not hex":         {k.Public(), "$bob@vasp2.com|nonce|1700000000", "zz"},
		"not DER":         {k.Public(), "$bob@vasp2.com|nonce|1700000000", "3006020101"},
		"empty":           {k.Public(), "$bob@vasp2.com|nonce|1700000000", ""},
	} {
		if err := tc.key.Verify(tc.payload, tc.sig); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: %v", name, err)
		}
	}
	again, err := ParsePrivateKey(k.Bytes())
	if err != nil || !again.Public().Equal(k.Public()) {
		t.Fatalf("a key read back from its bytes: %v", err)
	}
	if _, err := ParsePrivateKey(make([]byte, 32)); err == nil {
		t.Error("a zero key was accepted")
	}
}

// A payload encrypted to a key decrypts with it only; altered or truncated, it does not.
func TestEncryptDecrypt(t *testing.T) {
	k := newKey(t)
	plain := []byte(`{"name":"Alice","address":"1 Main St"}`)
	enc, err := k.Public().Encrypt(plain)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) != 65+16+16+len(plain) || enc[0] != 4 {
		t.Fatalf("payload of %d bytes starting %x", len(enc), enc[0])
	}
	got, err := k.Decrypt(enc)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("decrypted %q, %v", got, err)
	}
	altered := bytes.Clone(enc)
	altered[len(altered)-1] ^= 1
	for name, payload := range map[string][]byte{"altered": altered, "truncated": enc[:90], "empty": nil} {
		if _, err := k.Decrypt(payload); !errors.Is(err, ErrDecrypt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := newKey(t).Decrypt(enc); !errors.Is(err, ErrDecrypt) {
		t.Errorf("another key decrypted it: %v", err)
	}
}

// A self-signed certificate carries its key for its validity period; a chain is checked
// link by link and for its period.
func TestCertificates(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	k := newKey(t)
	der, err := SelfSigned(k, "vasp1.example", 7, now.Add(-time.Hour), now.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	chain, err := ParseChain([]string{hex.EncodeToString(der)}, now)
	if err != nil {
		t.Fatal(err)
	}
	if !chain.Key().Equal(k.Public()) || chain[0].Subject != "vasp1.example" || !chain[0].NotAfter.Equal(now.Add(24*time.Hour)) {
		t.Fatalf("chain %+v", chain[0])
	}
	if _, err := ParseChain([]string{hex.EncodeToString(der)}, now.Add(25*time.Hour)); !errors.Is(err, ErrCertChainExpired) {
		t.Errorf("an expired certificate: %v", err)
	}
	other, _ := SelfSigned(newKey(t), "vasp1.example", 8, now.Add(-time.Hour), now.Add(time.Hour))
	for name, certs := range map[string][]string{
		"not hex":              {"zz"},
		"not a certificate":    {"3003020101"},
		"none":                 nil,
		"signed by a stranger": {hex.EncodeToString(der), hex.EncodeToString(other)},
		"altered":              {hex.EncodeToString(append(bytes.Clone(der[:len(der)-1]), der[len(der)-1]^1))},
	} {
		if _, err := ParseChain(certs, now); !errors.Is(err, ErrCertChainInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Certificates openssl makes, as the protocol's documents tell providers to (UMAD-02): a
// self-signed one, and a leaf signed by an authority's root, are read and checked; a key on
// another curve is refused.
func TestOpensslCertificates(t *testing.T) {
	dir := t.TempDir()
	openssl := func(args ...string) {
		t.Helper()
		cmd := exec.Command("openssl", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	openssl("ecparam", "-genkey", "-name", "secp256k1", "-out", "root.key")
	openssl("req", "-new", "-x509", "-key", "root.key", "-sha256", "-nodes", "-days", "30", "-subj", "/CN=Identity Authority", "-out", "root.crt")
	openssl("ecparam", "-genkey", "-name", "secp256k1", "-out", "leaf.key")
	openssl("req", "-new", "-key", "leaf.key", "-sha256", "-subj", "/CN=vasp2.example", "-out", "leaf.csr")
	openssl("x509", "-req", "-in", "leaf.csr", "-CA", "root.crt", "-CAkey", "root.key", "-CAcreateserial", "-sha256", "-days", "7", "-out", "leaf.crt")
	openssl("ecparam", "-genkey", "-name", "prime256v1", "-out", "p256.key")
	openssl("req", "-new", "-x509", "-key", "p256.key", "-sha256", "-nodes", "-days", "30", "-subj", "/CN=p256", "-out", "p256.crt")
	der := func(name string) string {
		t.Helper()
		openssl("x509", "-in", name+".crt", "-outform", "DER", "-out", name+".der")
		b, err := os.ReadFile(filepath.Join(dir, name+".der"))
		if err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(b)
	}
	now := time.Now()
	chain, err := ParseChain([]string{der("leaf"), der("root")}, now)
	if err != nil {
		t.Fatal(err)
	}
	if chain[0].Subject != "vasp2.example" || chain[0].Issuer != "Identity Authority" || chain[1].Subject != "Identity Authority" {
		t.Fatalf("chain %s ← %s", chain[0].Subject, chain[1].Subject)
	}
	if _, err := ParseChain([]string{der("root")}, now); err != nil {
		t.Errorf("a self-signed openssl certificate: %v", err)
	}
	if _, err := ParseChain([]string{der("leaf")}, now); !errors.Is(err, ErrCertChainInvalid) {
		t.Errorf("a leaf without its issuer: %v", err)
	}
	if _, err := ParseChain([]string{der("p256")}, now); !errors.Is(err, ErrCertChainInvalid) {
		t.Errorf("a P-256 key: %v", err)
	}
}
