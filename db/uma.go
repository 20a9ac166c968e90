package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/internal/ids"
	"paycore/internal/uma"
)

// umaSealed is a stored key set as package uma reads it.
func umaSealed(k UmaKey) uma.SealedKeySet {
	return uma.SealedKeySet{SigningSealed: k.SigningSealed, SigningCert: k.SigningCert, EncryptionSealed: k.EncryptionSealed,
		EncryptionCert: k.EncryptionCert, NotAfter: k.NotAfter}
}

// UmaKeysCurrent is the deployment's current UMA key set, ErrNotFound before the first.
func (s Store) UmaKeysCurrent(ctx context.Context) (uma.SealedKeySet, error) {
	k, err := newQueries(s.pool).UmaKeysCurrent(ctx)
	if err != nil {
		return uma.SealedKeySet{}, fmt.Errorf("read the UMA keys: %w", err)
	}
	return umaSealed(k), nil
}

// UmaKeysCurrentOrNew is the current key set, or, before the first, the one newSet makes,
// stored (UmaKeysEnsure: concurrent first uses all end with the first stored).
func (s Store) UmaKeysCurrentOrNew(ctx context.Context, newSet func() (uma.SealedKeySet, error), now time.Time) (uma.SealedKeySet, error) {
	k, err := s.UmaKeysCurrent(ctx)
	if !IsNotFound(err) {
		return k, err
	}
	if k, err = newSet(); err != nil {
		return k, err
	}
	return s.UmaKeysEnsure(ctx, k, now)
}

// UmaKeysEnsure stores k as the current key set unless one is current (concurrent first
// uses all end with the first), and returns the current one.
func (s Store) UmaKeysEnsure(ctx context.Context, k uma.SealedKeySet, now time.Time) (uma.SealedKeySet, error) {
	q := newQueries(s.pool)
	if err := umaKeysInsert(ctx, q, k, now); err != nil {
		return uma.SealedKeySet{}, err
	}
	return s.UmaKeysCurrent(ctx)
}

// UmaKeysRotate makes k the current key set, retiring the current one at now.
func (s Store) UmaKeysRotate(ctx context.Context, k uma.SealedKeySet, now time.Time) error {
	return withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		if err := q.UmaKeysRetire(ctx, &now); err != nil {
			return fmt.Errorf("retire the UMA keys: %w", err)
		}
		return umaKeysInsert(ctx, q, k, now)
	})
}

func umaKeysInsert(ctx context.Context, q *queries, k uma.SealedKeySet, now time.Time) error {
	if err := q.UmaKeysInsert(ctx, UmaKeysInsertParams{ID: ids.New(), SigningSealed: k.SigningSealed, SigningCert: k.SigningCert,
		EncryptionSealed: k.EncryptionSealed, EncryptionCert: k.EncryptionCert, NotAfter: k.NotAfter, CreatedAt: now}); err != nil {
		return fmt.Errorf("store the UMA keys: %w", err)
	}
	return nil
}

// UmaKeysDecrypting are the key sets payloads may still be encrypted to: the current one
// and those retired after since, newest first.
func (s Store) UmaKeysDecrypting(ctx context.Context, since time.Time) ([]uma.SealedKeySet, error) {
	rows, err := newQueries(s.pool).UmaKeysDecrypting(ctx, &since)
	if err != nil {
		return nil, fmt.Errorf("read the UMA keys: %w", err)
	}
	out := make([]uma.SealedKeySet, len(rows))
	for i, r := range rows {
		out[i] = umaSealed(r)
	}
	return out, nil
}

// UmaNonceTake takes the nonce of a message the provider of domain signed at signedAt, once:
// uma.ErrNonceUsed when it took it before. Nonces of messages signed before the timestamp
// window (uma.MaxMessageAge before now) are forgotten, since such messages are refused by
// their timestamp.
func (s Store) UmaNonceTake(ctx context.Context, domain, nonce string, signedAt, now time.Time) error {
	_, err := newQueries(s.pool).UmaNonceTake(ctx, UmaNonceTakeParams{Domain: domain, Nonce: nonce, SignedAt: signedAt,
		ForgetBefore: now.Add(-uma.MaxMessageAge - uma.MaxClockSkew)})
	if IsNotFound(err) {
		return fmt.Errorf("%w: %s from %s", uma.ErrNonceUsed, nonce, domain)
	}
	if err != nil {
		return fmt.Errorf("take the UMA nonce: %w", err)
	}
	return nil
}

// UmaProviderKeys is the cached key response of the provider of domain while it is fresh at
// now; ErrNotFound when none is.
func (s Store) UmaProviderKeys(ctx context.Context, domain string, now time.Time) (json.RawMessage, time.Time, error) {
	row, err := newQueries(s.pool).UmaProviderKeysGet(ctx, UmaProviderKeysGetParams{Domain: domain, Now: now})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read the keys of %s: %w", domain, err)
	}
	return row.Response, row.ExpiresAt, nil
}

// UmaProviderKeysPut caches the key response of the provider of domain until expires.
func (s Store) UmaProviderKeysPut(ctx context.Context, domain string, response json.RawMessage, now, expires time.Time) error {
	if err := newQueries(s.pool).UmaProviderKeysPut(ctx, UmaProviderKeysPutParams{Domain: domain, Response: response, FetchedAt: now, ExpiresAt: expires}); err != nil {
		return fmt.Errorf("cache the keys of %s: %w", domain, err)
	}
	return nil
}

// UmaReceiver is who an LNURLP request for umaAddress at domain reaches; ErrNotFound when no
// customer of the platform holding domain has the address.
func (s Store) UmaReceiver(ctx context.Context, domain, umaAddress string) (UmaReceiverRow, error) {
	r, err := newQueries(s.pool).UmaReceiver(ctx, UmaReceiverParams{Domain: domain, UmaAddress: umaAddress})
	if err != nil {
		return r, fmt.Errorf("find the UMA receiver %s: %w", umaAddress, err)
	}
	return r, nil
}

// UmaDomainProof is the proof record of the platform's domain, made with a new token
// (newToken) when there is none; a read once it exists.
func (s Store) UmaDomainProof(ctx context.Context, platformID uuid.UUID, domain string, newToken func() string, now time.Time) (UmaDomainProof, error) {
	q := newQueries(s.pool)
	key := UmaDomainProofGetParams{PlatformID: platformID, Domain: domain}
	p, err := q.UmaDomainProofGet(ctx, key)
	if IsNotFound(err) {
		if err := q.UmaDomainProofInsert(ctx, UmaDomainProofInsertParams{PlatformID: platformID, Domain: domain, Token: newToken(), CreatedAt: now}); err != nil {
			return p, fmt.Errorf("make the proof of %s: %w", domain, err)
		}
		p, err = q.UmaDomainProofGet(ctx, key)
	}
	if err != nil {
		return p, fmt.Errorf("the proof of %s: %w", domain, err)
	}
	return p, nil
}

// UmaDomainProofVerified records that the platform proved its domain at now.
func (s Store) UmaDomainProofVerified(ctx context.Context, platformID uuid.UUID, domain string, now time.Time) error {
	if err := newQueries(s.pool).UmaDomainProofVerified(ctx, UmaDomainProofVerifiedParams{PlatformID: platformID, Domain: domain, VerifiedAt: &now}); err != nil {
		return fmt.Errorf("record the proof of %s: %w", domain, err)
	}
	return nil
}

// UmaDomainProven reports whether the platform holding domain proved it.
func (s Store) UmaDomainProven(ctx context.Context, domain string) (bool, error) {
	ok, err := newQueries(s.pool).UmaDomainProven(ctx, domain)
	if err != nil {
		return false, fmt.Errorf("whether %s is proven: %w", domain, err)
	}
	return ok, nil
}

// UmaProxySubdomainDomain is the proven umaDomain of the platform whose proxy subdomain is
// subdomain; "" when no platform with a proven domain has it.
func (s Store) UmaProxySubdomainDomain(ctx context.Context, subdomain string) (string, error) {
	d, err := newQueries(s.pool).UmaProxySubdomainDomain(ctx, subdomain)
	if err != nil {
		return "", fmt.Errorf("the platform of proxy subdomain %s: %w", subdomain, err)
	}
	return d, nil
}

// UmaProviderListed is whether the operator listed the provider of domain (uma_providers),
// and whether as allowed.
func (s Store) UmaProviderListed(ctx context.Context, domain string) (listed, allowed bool, err error) {
	r, err := newQueries(s.pool).UmaProviderListed(ctx, domain)
	if err != nil {
		return false, false, fmt.Errorf("whether %s is listed: %w", domain, err)
	}
	return r.Listed, r.Allowed, nil
}

// UmaProviderSetAllowed lists the provider of domain as allowed or blocked.
func (s Store) UmaProviderSetAllowed(ctx context.Context, domain string, allowed bool) error {
	if err := newQueries(s.pool).UmaProviderSetAllowed(ctx, UmaProviderSetAllowedParams{ID: ids.New(), Domain: domain, Allowed: allowed}); err != nil {
		return fmt.Errorf("list %s: %w", domain, err)
	}
	return nil
}

// UmaProvidersPut lists the operator's providers, in one database transaction: each
// replaces what was listed for its domain; providers not in the list stay as they are.
func (s Store) UmaProvidersPut(ctx context.Context, list []uma.Provider) error {
	return withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		for _, p := range list {
			if err := q.UmaProviderPut(ctx, UmaProviderPutParams{ID: ids.New(), Name: p.Name, Domain: p.Domain, LogoUrl: p.LogoURL,
				SupportedRegions: p.SupportedRegions, SupportedCurrencies: p.SupportedCurrencies, Lei: p.Lei, AllowListStatus: p.AllowListStatus}); err != nil {
				return fmt.Errorf("list %s: %w", p.Domain, err)
			}
		}
		return nil
	})
}

// UmaUtxoCallbackTarget is the payment a post-transaction callback names, with its
// platform's UMA domain and environment; ErrNotFound when there is none.
func (s Store) UmaUtxoCallbackTarget(ctx context.Context, id uuid.UUID) (UmaUtxoCallbackTargetRow, error) {
	r, err := newQueries(s.pool).UmaUtxoCallbackTarget(ctx, id)
	if err != nil {
		return r, fmt.Errorf("read the callback's payment: %w", err)
	}
	return r, nil
}

// UmaUtxoCallbackPut keeps the first post-transaction callback of payment id: the channels
// vaspDomain reported.
func (s Store) UmaUtxoCallbackPut(ctx context.Context, id uuid.UUID, vaspDomain string, utxos []uma.UtxoWithAmount, now time.Time) error {
	b, err := json.Marshal(utxos)
	if err != nil {
		return fmt.Errorf("encode the callback's utxos: %w", err)
	}
	if err := newQueries(s.pool).UmaUtxoCallbackPut(ctx, UmaUtxoCallbackPutParams{TransactionID: id, VaspDomain: vaspDomain, Utxos: b, ReceivedAt: now}); err != nil {
		return fmt.Errorf("record the post-transaction callback: %w", err)
	}
	return nil
}
