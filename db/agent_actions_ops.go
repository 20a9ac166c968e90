package db

// Named operations on agent actions: each runs one query on pool.

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// AgentActionGetByWorkflow runs the AgentActionGetByWorkflow query on pool: the action an
// agent's request created, found by the workflow it started.
func AgentActionGetByWorkflow(ctx context.Context, pool *pgxpool.Pool, arg AgentActionGetByWorkflowParams) (AgentAction, error) {
	return newQueries(pool).AgentActionGetByWorkflow(ctx, arg)
}

// AgentActionAgentState runs the AgentActionAgentState query on pool: whether the agent
// is paused or deleted.
func AgentActionAgentState(ctx context.Context, pool *pgxpool.Pool, agentID uuid.UUID) (AgentActionAgentStateRow, error) {
	return newQueries(pool).AgentActionAgentState(ctx, agentID)
}
