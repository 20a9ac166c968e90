package walletcrypto_test

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"testing"

	"paycore/internal/walletcrypto"
	"paycore/internal/walletcrypto/jsinterop"
)

// Bundles sealed here open with decryptCredentialBundle; stamps made by ApiKeyStamper
// verify here, and only over the exact payload.
func TestInteropWithClientLibraries(t *testing.T) {
	js := jsinterop.Start(t)
	for range 20 {
		client, _ := ecdh.P256().GenerateKey(rand.Reader)
		priv, pubC, err := walletcrypto.NewSessionKey()
		if err != nil {
			t.Fatal(err)
		}
		bundle, err := walletcrypto.SealBundle(client.PublicKey().Bytes(), priv)
		if err != nil {
			t.Fatal(err)
		}
		got := js.Decrypt(bundle, hex.EncodeToString(client.Bytes()))
		if got != hex.EncodeToString(priv) {
			t.Fatalf("decryptCredentialBundle: %v, want %x", got, priv)
		}
		payload := `{"requestId":"Request:0190a000-0000-7000-8000-000000000001","type":"PASSKEY","accountId":"InternalAccount:x","expiresAt":"2026-11-22T05:00:00Z"}`
		st := js.Stamp(payload, got)
		stamp, err := walletcrypto.ParseStamp(st)
		if err != nil {
			t.Fatalf("parse JS stamp %v: %v", st, err)
		}
		if err := stamp.Verify([]byte(payload)); err != nil {
			t.Fatalf("JS stamp does not verify: %v", err)
		}
		if !walletcrypto.SameKey(stamp.PublicKey, pubC) {
			t.Fatal("the stamp names another key than the session's")
		}
		if err := stamp.Verify(bytes.Replace([]byte(payload), []byte("PASSKEY"), []byte("OAUTH__"), 1)); err == nil {
			t.Fatal("the stamp verified a tampered payload")
		}
	}
}

// A target bundle signed here is accepted by encryptOtpCodeToBundle (with the service's
// signer as the expected one, and refused with another), and what it encrypts opens here to
// the code and the client's key.
func TestOTPBundleInterop(t *testing.T) {
	js := jsinterop.Start(t)
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	signer, err := walletcrypto.OTPSigner(secret)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		target, err := walletcrypto.NewOTPTarget()
		if err != nil {
			t.Fatal(err)
		}
		bundle, err := walletcrypto.OTPTargetBundle(signer, target)
		if err != nil {
			t.Fatal(err)
		}
		_, tek, _ := walletcrypto.NewSessionKey()
		enc, err := js.EncryptOTP("123456", bundle, hex.EncodeToString(tek), walletcrypto.OTPSignerPublic(signer))
		if err != nil {
			t.Fatalf("encryptOtpCodeToBundle: %v", err)
		}
		code, key, err := walletcrypto.OpenOTPBundle(target, enc)
		if err != nil || code != "123456" || !bytes.Equal(key, tek) {
			t.Fatalf("opened %q %x %v", code, key, err)
		}
		other, _ := walletcrypto.NewOTPTarget()
		if _, _, err := walletcrypto.OpenOTPBundle(other, enc); err == nil {
			t.Fatal("another target key opened the bundle")
		}
		other2 := make([]byte, 32)
		_, _ = rand.Read(other2)
		stranger, _ := walletcrypto.OTPSigner(other2)
		if _, err := js.EncryptOTP("123456", bundle, hex.EncodeToString(tek), walletcrypto.OTPSignerPublic(stranger)); err == nil {
			t.Fatal("encryptOtpCodeToBundle accepted a bundle signed by another key than the expected one")
		}
	}
}
