package db

import (
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/paylimits"
)

// Renderer is every rendering the webhook events of the db operations need: the
// resources they carry and a transaction's reconciliation reference (db/view implements
// it; it imports db, so it is given to NewStore rather than called from here).
type Renderer interface {
	Views
	KycViews
	AgentActionViews
}

// Store runs the db operations that record webhook events (in the same database
// transaction as the change), on its pool, rendering the events with its Renderer. It is
// built once where the worker and the API are wired.
type Store struct {
	pool   *pgxpool.Pool
	views  Renderer
	limits paylimits.Limits
}

// NewStore is the Store of pool whose events are rendered by r.
func NewStore(pool *pgxpool.Pool, r Renderer) Store {
	return Store{pool: pool, views: r}
}

// WithLimits is s holding payments to the deployment's limits l: a payment held from an
// internal account (a transfer out, an executed quote) counts towards its platform's
// volume of the day in its currency (paylimits).
func (s Store) WithLimits(l paylimits.Limits) Store {
	s.limits = l
	return s
}
