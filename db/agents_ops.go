package db

// Named operations on agents: each runs one query on pool.

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// AgentAuthenticate runs the AgentAuthenticate query on pool.
func AgentAuthenticate(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) (AgentAuthenticateRow, error) {
	return newQueries(pool).AgentAuthenticate(ctx, id)
}

// AgentDeviceCodeRetire runs the AgentDeviceCodeRetire query on pool: the code is marked
// replaced at now.
func AgentDeviceCodeRetire(ctx context.Context, pool *pgxpool.Pool, codeHash []byte, now time.Time) (int64, error) {
	return newQueries(pool).AgentDeviceCodeRetire(ctx, AgentDeviceCodeRetireParams{CodeHash: codeHash, Now: now})
}

// AgentDeviceCodeStatus runs the AgentDeviceCodeStatus query on pool.
func AgentDeviceCodeStatus(ctx context.Context, pool *pgxpool.Pool, arg AgentDeviceCodeStatusParams) (AgentDeviceCodeStatusRow, error) {
	return newQueries(pool).AgentDeviceCodeStatus(ctx, arg)
}

// AgentGet runs the AgentGet query on pool.
func AgentGet(ctx context.Context, pool *pgxpool.Pool, arg AgentGetParams) (Agent, error) {
	return newQueries(pool).AgentGet(ctx, arg)
}

// RateLimitsDeleteEnded runs the RateLimitsDeleteEnded query on pool and returns how many
// ended rate-limit windows it deleted.
func RateLimitsDeleteEnded(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	return newQueries(pool).RateLimitsDeleteEnded(ctx)
}
