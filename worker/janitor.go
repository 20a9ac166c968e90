package worker

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
)

// Janitor deletes expired idempotency records and ended rate-limit windows, and compacts
// the list counts periodically.
type Janitor struct {
	Pool     *pgxpool.Pool
	Logger   *slog.Logger
	Interval time.Duration // idempotency records; default 10 minutes
	// CountsInterval is how often the list counts' delta rows are folded; default 1
	// minute. Counts read the deltas written since, so this bounds their number.
	CountsInterval time.Duration
}

// Run cleans until ctx ends.
func (j *Janitor) Run(ctx context.Context) {
	if j.Interval <= 0 {
		j.Interval = 10 * time.Minute
	}
	if j.CountsInterval <= 0 {
		j.CountsInterval = time.Minute
	}
	t := time.NewTicker(j.Interval)
	defer t.Stop()
	counts := time.NewTicker(j.CountsInterval)
	defer counts.Stop()
	j.deleteExpired(ctx)
	j.compactCounts(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			j.deleteExpired(ctx)
		case <-counts.C:
			j.compactCounts(ctx)
		}
	}
}

func (j *Janitor) deleteExpired(ctx context.Context) {
	n, err := db.New(j.Pool).IdempotencyDeleteExpired(ctx)
	if err != nil && ctx.Err() == nil {
		j.Logger.Warn("janitor: delete expired idempotency keys", "error", err)
	} else if n > 0 {
		j.Logger.Info("janitor: deleted expired idempotency keys", "count", n)
	}
	n, err = db.New(j.Pool).RateLimitsDeleteEnded(ctx)
	if err != nil && ctx.Err() == nil {
		j.Logger.Warn("janitor: delete ended rate-limit windows", "error", err)
	} else if n > 0 {
		j.Logger.Debug("janitor: deleted ended rate-limit windows", "count", n)
	}
}

func (j *Janitor) compactCounts(ctx context.Context) {
	n, err := db.ListCountsCompact(ctx, j.Pool)
	if err != nil && ctx.Err() == nil {
		j.Logger.Warn("janitor: compact list counts", "error", err)
	} else if n > 0 {
		j.Logger.Debug("janitor: compacted list counts", "rows", n)
	}
}
