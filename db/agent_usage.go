package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"paycore/internal/agent"
	"paycore/internal/agentpolicy"
)

func usageOf(r AgentUsage) agentpolicy.Usage {
	return agentpolicy.Usage{Currency: r.Currency, CurrencySince: r.CurrencySince, DailyTransactionCount: r.DailyCount, DailySpend: r.DailySpend, DailyResetDate: r.Day,
		MonthlySpend: r.MonthlySpend, MonthlyResetMonth: r.Month}
}

func usageSet(agentID uuid.UUID, u agentpolicy.Usage) AgentUsageSetParams {
	return AgentUsageSetParams{AgentID: agentID, Currency: u.Currency, CurrencySince: u.CurrencySince, Day: u.DailyResetDate, DailySpend: u.DailySpend, DailyCount: u.DailyTransactionCount,
		Month: u.MonthlyResetMonth, MonthlySpend: u.MonthlySpend}
}

// reserveUsage adds one transaction of amount to u, the agent's usage as locked
// (lockUsage), taken as it stands at now in the limits' currency, when the daily transaction
// count, the daily amount and the monthly amount of limits all still hold
// (agentpolicy.Limits.Reserve decides), and stores it.
func reserveUsage(ctx context.Context, q *queries, agentID uuid.UUID, u agentpolicy.Usage, now time.Time, amount int64, limits agentpolicy.Limits) (agentpolicy.Usage, error) {
	out, err := limits.Reserve(u, now, amount)
	if err != nil {
		return out, err
	}
	if err := q.AgentUsageSet(ctx, usageSet(agentID, out)); err != nil {
		return u, fmt.Errorf("store agent usage: %w", err)
	}
	return out, nil
}

// releaseUsage takes a reservation back off the windows it was counted in while they are
// still the agent's current ones; a release for an earlier day or month, or in a currency
// the policy no longer has, leaves the newer amounts as they are (agentpolicy.Usage.Release).
func releaseUsage(ctx context.Context, q *queries, agentID uuid.UUID, reservedAt time.Time, amount int64, currency string) (agentpolicy.Usage, error) {
	if err := agentpolicy.CheckAmount(amount); err != nil {
		return agentpolicy.Usage{}, err
	}
	u, err := lockUsage(ctx, q, agentID, reservedAt, currency)
	if err != nil {
		return u, err
	}
	out := u.Release(reservedAt, amount, currency)
	if out == u {
		return out, nil
	}
	if err := q.AgentUsageSet(ctx, usageSet(agentID, out)); err != nil {
		return u, fmt.Errorf("store agent usage: %w", err)
	}
	return out, nil
}

// lockUsage locks the agent's usage row, creating it empty in the windows of at and in
// currency when the agent has none yet, and returns it as stored. An agent that does not
// exist is 404 AGENT_NOT_FOUND.
func lockUsage(ctx context.Context, q *queries, agentID uuid.UUID, at time.Time, currency string) (agentpolicy.Usage, error) {
	fresh := agentpolicy.Fresh(at, currency)
	err := q.AgentUsageEnsure(ctx, AgentUsageEnsureParams{AgentID: agentID, Currency: currency, CurrencySince: fresh.CurrencySince, Day: fresh.DailyResetDate, Month: fresh.MonthlyResetMonth})
	if ConstraintViolated(err, "agent_usage_agent_id_fkey") {
		return agentpolicy.Usage{}, agent.ErrNotFound()
	}
	if err != nil {
		return agentpolicy.Usage{}, fmt.Errorf("create agent usage: %w", err)
	}
	r, err := q.AgentUsageLock(ctx, agentID)
	if err != nil {
		return agentpolicy.Usage{}, fmt.Errorf("lock agent usage: %w", err)
	}
	return usageOf(r), nil
}

// agentUsages reads the usage of agents as it stands at now in the currency of each one's
// policy (currencies, by agent): windows that have passed, or amounts counted in another
// currency, read zero; an agent that never reserved anything has zeros in the windows of
// now.
func agentUsages(ctx context.Context, q *queries, now time.Time, currencies map[uuid.UUID]string) (map[uuid.UUID]agentpolicy.Usage, error) {
	out := make(map[uuid.UUID]agentpolicy.Usage, len(currencies))
	agentIDs := make([]uuid.UUID, 0, len(currencies))
	for id, cur := range currencies {
		out[id] = agentpolicy.Fresh(now, cur)
		agentIDs = append(agentIDs, id)
	}
	if len(agentIDs) == 0 {
		return out, nil
	}
	rows, err := q.AgentUsageGet(ctx, agentIDs)
	if err != nil {
		return nil, fmt.Errorf("read agent usage: %w", err)
	}
	for _, r := range rows {
		out[r.AgentID] = usageOf(r).At(now).In(currencies[r.AgentID], now)
	}
	return out, nil
}

// AgentWithUsage is an agent with its usage as it stands at a moment: what an Agent is
// rendered from.
type AgentWithUsage struct {
	Agent
	Usage agentpolicy.Usage
}

// AgentsWithUsage reads the usage of agents at now (agentUsages), the one read of usage
// for rendering agents.
func AgentsWithUsage(ctx context.Context, d DBTX, now time.Time, agents ...Agent) ([]AgentWithUsage, error) {
	q := newQueries(d)
	currencies := make(map[uuid.UUID]string, len(agents))
	for _, a := range agents {
		p, err := agentpolicy.Decode(a.Policy)
		if err != nil {
			return nil, err
		}
		currencies[a.ID] = p.SpendingLimits.Currency
	}
	usage, err := agentUsages(ctx, q, now, currencies)
	if err != nil {
		return nil, err
	}
	out := make([]AgentWithUsage, len(agents))
	for i, a := range agents {
		out[i] = AgentWithUsage{Agent: a, Usage: usage[a.ID]}
	}
	return out, nil
}
