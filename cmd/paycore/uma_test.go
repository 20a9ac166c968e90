package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/uma"
)

// The deployment publishes its UMA keys at /.well-known/lnurlpubkey on every host, made on
// first use and the same on every read, cacheable for an hour; `paycore uma keys` prints
// them, and `paycore uma rotate-keys` replaces them, the previous set still decrypting for
// the hour providers may have cached it.
func TestUmaKeysPublishedAndRotated(t *testing.T) {
	s := newStack(t)
	base, err := url.Parse(s.baseURL)
	if err != nil {
		t.Fatal(err)
	}
	published := func(host string) (uma.PubKeyResponse, uma.ProviderKeys) {
		t.Helper()
		req, err := http.NewRequest("GET", "http://"+base.Host+"/.well-known/lnurlpubkey", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p uma.PubKeyResponse
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=3600" {
			t.Fatalf("lnurlpubkey: %d %v (%s)", resp.StatusCode, err, resp.Header.Get("Cache-Control"))
		}
		keys, err := p.Keys(time.Now())
		if err != nil {
			t.Fatalf("the published keys do not check: %v", err)
		}
		if until := time.Until(keys.Expires); until < 55*time.Minute || until > time.Hour+time.Minute {
			t.Fatalf("the keys may be cached until %s", keys.Expires)
		}
		return p, keys
	}
	first, keys := published("pay.acme.example")
	if again, _ := published("other.example"); again.SigningPubKey != first.SigningPubKey || again.EncryptionPubKey != first.EncryptionPubKey {
		t.Fatal("a second read published other keys")
	}
	if keys.Signing.Equal(keys.Encryption) {
		t.Fatal("one key signs and encrypts")
	}

	t.Setenv("PAYCORE_DATABASE_URL", s.cfg.DatabaseURL)
	t.Setenv("PAYCORE_MASTER_KEY", s.cfg.MasterKey)
	var out bytes.Buffer
	if err := run([]string{"uma", "keys"}, &out); err != nil {
		t.Fatal(err)
	}
	var printed struct{ Keys uma.PubKeyResponse }
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil || printed.Keys.SigningPubKey != first.SigningPubKey {
		t.Fatalf("uma keys printed %s (%v)", out.String(), err)
	}
	out.Reset()
	if err := run([]string{"uma", "rotate-keys"}, &out); err != nil {
		t.Fatal(err)
	}
	rotated, _ := published("pay.acme.example")
	if rotated.SigningPubKey == first.SigningPubKey || rotated.EncryptionPubKey == first.EncryptionPubKey {
		t.Fatal("rotating published the same keys")
	}
	sets, err := db.NewStore(s.app.pool, view.Resources{}).UmaKeysDecrypting(t.Context(), time.Now().Add(-uma.PublishedKeysTTL))
	if err != nil || len(sets) != 2 {
		t.Fatalf("%d key sets decrypt after a rotation (%v), want the new and the previous", len(sets), err)
	}
	out.Reset()
	if err := run([]string{"uma", "block", "rogue.example"}, &out); err != nil || !strings.Contains(out.String(), `"allowListStatus": false`) {
		t.Fatalf("uma block: %v %s", err, out.String())
	}
	if listed, allowed, err := db.NewStore(s.app.pool, view.Resources{}).UmaProviderListed(t.Context(), "rogue.example"); err != nil || !listed || allowed {
		t.Fatalf("blocked provider listed %v allowed %v (%v)", listed, allowed, err)
	}
	if err := run([]string{"uma", "allow", "not a domain"}, &out); err == nil {
		t.Fatal("a malformed domain was listed")
	}
	// The operator's list: what GET /uma-providers shows, with nothing seeded before it.
	c, _ := s.platform(true)
	var before struct {
		Data []view.UmaProvider `json:"data"`
	}
	c.Do("GET", "/uma-providers?limit=100", nil).Decode(t, &before)
	if len(before.Data) != 1 || before.Data[0].Domain != "rogue.example" {
		t.Fatalf("providers before the list: %+v", before.Data)
	}
	list := filepath.Join(t.TempDir(), "providers.json")
	if err := os.WriteFile(list, []byte(`[{"name":"Rogue Pay","domain":"rogue.example","supportedRegions":["US"],"supportedCurrencies":["USD"],"lei":"5493001KJTIIGC8Y1R12","allowListStatus":true},
		{"name":"Banco Puente","domain":"bancopuente.example","logoUrl":"https://bancopuente.example/logo.png","supportedRegions":["MX"],"supportedCurrencies":["MXN","USD"],"allowListStatus":true}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run([]string{"uma", "providers", list}, &out); err != nil || !strings.Contains(out.String(), `"listed": 2`) {
		t.Fatalf("uma providers: %v %s", err, out.String())
	}
	var after struct {
		Data []view.UmaProvider `json:"data"`
	}
	c.Do("GET", "/uma-providers?limit=100&sortOrder=asc", nil).Decode(t, &after)
	if len(after.Data) != 2 || after.Data[0].Name != "Banco Puente" || after.Data[1].Name != "Rogue Pay" || !after.Data[1].AllowListStatus || after.Data[1].Lei != "5493001KJTIIGC8Y1R12" {
		t.Fatalf("providers after the list: %+v", after.Data)
	}
	if err := os.WriteFile(list, []byte(`[{"name":"Bad","domain":"bad.example","supportedRegions":["XX"]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"uma", "providers", list}, &out); err == nil {
		t.Fatal("a list with an unknown region was taken")
	}
	if err := run([]string{"uma", "frobnicate"}, &out); err == nil {
		t.Fatal("an unknown uma command was accepted")
	}
}
