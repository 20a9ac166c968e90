package db

import (
	"context"
	"fmt"
	"time"

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
