package worker

import (
	"context"
	"log/slog"
	"time"

	"paycore/db"
)

// Janitor deletes expired idempotency records periodically.
type Janitor struct {
	Queries  *db.Queries
	Logger   *slog.Logger
	Interval time.Duration // default 10 minutes
}

// Run cleans until ctx ends.
func (j *Janitor) Run(ctx context.Context) {
	if j.Interval <= 0 {
		j.Interval = 10 * time.Minute
	}
	t := time.NewTicker(j.Interval)
	defer t.Stop()
	for {
		n, err := j.Queries.IdempotencyDeleteExpired(ctx)
		if err != nil && ctx.Err() == nil {
			j.Logger.Warn("janitor: delete expired idempotency keys", "error", err)
		} else if n > 0 {
			j.Logger.Info("janitor: deleted expired idempotency keys", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
