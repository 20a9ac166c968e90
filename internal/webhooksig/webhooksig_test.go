package webhooksig

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func TestECDSASignVerify(t *testing.T) {
	der, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewECDSASigner(der)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"id":"Webhook:1","type":"TEST"}`)
	sig, err := s.Sign(body)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyECDSA(s.PublicKeyPEM(), body, sig); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if err := VerifyECDSA(s.PublicKeyPEM(), append(body, ' '), sig); err == nil {
		t.Fatal("tampered body verified")
	}
	other, _ := GenerateKey()
	s2, _ := NewECDSASigner(other)
	if err := VerifyECDSA(s2.PublicKeyPEM(), body, sig); err == nil {
		t.Fatal("verified under another key")
	}
	if _, err := NewECDSASigner([]byte("junk")); err == nil {
		t.Fatal("loaded junk key")
	}
}

// The Standard Webhooks reference library must accept our signatures, with either the
// current or the rotated-out secret.
func TestStandardWebhooksInterop(t *testing.T) {
	oldRaw, oldPrintable := NewSecret()
	newRaw, newPrintable := NewSecret()
	body := []byte(`{"id":"Webhook:abc","type":"TEST","data":{}}`)
	ts := time.Now()
	sig := SignStandard([][]byte{newRaw, oldRaw}, "Webhook:abc", ts, body)
	if strings.Count(sig, "v1,") != 2 {
		t.Fatalf("want two signatures, got %q", sig)
	}
	h := http.Header{}
	h.Set(HeaderID, "Webhook:abc")
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, sig)
	for _, secret := range []string{newPrintable, oldPrintable} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(body, h); err != nil {
			t.Fatalf("reference library rejected signature: %v", err)
		}
	}
	_, stranger := NewSecret()
	wh, _ := standardwebhooks.NewWebhook(stranger)
	if err := wh.Verify(body, h); err == nil {
		t.Fatal("verified with an unrelated secret")
	}
	wh, _ = standardwebhooks.NewWebhook(newPrintable)
	if err := wh.Verify(append(body, ' '), h); err == nil {
		t.Fatal("verified a tampered body")
	}
}

func BenchmarkECDSASign(b *testing.B) {
	der, _ := GenerateKey()
	s, _ := NewECDSASigner(der)
	body := []byte(`{"id":"Webhook:01a2","type":"TEST","timestamp":"2026-01-01T00:00:00Z","data":{}}`)
	for b.Loop() {
		if _, err := s.Sign(body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStandardSign(b *testing.B) {
	raw, _ := NewSecret()
	body := []byte(`{"id":"Webhook:01a2","type":"TEST","timestamp":"2026-01-01T00:00:00Z","data":{}}`)
	now := time.Now()
	for b.Loop() {
		SignStandard([][]byte{raw}, "Webhook:01a2", now, body)
	}
}
