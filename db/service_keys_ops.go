package db

// Named operations on the service's own keys (service_keys).

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ServiceKeyEnsure stores the key k unless a key of its name is stored (the insert is a
// no-op then, so concurrent processes all end up with the first one), and returns the key
// stored under that name.
func ServiceKeyEnsure(ctx context.Context, pool *pgxpool.Pool, k ServiceKeyInsertParams) (ServiceKey, error) {
	q := newQueries(pool)
	if err := q.ServiceKeyInsert(ctx, k); err != nil {
		return ServiceKey{}, fmt.Errorf("store: %w", err)
	}
	row, err := q.ServiceKeyGet(ctx, k.Name)
	if err != nil {
		return row, fmt.Errorf("load: %w", err)
	}
	return row, nil
}
