package dbtest

// Rows for tests' fixtures, inserted as given by the generated insert of the same name:
// none of the rules of db's operations (provisioning, accounts, events) run.

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/db/internal/gen"
)

// PlatformCreate inserts the platform row p.
func PlatformCreate(ctx context.Context, pool *pgxpool.Pool, p db.PlatformCreateParams) (db.Platform, error) {
	return gen.New(pool).PlatformCreate(ctx, p)
}

// WebhookSecretCreate inserts the webhook secret row s.
func WebhookSecretCreate(ctx context.Context, pool *pgxpool.Pool, s db.WebhookSecretCreateParams) (db.WebhookSecret, error) {
	return gen.New(pool).WebhookSecretCreate(ctx, s)
}

// CustomerCreate inserts the customer row c (no accounts).
func CustomerCreate(ctx context.Context, pool *pgxpool.Pool, c db.CustomerCreateParams) (db.Customer, error) {
	return gen.New(pool).CustomerCreate(ctx, c)
}

// LedgerAccountCreate inserts the ledger account row a.
func LedgerAccountCreate(ctx context.Context, pool *pgxpool.Pool, a db.LedgerAccountCreateParams) (db.LedgerAccount, error) {
	return gen.New(pool).LedgerAccountCreate(ctx, a)
}

// InternalAccountCreate inserts the internal account row a (its ledger account first).
func InternalAccountCreate(ctx context.Context, pool *pgxpool.Pool, a db.InternalAccountCreateParams) (db.InternalAccount, error) {
	return gen.New(pool).InternalAccountCreate(ctx, a)
}

// ExternalAccountCreate inserts the external account row a.
func ExternalAccountCreate(ctx context.Context, pool *pgxpool.Pool, a db.ExternalAccountCreateParams) (db.ExternalAccount, error) {
	return gen.New(pool).ExternalAccountCreate(ctx, a)
}
