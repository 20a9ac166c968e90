package db

// Named operations on agents for the API: each runs one query on pool.

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// AgentAuthenticate runs the AgentAuthenticate query on pool.
func AgentAuthenticate(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID) (AgentAuthenticateRow, error) {
	return New(pool).AgentAuthenticate(ctx, id)
}

// AgentDeviceCodeRetire runs the AgentDeviceCodeRetire query on pool.
func AgentDeviceCodeRetire(ctx context.Context, pool *pgxpool.Pool, codeHash []byte) (int64, error) {
	return New(pool).AgentDeviceCodeRetire(ctx, codeHash)
}

// AgentDeviceCodeStatus runs the AgentDeviceCodeStatus query on pool.
func AgentDeviceCodeStatus(ctx context.Context, pool *pgxpool.Pool, arg AgentDeviceCodeStatusParams) (AgentDeviceCodeStatusRow, error) {
	return New(pool).AgentDeviceCodeStatus(ctx, arg)
}

// AgentGet runs the AgentGet query on pool.
func AgentGet(ctx context.Context, pool *pgxpool.Pool, arg AgentGetParams) (Agent, error) {
	return New(pool).AgentGet(ctx, arg)
}
