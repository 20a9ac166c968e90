package db

// Named operations on agent actions: each runs one query.

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/agent"
)

// AgentActionGetByWorkflow runs the AgentActionGetByWorkflow query on pool: the action an
// agent's request created, found by the workflow it started.
func AgentActionGetByWorkflow(ctx context.Context, pool *pgxpool.Pool, arg AgentActionGetByWorkflowParams) (AgentAction, error) {
	return newQueries(pool).AgentActionGetByWorkflow(ctx, arg)
}

// AgentActionActor reads, under a share lock, what the agent rules read of an action's
// agent: whether it is paused or deleted.
func AgentActionActor(ctx context.Context, d DBTX, agentID uuid.UUID) (agent.Actor, error) {
	return agentActionActor(ctx, newQueries(d), agentID)
}

// agentActionActor is AgentActionActor on q.
func agentActionActor(ctx context.Context, q *queries, agentID uuid.UUID) (agent.Actor, error) {
	st, err := q.AgentActionAgentState(ctx, agentID)
	if err != nil {
		return agent.Actor{}, fmt.Errorf("read action agent: %w", err)
	}
	return agent.Actor{Paused: st.IsPaused, Deleted: st.Deleted}, nil
}
