package walletcrypto

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// Vectors produced by the JS client libraries (wire-formats.md).
const (
	clientPriv   = "2081b4faf990e621948c79f6085bbf1e5a324d16aa59b89db63a4ec131060bde"
	clientPub    = "04aeab1e1e6c40aa06ef9933b1110168bc288fcdd8a64207dc452ac8b90beef056796fa514f119df11ac6a4b035048b5c174e14b8ce7cfabbe215a2792272cf3fe"
	jsBundle     = "fZZtjHrZWSRC5vnpau2DxDETMXVWJHNvW1P2VCT8MiAVX3awTPD5RukyYMpwfqQVML8J9Jq3bsS53pPrzE9hhpLUQsymvWfvdJbu6pMLXdpBZuFbM7i"
	sessionPriv  = "e25e9ad8fcb0dc0c4c1a9f31087fb1ddb98ee80998e0f852ae5b9b421eefe50c"
	sessionPubC  = "0227fddc91a598a199043705ae0673241d9263f0f397c860b24018708cca6ddc28"
	stampPayload = `{"organizationId":"org_123","parameters":{"amount":"1.5"},"timestampMs":"1700000000000"}`
	jsStamp      = "eyJwdWJsaWNLZXkiOiIwMjI3ZmRkYzkxYTU5OGExOTkwNDM3MDVhZTA2NzMyNDFkOTI2M2YwZjM5N2M4NjBiMjQwMTg3MDhjY2E2ZGRjMjgiLCJzY2hlbWUiOiJTSUdOQVRVUkVfU0NIRU1FX1RLX0FQSV9QMjU2Iiwic2lnbmF0dXJlIjoiMzA0NjAyMjEwMDhjMzQyOGUxYjE0MTEzMjM3NDVmOGUxMjQyNDc0ZGIzYjc2MTEwMTRmMTI3NjlhNGU3YWI1YTgyYjQ4OTZkNDkwMjIxMDBjOTNhMzYzMjZiMjQ4NTNkZGE3ZDQ1OTg3MjQ3NDg5MzdkMTZhYmJjZWEwYWYxMzEyNzhhNzY4MDA3ZTYyZTg1In0"
)

func clientKey(t *testing.T) *ecdh.PrivateKey {
	raw, _ := hex.DecodeString(clientPriv)
	k, err := ecdh.P256().NewPrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestOpenJSBundle(t *testing.T) {
	got, err := OpenBundle(clientKey(t), jsBundle)
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(got) != sessionPriv {
		t.Fatalf("decrypted %x", got)
	}
	tampered := []byte(jsBundle)
	tampered[10] ^= 1
	if _, err := OpenBundle(clientKey(t), string(tampered)); err == nil {
		t.Fatal("tampered bundle opened")
	}
}

func TestSealOpenRoundTrip(t *testing.T) {
	pub, err := ParseClientPublicKey(clientPub)
	if err != nil {
		t.Fatal(err)
	}
	secret := bytes.Repeat([]byte{0}, 32) // leading zeros must survive
	secret[31] = 7
	bundle, err := SealBundle(pub, secret)
	if err != nil {
		t.Fatal(err)
	}
	got, err := OpenBundle(clientKey(t), bundle)
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("round trip: %x %v", got, err)
	}
	other, _ := ecdh.P256().GenerateKey(rand.Reader)
	if _, err := OpenBundle(other, bundle); err == nil {
		t.Fatal("opened with another key")
	}
}

func TestVerifyJSStamp(t *testing.T) {
	s, err := ParseStamp(jsStamp)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Verify([]byte(stampPayload)); err != nil {
		t.Fatalf("JS stamp does not verify: %v", err)
	}
	if err := s.Verify([]byte(stampPayload + " ")); err == nil {
		t.Fatal("stamp verified a changed payload")
	}
	want, _ := hex.DecodeString(sessionPubC)
	if !SameKey(s.PublicKey, want) {
		t.Fatal("stamp key differs from the session key")
	}
}

// A stamp made with Go (as a client would) verifies; other keys, schemes and encodings are refused.
func TestStampRules(t *testing.T) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	payload := []byte(`{"requestId":"Request:1"}`)
	sum := sha256.Sum256(payload)
	sig, _ := ecdsa.SignASN1(rand.Reader, k, sum[:])
	pub, _ := k.PublicKey.Bytes()
	make := func(pubHex, scheme, sigHex string) string {
		b, _ := json.Marshal(map[string]string{"publicKey": pubHex, "scheme": scheme, "signature": sigHex})
		return base64.RawURLEncoding.EncodeToString(b)
	}
	for name, v := range map[string]string{
		"compressed":   make(hex.EncodeToString(compress(pub)), StampScheme, hex.EncodeToString(sig)),
		"uncompressed": make(strings.ToUpper(hex.EncodeToString(pub)), StampScheme, hex.EncodeToString(sig)),
	} {
		s, err := ParseStamp(v)
		if err != nil || s.Verify(payload) != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, v := range map[string]string{
		"wrong scheme": make(hex.EncodeToString(pub), "SIGNATURE_SCHEME_OTHER", hex.EncodeToString(sig)),
		"bad key":      make("04"+strings.Repeat("00", 64), StampScheme, hex.EncodeToString(sig)),
		"short key":    make("02ab", StampScheme, hex.EncodeToString(sig)),
		"not json":     base64.RawURLEncoding.EncodeToString([]byte("hello")),
		"not base64":   "!!!",
		"empty":        "",
	} {
		if _, err := ParseStamp(v); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// Uncompressed and compressed keys are taken (the compressed one as given, a client-held
// session key); malformed ones and points off the curve are not.
func TestParseClientPublicKey(t *testing.T) {
	full, err := ParseClientPublicKey(clientPub)
	if err != nil || ClientHeld(full) {
		t.Fatal(err)
	}
	c, err := ParseClientPublicKey(sessionPubC)
	if err != nil || !ClientHeld(c) || len(c) != 33 {
		t.Fatalf("compressed: %x %v", c, err)
	}
	if u, err := Uncompressed(c); err != nil || !SameKey(u, c) || len(u) != 65 {
		t.Fatalf("decompressed: %x %v", u, err)
	}
	off := "04" + strings.Repeat("11", 64)         // right shape, not on the curve
	offC := "02" + strings.Repeat("00", 31) + "01" // x = 1 is no point's
	for _, s := range []string{"", "04", clientPub[:128], clientPub + "00", "05" + clientPub[2:], off, "04" + sessionPubC[2:], "05" + sessionPubC[2:], offC,
		strings.Replace(clientPub, "a", "g", 1)} {
		if _, err := ParseClientPublicKey(s); err == nil {
			t.Errorf("accepted %q", s)
		}
	}
}

func TestNewSessionKey(t *testing.T) {
	priv, pubC, err := NewSessionKey()
	if err != nil || len(priv) != 32 || len(pubC) != 33 {
		t.Fatalf("%d %d %v", len(priv), len(pubC), err)
	}
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), priv)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := k.PublicKey.Bytes()
	if !SameKey(pub, pubC) {
		t.Fatal("public key does not match the private key")
	}
}

func FuzzParseStamp(f *testing.F) {
	f.Add(jsStamp)
	f.Add("e30")
	f.Fuzz(func(t *testing.T, s string) {
		if st, err := ParseStamp(s); err == nil {
			_ = st.Verify([]byte("x"))
		}
	})
}

func FuzzOpenBundle(f *testing.F) {
	f.Add(jsBundle)
	f.Add("1111")
	raw, _ := hex.DecodeString(clientPriv)
	k, _ := ecdh.P256().NewPrivateKey(raw)
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = OpenBundle(k, s)
	})
}

func BenchmarkSealBundle(b *testing.B) {
	pub, _ := ParseClientPublicKey(clientPub)
	secret := make([]byte, 32)
	for b.Loop() {
		if _, err := SealBundle(pub, secret); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStampVerify(b *testing.B) {
	payload := []byte(stampPayload)
	for b.Loop() {
		st, err := ParseStamp(jsStamp)
		if err != nil || st.Verify(payload) != nil {
			b.Fatal("stamp")
		}
	}
}
