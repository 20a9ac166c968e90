package db_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
)

// signedRequest stores a signed request of account acct with one active session whose
// public key is key.
func signedRequest(t *testing.T, pool *pgxpool.Pool, p, acct uuid.UUID, key []byte) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	cred, err := credential(t, pool, p, acct, catalog.CredentialPasskey, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.New(pool).AuthSessionCreate(ctx, db.AuthSessionCreateParams{ID: ids.New(), PlatformID: p, AccountID: acct,
		CredentialID: cred.ID, PublicKey: key, ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	id := ids.New()
	if err := db.SignedRequestStore(ctx, pool, db.SignedRequestCreateParams{ID: id, PlatformID: p, AccountID: acct, Kind: "K",
		Payload: "payload", RequestHash: []byte("hash"), ExpiresAt: time.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	return id
}

// stampBy is a verify that accepts a retry when one of the account's active sessions holds
// key (the stand-in for a stamp by that session).
func stampBy(key []byte) func(db.SignedRetry) error {
	return func(sr db.SignedRetry) error {
		sessions, err := sr.Sessions()
		if err != nil {
			return err
		}
		for _, s := range sessions {
			if bytes.Equal(s.AuthSession.PublicKey, key) {
				return nil
			}
		}
		return errWrongStamp
	}
}

var errWrongStamp = errors.New("wrong stamp")

// A signed retry is looked up, verified and used in one operation: a valid stamp uses it
// once, a second retry is refused, a wrong stamp is refused and leaves it unused, and an
// unknown id (or one of another platform) is not found.
func TestSignedRetryUse(t *testing.T) {
	pool, p, _, _ := setup(t)
	ctx := context.Background()
	acct := internalAccount(t, pool, p)
	key := []byte("session key")
	id := signedRequest(t, pool, p, acct, key)

	if err := db.SignedRetryUse(ctx, pool, p, id, time.Now(), stampBy([]byte("another key"))); !errors.Is(err, errWrongStamp) {
		t.Fatalf("wrong stamp: %v, want the verify's refusal", err)
	}
	if err := db.SignedRetryUse(ctx, pool, p, id, time.Now(), stampBy(key)); err != nil {
		t.Fatalf("valid stamp after a refused one: %v", err)
	}
	sr, err := db.SignedRequestFind(ctx, pool, p, id)
	if err != nil || sr.UsedAt == nil {
		t.Fatalf("after use: %+v, %v; want used", sr, err)
	}
	if err := db.SignedRetryUse(ctx, pool, p, id, time.Now(), func(db.SignedRetry) error { return nil }); !errors.Is(err, db.ErrSignedRequestUsed) {
		t.Fatalf("reuse: %v, want ErrSignedRequestUsed", err)
	}
	if err := db.SignedRetryUse(ctx, pool, p, ids.New(), time.Now(), stampBy(key)); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("unknown id: %v, want ErrNotFound", err)
	}
	if err := db.SignedRetryUse(ctx, pool, ids.New(), id, time.Now(), stampBy(key)); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("other platform: %v, want ErrNotFound", err)
	}
}

// Two retries of one request racing: the one that verifies first but uses last is refused
// with ErrSignedRequestUsed, because the use happens in the same transaction as the look-up
// and only counts when the request is still unused.
func TestSignedRetryUseRace(t *testing.T) {
	pool, p, _, _ := setup(t)
	ctx := context.Background()
	key := []byte("session key")
	id := signedRequest(t, pool, p, internalAccount(t, pool, p), key)

	err := db.SignedRetryUse(ctx, pool, p, id, time.Now(), func(sr db.SignedRetry) error {
		if sr.Request.UsedAt != nil {
			t.Fatal("looked up as used")
		}
		// Another retry of the same request completes while this one is being verified.
		if err := db.SignedRetryUse(ctx, pool, p, id, time.Now(), stampBy(key)); err != nil {
			t.Fatalf("racing retry: %v", err)
		}
		return stampBy(key)(sr)
	})
	if !errors.Is(err, db.ErrSignedRequestUsed) {
		t.Fatalf("slower retry: %v, want ErrSignedRequestUsed", err)
	}
}
