package sealbox

import (
	"bytes"
	"testing"
)

func TestSealOpen(t *testing.T) {
	key, err := ParseKey(NewKey())
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	sealed := b.Seal("webhook-secret", []byte("hello"))
	if bytes.Contains(sealed, []byte("hello")) {
		t.Fatal("plaintext visible in sealed value")
	}
	got, err := b.Open("webhook-secret", sealed)
	if err != nil || string(got) != "hello" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := b.Open("other-label", sealed); err == nil {
		t.Fatal("opened under another label")
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := b.Open("webhook-secret", sealed); err == nil {
		t.Fatal("opened a tampered value")
	}
	other, _ := ParseKey(NewKey())
	b2, _ := New(other)
	if _, err := b2.Open("webhook-secret", b.Seal("webhook-secret", []byte("x"))); err == nil {
		t.Fatal("opened with another key")
	}
	if _, err := b.Open("x", []byte{1, 2}); err == nil {
		t.Fatal("opened a short value")
	}
}

func TestParseKeyRejects(t *testing.T) {
	for _, s := range []string{"", "not base64!!", "c2hvcnQ="} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("ParseKey(%q) accepted", s)
		}
	}
}

func TestDerive(t *testing.T) {
	k1, _ := ParseKey(NewKey())
	k2, _ := ParseKey(NewKey())
	a, _ := New(k1)
	b, _ := New(k1)
	c, _ := New(k2)
	if !bytes.Equal(a.Derive("x"), b.Derive("x")) || len(a.Derive("x")) != 32 {
		t.Fatal("the same key and label derive another secret")
	}
	if bytes.Equal(a.Derive("x"), a.Derive("y")) || bytes.Equal(a.Derive("x"), c.Derive("x")) || bytes.Equal(a.Derive("x"), k1) {
		t.Fatal("a derived secret repeats another label's, another key's or the key")
	}
}
