package db

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/account"
	"paycore/internal/agentpolicy"
	"paycore/internal/kit/sealbox"
)

// Usage reservations on their own, for the tests of the usage windows and limits; agent
// actions reserve and release theirs through AgentActionSubmit and endAction.

// AgentUsageReserve reserves one transaction of amount (in the smallest unit of
// limits.Currency, the policy currency) in the agent's usage at now, in one short
// transaction under the usage row's lock (reserveUsage). It returns the usage after the
// reservation, or 403 VELOCITY_LIMIT_EXCEEDED naming the limit (nothing written).
// Concurrent reservations for one agent are counted one after the other, so together they
// never pass a limit.
func AgentUsageReserve(ctx context.Context, pool *pgxpool.Pool, agentID uuid.UUID, now time.Time, amount int64, limits agentpolicy.Limits) (agentpolicy.Usage, error) {
	var out agentpolicy.Usage
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		u, err := lockUsage(ctx, q, agentID, now, limits.Currency)
		if err != nil {
			return err
		}
		out, err = reserveUsage(ctx, q, agentID, u, now, amount, limits)
		return err
	})
	return out, err
}

// AgentUsageRelease gives back a reservation of amount in currency taken at reservedAt,
// under the usage row's lock (releaseUsage), and returns the usage as stored after. Agent
// actions give theirs back once, through the action (AgentActionDecide, AgentActionFail).
func AgentUsageRelease(ctx context.Context, pool *pgxpool.Pool, agentID uuid.UUID, reservedAt time.Time, amount int64, currency string) (agentpolicy.Usage, error) {
	var out agentpolicy.Usage
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		var err error
		out, err = releaseUsage(ctx, q, agentID, reservedAt, amount, currency)
		return err
	})
	return out, err
}

// The generated queries and the operations on them, for the tests of this package's
// operations (package db_test) only.
type Queries = queries

var (
	New               = newQueries
	WithTx            = withTx
	AgentUsages       = agentUsages
	DocumentCreate    = documentCreate
	DocumentHolderGet = documentHolderGet
	LedgerApplyLegs   = ledgerApplyLegs
)

// InternalAccountOpen opens one internal account of a platform in q's transaction:
// internalAccountsOpen with one opening (customerID invalid for the platform's own).
func InternalAccountOpen(ctx context.Context, q *Queries, box *sealbox.Box, platformID uuid.UUID, customerID uuid.NullUUID, o account.Opening) error {
	return internalAccountsOpen(ctx, q, box, platformID, []accountOpening{{customerID: customerID, Opening: o}})
}
