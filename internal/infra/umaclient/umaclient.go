// Package umaclient is the service's side of the UMA protocol that talks to other providers
// over HTTP, always through the outbound-address guard: their published keys, fetched and
// cached for as long as they allow.
package umaclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/infra/netguard"
	"paycore/internal/uma"
)

// KeyCache keeps providers' key responses (db.Store).
type KeyCache interface {
	UmaProviderKeys(ctx context.Context, domain string, now time.Time) (json.RawMessage, time.Time, error)
	UmaProviderKeysPut(ctx context.Context, domain string, response json.RawMessage, now, expires time.Time) error
}

// Client talks to other providers.
type Client struct {
	Cache KeyCache
	// HTTP is the guarded client for a platform environment's requests (production: public
	// addresses only), following no redirect.
	HTTP func(env catalog.Environment) *http.Client
	Now  func() time.Time
}

// maxAnswer is the largest answer of a provider read.
const maxAnswer = 64 << 10

// MaxKeyCache is the longest a provider's keys are kept, whatever it allows.
const MaxKeyCache = 24 * time.Hour

// ProviderKeys are the keys the provider of domain publishes, checked now: from the cache
// while they are fresh, else fetched from https://<domain>/.well-known/lnurlpubkey and
// cached until the provider's expirationTimestamp (at most MaxKeyCache; not at all when it
// gives none). uma.ErrKeysUnavailable when they cannot be fetched, ErrInvalidPubKeyResponse
// when the answer is not a key response, and the chains' own errors.
func (c *Client) ProviderKeys(ctx context.Context, env catalog.Environment, domain string) (uma.ProviderKeys, error) {
	now := c.Now()
	if raw, _, err := c.Cache.UmaProviderKeys(ctx, domain, now); err == nil {
		if keys, err := parseKeys(raw, now); err == nil {
			return keys, nil
		}
	}
	raw, err := netguard.Fetch(ctx, c.HTTP(env), uma.Scheme(domain)+"://"+domain+"/.well-known/lnurlpubkey", maxAnswer)
	if err != nil {
		return uma.ProviderKeys{}, fmt.Errorf("%w: %s: %v", uma.ErrKeysUnavailable, domain, err)
	}
	keys, err := parseKeys(raw, now)
	if err != nil {
		return uma.ProviderKeys{}, fmt.Errorf("keys of %s: %w", domain, err)
	}
	expires := keys.Expires
	if limit := now.Add(MaxKeyCache); expires.After(limit) {
		expires = limit
	}
	if expires.After(now) {
		if err := c.Cache.UmaProviderKeysPut(ctx, domain, raw, now, expires); err != nil {
			return uma.ProviderKeys{}, err
		}
	}
	return keys, nil
}

func parseKeys(raw json.RawMessage, now time.Time) (uma.ProviderKeys, error) {
	var p uma.PubKeyResponse
	if err := json.Unmarshal(raw, &p); err != nil {
		return uma.ProviderKeys{}, fmt.Errorf("%w: %v", uma.ErrInvalidPubKeyResponse, err)
	}
	return p.Keys(now)
}
