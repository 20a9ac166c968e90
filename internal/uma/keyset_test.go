package uma

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// sealer seals by prefixing the label (a stand-in for the master key's box, which has its
// own tests): enough to see each key sealed under its own label and opened back.
type sealer struct{}

func (sealer) Seal(label string, b []byte) []byte { return append([]byte(label+":"), b...) }
func (sealer) Open(label string, b []byte) ([]byte, error) {
	if !bytes.HasPrefix(b, []byte(label+":")) {
		return nil, errors.New("wrong label")
	}
	return b[len(label)+1:], nil
}

// A key set publishes its two certificates, cacheable for an hour or until they expire,
// and opens back from its sealed form with the same keys.
func TestKeySet(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	ks, err := NewKeySet(CertificateName, now)
	if err != nil {
		t.Fatal(err)
	}
	p := ks.Published(now)
	keys, err := p.Keys(now)
	if err != nil || !keys.Signing.Equal(ks.Signing.Public()) || !keys.Encryption.Equal(ks.Encryption.Public()) || !keys.Expires.Equal(now.Add(time.Hour)) {
		t.Fatalf("published %+v: %v", keys, err)
	}
	if late := ks.Published(ks.NotAfter.Add(-time.Minute)); late.ExpirationTimestamp != ks.NotAfter.Unix() {
		t.Errorf("cacheable past the certificates' expiry: %d", late.ExpirationTimestamp)
	}
	opened, err := ks.Seal(sealer{}).Open(sealer{})
	if err != nil || !opened.Signing.Public().Equal(ks.Signing.Public()) || !opened.Encryption.Public().Equal(ks.Encryption.Public()) {
		t.Fatalf("opened %v", err)
	}
	sealed := ks.Seal(sealer{})
	sealed.SigningSealed, sealed.EncryptionSealed = sealed.EncryptionSealed, sealed.SigningSealed
	if _, err := sealed.Open(sealer{}); err == nil {
		t.Fatal("keys sealed under each other's label opened")
	}
}

// countingSealer counts what it opens.
type countingSealer struct {
	sealer
	opened *int
}

func (c countingSealer) Open(label string, b []byte) ([]byte, error) {
	*c.opened++
	return c.sealer.Open(label, b)
}

// The last key set opened is kept: the same stored set is not unsealed again, another one
// (a rotation) is, and one that does not open is not kept.
func TestOpenedKeys(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	first, _ := NewKeySet(CertificateName, now)
	second, _ := NewKeySet(CertificateName, now)
	n := 0
	s := countingSealer{opened: &n}
	var o OpenedKeys
	for range 3 {
		ks, err := o.Open(first.Seal(sealer{}), s)
		if err != nil || !ks.Signing.Public().Equal(first.Signing.Public()) {
			t.Fatalf("opened %v", err)
		}
	}
	if n != 2 { // its two keys, once
		t.Fatalf("the same set unsealed %d times", n/2)
	}
	ks, err := o.Open(second.Seal(sealer{}), s)
	if err != nil || !ks.Signing.Public().Equal(second.Signing.Public()) || n != 4 {
		t.Fatalf("a rotated set: %v, %d unsealed", err, n)
	}
	bad := first.Seal(sealer{})
	bad.SigningSealed = []byte("garbage")
	if _, err := o.Open(bad, s); err == nil {
		t.Fatal("a set that does not open opened")
	}
	if ks, err := o.Open(second.Seal(sealer{}), s); err != nil || !ks.Signing.Public().Equal(second.Signing.Public()) {
		t.Fatalf("after a failure: %v", err)
	}
}
