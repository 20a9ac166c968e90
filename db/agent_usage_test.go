package db_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/agentpolicy"
	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func lim(v int64) *int64 { return &v }

// limitRefused checks err is VELOCITY_LIMIT_EXCEEDED naming limit.
func limitRefused(t *testing.T, err error, limit string) {
	t.Helper()
	var r *problem.Refusal
	if !errors.As(err, &r) || r.Code != catalog.VelocityLimitExceeded || r.Details["limit"] != limit {
		t.Fatalf("err = %v, want %s naming %s", err, catalog.VelocityLimitExceeded, limit)
	}
}

func usageIs(t *testing.T, got agentpolicy.Usage, count, daily, monthly int64) {
	t.Helper()
	if got.DailyTransactionCount != count || got.DailySpend != daily || got.MonthlySpend != monthly {
		t.Fatalf("usage %+v, want count %d, daily %d, monthly %d", got, count, daily, monthly)
	}
}

// storedUsage reads the agent's usage as GET /agents renders it at now.
func storedUsage(t *testing.T, w *agentWorld, id uuid.UUID, now time.Time) agentpolicy.Usage {
	t.Helper()
	m, err := db.AgentUsages(context.Background(), w.q, now, map[uuid.UUID]string{id: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	return m[id]
}

// Each limit holds at its edge: reaching it exactly passes, one more is refused and
// writes nothing.
func TestAgentUsageReserveEdges(t *testing.T) {
	w := newAgentWorld(t)
	ctx := context.Background()
	now := time.Date(2026, 5, 12, 9, 0, 0, 0, time.UTC)

	a, _ := w.create(agentPolicy(t, basicAgentPolicy), time.Minute)
	if u := storedUsage(t, w, a.ID, now); u != agentpolicy.Fresh(now, "USD") {
		t.Fatalf("no reservation yet: %+v", u)
	}
	daily := agentpolicy.Limits{Currency: "USD", Daily: lim(1000)}
	u, err := db.AgentUsageReserve(ctx, w.pool, a.ID, now, 600, daily)
	if err != nil {
		t.Fatal(err)
	}
	usageIs(t, u, 1, 600, 600)
	_, err = db.AgentUsageReserve(ctx, w.pool, a.ID, now, 401, daily)
	limitRefused(t, err, agentpolicy.LimitDaily)
	if u, err = db.AgentUsageReserve(ctx, w.pool, a.ID, now, 400, daily); err != nil {
		t.Fatal(err)
	}
	usageIs(t, u, 2, 1000, 1000)
	usageIs(t, storedUsage(t, w, a.ID, now), 2, 1000, 1000)

	b, _ := w.create(agentPolicy(t, basicAgentPolicy), time.Minute)
	count := agentpolicy.Limits{Currency: "USD", DailyCount: lim(2)}
	for range 2 {
		if _, err := db.AgentUsageReserve(ctx, w.pool, b.ID, now, 1, count); err != nil {
			t.Fatal(err)
		}
	}
	_, err = db.AgentUsageReserve(ctx, w.pool, b.ID, now, 0, count)
	limitRefused(t, err, agentpolicy.LimitDailyCount)
	usageIs(t, storedUsage(t, w, b.ID, now), 2, 2, 2)

	c, _ := w.create(agentPolicy(t, basicAgentPolicy), time.Minute)
	monthly := agentpolicy.Limits{Currency: "USD", Daily: lim(5000), Monthly: lim(7000)}
	if _, err := db.AgentUsageReserve(ctx, w.pool, c.ID, now.AddDate(0, 0, -1), 5000, monthly); err != nil {
		t.Fatal(err)
	}
	_, err = db.AgentUsageReserve(ctx, w.pool, c.ID, now, 2001, monthly)
	limitRefused(t, err, agentpolicy.LimitMonthly)
	if u, err = db.AgentUsageReserve(ctx, w.pool, c.ID, now, 2000, monthly); err != nil {
		t.Fatal(err)
	}
	usageIs(t, u, 1, 2000, 7000)

	_, err = db.AgentUsageReserve(ctx, w.pool, c.ID, now, -1, monthly)
	fieldRefused(t, err, "amount")
}

// 100 reservations at once never pass the daily amount or count: exactly
// floor(limit/amount) of them succeed, the others are refused.
func TestAgentUsageReserveConcurrent(t *testing.T) {
	w := newAgentWorld(t)
	ctx := context.Background()
	now := time.Now()
	for _, c := range []struct {
		name   string
		limits agentpolicy.Limits
		amount int64
		want   int
	}{
		{"daily amount", agentpolicy.Limits{Currency: "USD", Daily: lim(1000)}, 70, 14},
		{"daily count", agentpolicy.Limits{Currency: "USD", DailyCount: lim(17)}, 5, 17},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, _ := w.create(agentPolicy(t, basicAgentPolicy), time.Minute)
			var (
				wg      sync.WaitGroup
				mu      sync.Mutex
				ok      int
				unknown []error
			)
			for range 100 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := db.AgentUsageReserve(ctx, w.pool, a.ID, now, c.amount, c.limits)
					mu.Lock()
					defer mu.Unlock()
					if err == nil {
						ok++
					} else if problem.CodeOf(err) != catalog.VelocityLimitExceeded {
						unknown = append(unknown, err)
					}
				}()
			}
			wg.Wait()
			if len(unknown) > 0 {
				t.Fatalf("unexpected errors: %v", unknown)
			}
			if ok != c.want {
				t.Fatalf("%d reservations succeeded, want %d", ok, c.want)
			}
			usageIs(t, storedUsage(t, w, a.ID, now), int64(c.want), int64(c.want)*c.amount, int64(c.want)*c.amount)
		})
	}
}

// A release gives the amount back to the window it was taken from; a new day or month
// starts at zero, and a release of an earlier window does not touch the new one.
func TestAgentUsageWindowsAndRelease(t *testing.T) {
	w := newAgentWorld(t)
	ctx := context.Background()
	a, _ := w.create(agentPolicy(t, basicAgentPolicy), time.Minute)
	limits := agentpolicy.Limits{Currency: "USD", Daily: lim(1000), DailyCount: lim(3), Monthly: lim(2500)}
	reserve := func(at time.Time, amount int64) agentpolicy.Usage {
		t.Helper()
		u, err := db.AgentUsageReserve(ctx, w.pool, a.ID, at, amount, limits)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	release := func(at time.Time, amount int64) agentpolicy.Usage {
		t.Helper()
		u, err := db.AgentUsageRelease(ctx, w.pool, a.ID, at, amount, "USD")
		if err != nil {
			t.Fatal(err)
		}
		return u
	}

	d1 := time.Date(2026, 1, 30, 23, 59, 59, 0, time.UTC)
	reserve(d1, 600)
	usageIs(t, reserve(d1, 400), 2, 1000, 1000)
	_, err := db.AgentUsageReserve(ctx, w.pool, a.ID, d1, 1, limits)
	limitRefused(t, err, agentpolicy.LimitDaily)
	usageIs(t, release(d1, 400), 1, 600, 600) // a rejected action gives its amount back
	usageIs(t, reserve(d1, 400), 2, 1000, 1000)

	// Midnight UTC: a new day starts at zero, the month goes on.
	d2 := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)
	usageIs(t, storedUsage(t, w, a.ID, d2), 0, 0, 1000)
	usageIs(t, reserve(d2, 1000), 1, 1000, 2000)
	// Yesterday's release lowers the month only.
	usageIs(t, release(d1, 400), 1, 1000, 1600)
	usageIs(t, reserve(d2.Add(time.Hour), 0), 2, 1000, 1600)

	// A new month starts both windows at zero.
	m2 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	usageIs(t, storedUsage(t, w, a.ID, m2), 0, 0, 0)
	usageIs(t, reserve(m2, 900), 1, 900, 900)
	// Releases of last month leave the new windows as they are.
	usageIs(t, release(d2, 1000), 1, 900, 900)
	usageIs(t, release(d1, 600), 1, 900, 900)
	usageIs(t, storedUsage(t, w, a.ID, m2), 1, 900, 900)
}
