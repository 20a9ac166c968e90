package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/agentpolicy"
	"paycore/internal/problem"
)

func usageOf(r AgentUsage) agentpolicy.Usage {
	return agentpolicy.Usage{DailyTransactionCount: r.DailyCount, DailySpend: r.DailySpend, DailyResetDate: r.Day,
		MonthlySpend: r.MonthlySpend, MonthlyResetMonth: r.Month}
}

func usageSet(agentID uuid.UUID, u agentpolicy.Usage) AgentUsageSetParams {
	return AgentUsageSetParams{AgentID: agentID, Day: u.DailyResetDate, DailySpend: u.DailySpend, DailyCount: u.DailyTransactionCount,
		Month: u.MonthlyResetMonth, MonthlySpend: u.MonthlySpend}
}

// AgentUsageReserve reserves one transaction of amount (in the policy currency's smallest
// unit) in the agent's usage at now, in one short transaction under the usage row's lock:
// a day or month that has passed (UTC) starts again at zero, then the daily transaction
// count, the daily amount and the monthly amount are checked against limits and the
// amount (and one transaction) is added only if all of them hold. It returns the usage
// after the reservation, or 403 VELOCITY_LIMIT_EXCEEDED naming the limit (nothing
// written). Concurrent reservations for one agent are counted one after the other, so
// together they never pass a limit.
func AgentUsageReserve(ctx context.Context, pool *pgxpool.Pool, agentID uuid.UUID, now time.Time, amount int64, limits agentpolicy.Limits) (agentpolicy.Usage, error) {
	if amount < 0 {
		return agentpolicy.Usage{}, problem.Field("amount", "amount must not be negative")
	}
	var out agentpolicy.Usage
	err := WithTx(ctx, pool, func(q *Queries, _ pgx.Tx) error {
		u, err := lockUsage(ctx, q, agentID, now)
		if err != nil {
			return err
		}
		u = u.At(now)
		if err := limits.CheckWindows(u, amount); err != nil {
			return err
		}
		if amount > 1<<63-1-max(u.DailySpend, u.MonthlySpend) {
			return problem.Field("amount", "amount %d is too large to count", amount)
		}
		out = u.Add(now, amount)
		if err := q.AgentUsageSet(ctx, usageSet(agentID, out)); err != nil {
			return fmt.Errorf("store agent usage: %w", err)
		}
		return nil
	})
	return out, err
}

// AgentUsageRelease gives back a reservation of amount taken at reservedAt (an action that
// was rejected or failed), under the usage row's lock: it is taken off the windows it was
// counted in only while they are still the agent's current ones; a release for an earlier
// day or month leaves the newer window as it is. It returns the usage as stored after.
func AgentUsageRelease(ctx context.Context, pool *pgxpool.Pool, agentID uuid.UUID, reservedAt time.Time, amount int64) (agentpolicy.Usage, error) {
	var out agentpolicy.Usage
	err := WithTx(ctx, pool, func(q *Queries, _ pgx.Tx) error {
		u, err := lockUsage(ctx, q, agentID, reservedAt)
		if err != nil {
			return err
		}
		out = u.Release(reservedAt, amount)
		if out == u {
			return nil
		}
		if err := q.AgentUsageSet(ctx, usageSet(agentID, out)); err != nil {
			return fmt.Errorf("store agent usage: %w", err)
		}
		return nil
	})
	return out, err
}

// lockUsage locks the agent's usage row, creating it empty in the windows of at when the
// agent has none yet, and returns it as stored.
func lockUsage(ctx context.Context, q *Queries, agentID uuid.UUID, at time.Time) (agentpolicy.Usage, error) {
	fresh := agentpolicy.Fresh(at)
	if err := q.AgentUsageEnsure(ctx, AgentUsageEnsureParams{AgentID: agentID, Day: fresh.DailyResetDate, Month: fresh.MonthlyResetMonth}); err != nil {
		return agentpolicy.Usage{}, fmt.Errorf("create agent usage: %w", err)
	}
	r, err := q.AgentUsageLock(ctx, agentID)
	if err != nil {
		return agentpolicy.Usage{}, fmt.Errorf("lock agent usage: %w", err)
	}
	return usageOf(r), nil
}

// AgentUsages reads the usage of agents as it stands at now (windows that have passed read
// zero; an agent that never reserved anything has zeros in the windows of now), by agent.
func AgentUsages(ctx context.Context, q *Queries, now time.Time, agentIDs ...uuid.UUID) (map[uuid.UUID]agentpolicy.Usage, error) {
	out := make(map[uuid.UUID]agentpolicy.Usage, len(agentIDs))
	for _, id := range agentIDs {
		out[id] = agentpolicy.Fresh(now)
	}
	if len(agentIDs) == 0 {
		return out, nil
	}
	rows, err := q.AgentUsageGet(ctx, agentIDs)
	if err != nil {
		return nil, fmt.Errorf("read agent usage: %w", err)
	}
	for _, r := range rows {
		out[r.AgentID] = usageOf(r).At(now)
	}
	return out, nil
}

// AgentWithUsage is an agent with its usage as it stands at a moment: what an Agent is
// rendered from.
type AgentWithUsage struct {
	Agent
	Usage agentpolicy.Usage
}

// AgentsWithUsage reads the usage of agents at now (AgentUsages), the one read of usage
// for rendering agents.
func AgentsWithUsage(ctx context.Context, q *Queries, now time.Time, agents ...Agent) ([]AgentWithUsage, error) {
	agentIDs := make([]uuid.UUID, len(agents))
	for i, a := range agents {
		agentIDs[i] = a.ID
	}
	usage, err := AgentUsages(ctx, q, now, agentIDs...)
	if err != nil {
		return nil, err
	}
	out := make([]AgentWithUsage, len(agents))
	for i, a := range agents {
		out[i] = AgentWithUsage{Agent: a, Usage: usage[a.ID]}
	}
	return out, nil
}
