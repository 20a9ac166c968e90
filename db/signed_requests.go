package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrSignedRequestUsed is returned by SignedRetryUse when the signed request was used (or
// expired) before this retry could use it.
var ErrSignedRequestUsed = errors.New("signed request already used")

// SignedRetry is what a signed retry is checked against: the challenge it answers and the
// active sessions of the challenge's account, read only when a stamp is to be checked.
type SignedRetry struct {
	Request SignedRequest
	// Sessions lists the active sessions of the request's account.
	Sessions func() ([]AuthSessionListActiveRow, error)
}

// SignedRequestStore stores an issued signed-retry challenge.
func SignedRequestStore(ctx context.Context, pool *pgxpool.Pool, p SignedRequestCreateParams) error {
	if _, err := newQueries(pool).SignedRequestCreate(ctx, p); err != nil {
		return fmt.Errorf("store signed request: %w", err)
	}
	return nil
}

// SignedRetryUse is the signed retry as one operation, in one transaction: it looks up the
// challenge id of platformID, lets verify check the retry against it (the request hash,
// expiry and the stamp over its payload, by a session active at now), and marks it used
// at now. It returns ErrNotFound when there is no such challenge, verify's error as it is,
// and ErrSignedRequestUsed when another retry used it first (or it expired at now).
func SignedRetryUse(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID, now time.Time, verify func(SignedRetry) error) error {
	return withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		sr, err := q.SignedRequestGet(ctx, SignedRequestGetParams{PlatformID: platformID, ID: id})
		if IsNotFound(err) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("load signed request: %w", err)
		}
		sessions := func() ([]AuthSessionListActiveRow, error) {
			rows, err := q.AuthSessionListActive(ctx, AuthSessionListActiveParams{AccountID: sr.AccountID, Now: now})
			if err != nil {
				return nil, fmt.Errorf("list active sessions: %w", err)
			}
			return rows, nil
		}
		if err := verify(SignedRetry{Request: sr, Sessions: sessions}); err != nil {
			return err
		}
		n, err := q.SignedRequestUse(ctx, SignedRequestUseParams{ID: id, Now: now})
		if err != nil {
			return fmt.Errorf("use signed request: %w", err)
		}
		if n == 0 {
			return ErrSignedRequestUsed
		}
		return nil
	})
}

// SignedRequestFind reads a signed request of platformID; ErrNotFound when there is none.
func SignedRequestFind(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID) (SignedRequest, error) {
	sr, err := newQueries(pool).SignedRequestGet(ctx, SignedRequestGetParams{PlatformID: platformID, ID: id})
	if IsNotFound(err) {
		return sr, ErrNotFound
	}
	if err != nil {
		return sr, fmt.Errorf("load signed request: %w", err)
	}
	return sr, nil
}

// SignedRequestsRecent counts the signed requests of kind issued to an account in the last
// minute.
func SignedRequestsRecent(ctx context.Context, pool *pgxpool.Pool, accountID uuid.UUID, kind string) (int64, error) {
	n, err := newQueries(pool).SignedRequestCountRecent(ctx, SignedRequestCountRecentParams{AccountID: accountID, Kind: kind})
	if err != nil {
		return 0, fmt.Errorf("count signed requests: %w", err)
	}
	return n, nil
}
