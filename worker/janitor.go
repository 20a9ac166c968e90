package worker

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/infra/metrics"
)

// Janitor deletes expired idempotency records and ended rate-limit windows, compacts the
// list counts, rolls the house accounts' appended postings up into their balances, and
// (with Metrics) counts the stuck payments and the webhook backlog periodically.
type Janitor struct {
	Pool     *pgxpool.Pool
	Logger   *slog.Logger
	Interval time.Duration // idempotency records; default 10 minutes
	// CountsInterval is how often the list counts' delta rows are folded and the gauges
	// below refreshed; default 1 minute. Counts read the deltas written since, so this
	// bounds their number.
	CountsInterval time.Duration
	// HouseInterval is how often the postings appended to house accounts are rolled up into
	// their balances (db.LedgerHouseRollUp); default 5 seconds. Balances read the postings
	// appended since, so this bounds their number.
	HouseInterval time.Duration
	// Metrics, when set, receives the stuck-payment and webhook-backlog gauges.
	Metrics *metrics.Metrics
	// StuckAfter is how long an open transaction (CREATED, PENDING, PROCESSING) may go
	// unchanged before it counts as stuck; default 30 minutes.
	StuckAfter time.Duration
}

// openStatuses are the statuses a payment can be stuck in; each is always reported, so a
// gauge at zero reads zero rather than missing.
var openStatuses = []catalog.TransactionStatus{catalog.TxCreated, catalog.TxPending, catalog.TxProcessing}

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
	if j.HouseInterval <= 0 {
		j.HouseInterval = 5 * time.Second
	}
	counts := time.NewTicker(j.CountsInterval)
	defer counts.Stop()
	house := time.NewTicker(j.HouseInterval)
	defer house.Stop()
	j.deleteExpired(ctx)
	j.compactCounts(ctx)
	j.rollUpHouse(ctx)
	j.updateGauges(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			j.deleteExpired(ctx)
		case <-counts.C:
			j.compactCounts(ctx)
			j.updateGauges(ctx)
		case <-house.C:
			j.rollUpHouse(ctx)
		}
	}
}

func (j *Janitor) deleteExpired(ctx context.Context) {
	n, err := db.IdempotencyDeleteExpired(ctx, j.Pool)
	if err != nil && ctx.Err() == nil {
		j.Logger.Warn("janitor: delete expired idempotency keys", "error", err)
	} else if n > 0 {
		j.Logger.Info("janitor: deleted expired idempotency keys", "count", n)
	}
	n, err = db.RateLimitsDeleteEnded(ctx, j.Pool)
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

func (j *Janitor) rollUpHouse(ctx context.Context) {
	n, err := db.LedgerHouseRollUp(ctx, j.Pool)
	if err != nil && ctx.Err() == nil {
		j.Logger.Warn("janitor: roll up house accounts", "error", err)
	} else if n > 0 {
		j.Logger.Debug("janitor: rolled up house postings", "postings", n)
	}
}

// updateGauges counts the stuck payments and the undelivered webhook events (two cheap
// queries on partial indexes of the open rows) into the metrics.
func (j *Janitor) updateGauges(ctx context.Context) {
	if j.Metrics == nil {
		return
	}
	stuckAfter := j.StuckAfter
	if stuckAfter <= 0 {
		stuckAfter = 30 * time.Minute
	}
	rows, err := db.TransactionCountStuck(ctx, j.Pool, time.Now().Add(-stuckAfter))
	if err != nil {
		if ctx.Err() == nil {
			j.Logger.WarnContext(ctx, "janitor: count stuck payments", "error", err)
		}
	} else {
		counts := map[catalog.TransactionStatus]int64{}
		for _, r := range rows {
			counts[r.Status] = r.Count
		}
		for _, st := range openStatuses {
			j.Metrics.StuckPayments.WithLabelValues(string(st)).Set(float64(counts[st]))
		}
	}
	b, err := db.WebhookEventBacklog(ctx, j.Pool)
	if err != nil {
		if ctx.Err() == nil {
			j.Logger.WarnContext(ctx, "janitor: count webhook backlog", "error", err)
		}
		return
	}
	j.Metrics.WebhookBacklog.Set(float64(b.Pending))
	age := 0.0
	if b.Pending > 0 {
		age = max(time.Since(b.Oldest).Seconds(), 0)
	}
	j.Metrics.WebhookOldestPending.Set(age)
}
