package walletauth

import (
	"crypto/ecdh"
	"encoding/hex"
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
	"paycore/internal/walletcrypto"
)

// The client key pair of the wire-format test vectors.
const (
	testClientPrivate = "2081b4faf990e621948c79f6085bbf1e5a324d16aa59b89db63a4ec131060bde"
	testClientKey     = "04aeab1e1e6c40aa06ef9933b1110168bc288fcdd8a64207dc452ac8b90beef056796fa514f119df11ac6a4b035048b5c174e14b8ce7cfabbe215a2792272cf3fe"
)

func TestSessionLifetime(t *testing.T) {
	if d := SessionLifetime(platformconfig.Wallet{}); d != 15*time.Minute {
		t.Fatalf("default %s", d)
	}
	if d := SessionLifetime(platformconfig.Wallet{SessionExpirationSeconds: ptr(3600)}); d != time.Hour {
		t.Fatalf("configured %s", d)
	}
}

func TestSessionActiveAndRefresh(t *testing.T) {
	revoked := t0.Add(-time.Minute)
	for name, tc := range map[string]struct {
		revokedAt *time.Time
		expiresAt time.Time
		live      bool
		active    bool
		want      want
	}{
		"active":          {nil, t0.Add(time.Minute), true, true, want{}},
		"expired":         {nil, t0.Add(-time.Second), true, false, want{code: catalog.WalletSignatureInvalid, reason: ReasonBadSignature, msg: "only an active session can be refreshed"}},
		"expiring now":    {nil, t0, true, false, want{code: catalog.WalletSignatureInvalid, reason: ReasonBadSignature, msg: "only an active session"}},
		"revoked":         {&revoked, t0.Add(time.Minute), true, false, want{code: catalog.WalletSignatureInvalid, reason: ReasonBadSignature, msg: "only an active session"}},
		"credential gone": {nil, t0.Add(time.Minute), false, true, want{code: catalog.WalletSignatureInvalid, reason: ReasonBadSignature, msg: "the session's credential was revoked"}},
	} {
		if got := SessionActive(tc.revokedAt, tc.expiresAt, t0); got != tc.active {
			t.Fatalf("%s: active %v, want %v", name, got, tc.active)
		}
		check(t, name, CheckRefresh(tc.revokedAt, tc.expiresAt, tc.live, t0), tc.want)
	}
}

func TestNewSessionKeyIsSealedToTheClient(t *testing.T) {
	raw, _ := hex.DecodeString(testClientPrivate)
	client, err := ecdh.P256().NewPrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	clientKey, err := ClientKey(ptr(testClientKey))
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewSessionKey(clientKey)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := walletcrypto.OpenBundle(client, k.Bundle)
	if err != nil || len(priv) != 32 {
		t.Fatalf("bundle does not open to a 32-byte key: %v", err)
	}
	if len(k.PublicKey) != 33 {
		t.Fatalf("public key of %d bytes, want compressed", len(k.PublicKey))
	}
	if _, err := NewSessionKey([]byte{4, 1, 2}); err == nil {
		t.Fatal("sealed to a malformed key")
	}
}
