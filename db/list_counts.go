package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// listCountsLock is the advisory lock one compaction at a time holds.
const listCountsLock = 727007

// ListCountsCompact folds the delta rows of list_counts that were added since the last
// compaction into one row per key and day (dropping keys that sum to zero), and returns the
// number of rows it replaced. Counts are unchanged by it in every snapshot: the deleted
// rows and their sum change places in one transaction. Rows committed while it runs are
// left for the next run; a compaction already running elsewhere makes this one a no-op.
func ListCountsCompact(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	var folded int64
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1)", listCountsLock).Scan(&locked); err != nil {
			return fmt.Errorf("lock list counts: %w", err)
		}
		if !locked {
			return nil
		}
		err := tx.QueryRow(ctx, `
			WITH fresh AS (
			    SELECT DISTINCT platform_id, list, key, day FROM list_counts WHERE NOT compacted
			), folded AS (
			    DELETE FROM list_counts c USING fresh f
			    WHERE c.platform_id = f.platform_id AND c.list = f.list AND c.key = f.key AND c.day = f.day
			    RETURNING c.platform_id, c.list, c.key, c.day, c.n
			), summed AS (
			    INSERT INTO list_counts (platform_id, list, key, day, n, compacted)
			    SELECT platform_id, list, key, day, sum(n), true FROM folded
			    GROUP BY platform_id, list, key, day HAVING sum(n) <> 0
			)
			SELECT count(*) FROM folded`).Scan(&folded)
		if err != nil {
			return fmt.Errorf("compact list counts: %w", err)
		}
		return nil
	})
	return folded, err
}
