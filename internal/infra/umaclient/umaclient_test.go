package umaclient

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/uma"
)

// cache is an in-memory KeyCache.
type cache map[string]struct {
	raw     json.RawMessage
	expires time.Time
}

func (c cache) UmaProviderKeys(_ context.Context, domain string, now time.Time) (json.RawMessage, time.Time, error) {
	e, ok := c[domain]
	if !ok || !e.expires.After(now) {
		return nil, time.Time{}, errors.New("not cached")
	}
	return e.raw, e.expires, nil
}

func (c cache) UmaProviderKeysPut(_ context.Context, domain string, raw json.RawMessage, _, expires time.Time) error {
	c[domain] = struct {
		raw     json.RawMessage
		expires time.Time
	}{raw, expires}
	return nil
}

// A provider's keys are fetched once and kept for as long as it allows (at most a day);
// keys without an expiry are fetched every time; a failure says why.
func TestProviderKeysCached(t *testing.T) {
	k, err := uma.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	der, err := uma.SelfSigned(k, "p", 1, now.Add(-time.Hour), now.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	expiry := now.Add(time.Hour).Unix()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_ = json.NewEncoder(w).Encode(uma.PubKeyResponse{SigningCertChain: []string{hex.EncodeToString(der)}, EncryptionCertChain: []string{hex.EncodeToString(der)},
			ExpirationTimestamp: expiry})
	}))
	defer srv.Close()
	clock := now
	c := &Client{Cache: cache{}, Now: func() time.Time { return clock }, HTTP: func(catalog.Environment) *http.Client { return srv.Client() }}
	domain := strings.TrimPrefix(srv.URL, "http://")
	for range 2 {
		keys, err := c.ProviderKeys(context.Background(), catalog.Sandbox, domain)
		if err != nil || !keys.Signing.Equal(k.Public()) {
			t.Fatalf("keys: %v", err)
		}
	}
	if hits.Load() != 1 {
		t.Fatalf("fetched %d times within their expiry", hits.Load())
	}
	clock = now.Add(61 * time.Minute)
	expiry = 0 // from now on the provider says nothing: not cached
	for range 2 {
		if _, err := c.ProviderKeys(context.Background(), catalog.Sandbox, domain); err != nil {
			t.Fatal(err)
		}
	}
	if hits.Load() != 3 {
		t.Fatalf("fetched %d times, want 3 (after the expiry, then uncached)", hits.Load())
	}
	if _, err := c.ProviderKeys(context.Background(), catalog.Sandbox, "127.0.0.1:1"); !errors.Is(err, uma.ErrKeysUnavailable) {
		t.Fatalf("no provider: %v", err)
	}
}
