package db

// Named operations on agent actions for the API: each runs one query on pool.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// AgentActionGetByWorkflow runs the AgentActionGetByWorkflow query on pool: the action an
// agent's request created, found by the workflow it started.
func AgentActionGetByWorkflow(ctx context.Context, pool *pgxpool.Pool, arg AgentActionGetByWorkflowParams) (AgentAction, error) {
	return New(pool).AgentActionGetByWorkflow(ctx, arg)
}
