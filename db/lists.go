package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/internal/customer"
)

// The lists other than transactions, all ordered by id (newest first) but the UMA providers.

// CustomerFilter selects customers of one platform; nil fields do not filter.
type CustomerFilter struct {
	PlatformID                  uuid.UUID
	IncludeDeleted              bool
	PlatformCustomerID          *string
	CustomerType                *string
	Region                      *string
	Currency                    *string // one of the customer's currencies
	UmaAddress                  *string
	CreatedAfter, CreatedBefore *time.Time // inclusive
	UpdatedAfter, UpdatedBefore *time.Time // inclusive
}

// CustomerPage reads one page of a platform's customers. Counted by list_counts: no filter,
// customerType (also within a created range), region, currency, and a created or updated
// range alone; platformCustomerId and umaAddress match one customer at most.
func CustomerPage(ctx context.Context, conn ListDB, f CustomerFilter, p Page[IDPos]) (Result[Customer], error) {
	q := listQuery{from: "customers c", alias: "c", columns: "c.*"}
	q.and("c.platform_id = ?", f.PlatformID)
	scopes := []string{"live"}
	if f.IncludeDeleted {
		scopes = append(scopes, "deleted")
	} else {
		q.and("NOT c.is_deleted")
	}
	var keys countKeys
	filter(&q, &keys, f.PlatformCustomerID, "c.platform_customer_id = ?", "") // unique
	filter(&q, &keys, f.CustomerType, "c.customer_type = ?", "&customerType=")
	filter(&q, &keys, f.Region, "c.region = ?", "&region=")
	filter(&q, &keys, f.Currency, "? = ANY(c.currencies)", "&currency=")
	filter(&q, &keys, f.UmaAddress, "c.uma_address = ?", "") // unique
	dated := f.Region == nil && f.Currency == nil            // region and currency keys are not per day
	created := dateRange{column: "created_at", from: f.CreatedAfter, to: f.CreatedBefore}
	updated := dateRange{column: "updated_at", from: f.UpdatedAfter, to: f.UpdatedBefore}
	switch {
	case updated.set() && !created.set() && keys.none():
		q.dates = updated
		keys.add("&updated")
	case updated.set():
		q.dates = created
		if updated.from != nil {
			q.and("c.updated_at >= ?", *updated.from)
		}
		if updated.to != nil {
			q.and("c.updated_at <= ?", *updated.to)
		}
		keys.byRows()
	default:
		q.dates = created
	}
	q.count = keys.counter(f.PlatformID, "customers", dated, scopes...)
	return listByID(ctx, conn, q, p, pgx.RowToStructByPos[Customer])
}

// InternalAccountWithBalance is an internal account with its ledger balance and holds.
type InternalAccountWithBalance struct {
	InternalAccount
	Balance int64
	Held    int64
}

// InternalAccountFilter selects the customers' internal accounts of one platform that are
// not closed; nil fields do not filter.
type InternalAccountFilter struct {
	PlatformID uuid.UUID
	CustomerID uuid.NullUUID
	Currency   *string
	Type       *string
}

// InternalAccountPage reads one page of the customers' internal accounts of a platform with
// their balances. Counted by list_counts: no filter, currency, type.
func InternalAccountPage(ctx context.Context, conn ListDB, f InternalAccountFilter, p Page[IDPos]) (Result[InternalAccountWithBalance], error) {
	q := listQuery{from: "internal_accounts a", alias: "a", join: "JOIN ledger_accounts l ON l.id = a.id",
		columns: "a.*, l.balance, l.held"}
	q.and("a.platform_id = ?", f.PlatformID)
	q.and("a.customer_id IS NOT NULL")
	q.and("a.status <> 'CLOSED'")
	var keys countKeys
	if f.CustomerID.Valid {
		q.and("a.customer_id = ?", f.CustomerID.UUID)
		keys.byRows() // a customer has a few accounts
	}
	filter(&q, &keys, f.Currency, "a.currency = ?", "currency=")
	filter(&q, &keys, f.Type, "a.type = ?", "type=")
	q.count = keys.counter(f.PlatformID, "internal_accounts", false)
	return listByID(ctx, conn, q, p, pgx.RowToStructByPos[InternalAccountWithBalance])
}

// ExternalAccountFilter selects the external accounts of one platform that are not
// deleted: the customers' or the platform's own; nil fields do not filter.
type ExternalAccountFilter struct {
	PlatformID    uuid.UUID
	PlatformOwned bool
	CustomerID    uuid.NullUUID
	Currency      *string
}

// ExternalAccountPage reads one page of external accounts. Counted by list_counts: no
// filter, currency.
func ExternalAccountPage(ctx context.Context, conn ListDB, f ExternalAccountFilter, p Page[IDPos]) (Result[ExternalAccount], error) {
	q := listQuery{from: "external_accounts e", alias: "e", columns: "e.*"}
	q.and("e.platform_id = ?", f.PlatformID)
	q.and("NOT e.is_deleted")
	scope := "owner=customer"
	if f.PlatformOwned {
		q.and("e.customer_id IS NULL")
		scope = "owner=platform"
	} else {
		q.and("e.customer_id IS NOT NULL")
	}
	var keys countKeys
	if f.CustomerID.Valid {
		q.and("e.customer_id = ?", f.CustomerID.UUID)
		keys.byRows() // a customer has a few accounts
	}
	filter(&q, &keys, f.Currency, "e.currency = ?", "&currency=")
	q.count = keys.counter(f.PlatformID, "external_accounts", false, scope)
	return listByID(ctx, conn, q, p, pgx.RowToStructByPos[ExternalAccount])
}

// WebhookEventFilter selects webhook events of one platform; nil fields do not filter.
type WebhookEventFilter struct {
	PlatformID                  uuid.UUID
	Type                        *string
	Status                      *string
	CreatedAfter, CreatedBefore *time.Time // inclusive
}

// WebhookEventPage reads one page of a platform's webhook events. Counted by list_counts:
// no filter, type or status, each also within a created range.
func WebhookEventPage(ctx context.Context, conn ListDB, f WebhookEventFilter, p Page[IDPos]) (Result[WebhookEvent], error) {
	q := listQuery{from: "webhook_events e", alias: "e", columns: "e.*",
		dates: dateRange{column: "created_at", from: f.CreatedAfter, to: f.CreatedBefore}}
	q.and("e.platform_id = ?", f.PlatformID)
	var keys countKeys
	filter(&q, &keys, f.Type, "e.type = ?", "type=")
	filter(&q, &keys, f.Status, "e.status = ?", "status=")
	q.count = keys.counter(f.PlatformID, "webhook_events", true)
	return listByID(ctx, conn, q, p, pgx.RowToStructByPos[WebhookEvent])
}

// TokenFilter selects the live API tokens of one platform; nil fields do not filter.
type TokenFilter struct {
	PlatformID                  uuid.UUID
	Name                        *string
	CreatedAfter, CreatedBefore *time.Time // inclusive
	UpdatedAfter, UpdatedBefore *time.Time // inclusive
}

// TokenPage reads one page of a platform's API tokens. A platform has a handful, so they
// are counted row by row.
func TokenPage(ctx context.Context, conn ListDB, f TokenFilter, p Page[IDPos]) (Result[ApiToken], error) {
	q := listQuery{from: "api_tokens k", alias: "k", columns: "k.*",
		dates: dateRange{column: "created_at", from: f.CreatedAfter, to: f.CreatedBefore}}
	q.and("k.platform_id = ?", f.PlatformID)
	q.and("k.deleted_at IS NULL")
	if f.Name != nil {
		q.and("k.name = ?", *f.Name)
	}
	if f.UpdatedAfter != nil {
		q.and("k.updated_at >= ?", *f.UpdatedAfter)
	}
	if f.UpdatedBefore != nil {
		q.and("k.updated_at <= ?", *f.UpdatedBefore)
	}
	return listByID(ctx, conn, q, p, pgx.RowToStructByPos[ApiToken])
}

// UmaProviderFilter selects UMA providers; nil fields do not filter.
type UmaProviderFilter struct {
	Country        *string // one of the supported regions
	Currency       *string // one of the supported currencies
	IncludeBlocked bool    // also those not on the allow list
}

// NamePos is a position in a list ordered by name.
type NamePos struct {
	Name string    `json:"n"`
	ID   uuid.UUID `json:"id"`
}

// UmaProviderPosOf is the position of u.
func UmaProviderPosOf(u UmaProvider) NamePos { return NamePos{Name: u.Name, ID: u.ID} }

// UmaProviderPage reads one page of the UMA providers by name. The directory is small and
// shared by every platform, so it is counted row by row.
func UmaProviderPage(ctx context.Context, conn ListDB, f UmaProviderFilter, p Page[NamePos]) (Result[UmaProvider], error) {
	q := listQuery{from: "uma_providers u", alias: "u", columns: "u.*", order: []string{"name", "id"}}
	if f.Country != nil {
		q.and("? = ANY(u.supported_regions)", *f.Country)
	}
	if f.Currency != nil {
		q.and("? = ANY(u.supported_currencies)", *f.Currency)
	}
	if !f.IncludeBlocked {
		q.and("u.allow_list_status")
	}
	var after []any
	if p.After != nil {
		after = []any{p.After.Name, p.After.ID}
	}
	return readList(ctx, conn, q, after, optsOf(p), pgx.RowToStructByPos[UmaProvider])
}

// OwnerFilter selects the beneficial owners of one customer of a platform.
type OwnerFilter struct {
	PlatformID uuid.UUID
	CustomerID uuid.UUID
}

// OwnerPage reads one page of a customer's beneficial owners (a business has few). A
// customer the platform does not have is customer.NotFound.
func OwnerPage(ctx context.Context, conn ListDB, f OwnerFilter, p Page[IDPos]) (Result[BeneficialOwner], error) {
	rows, err := conn.Query(ctx, "SELECT 1 FROM customers WHERE platform_id = $1 AND id = $2", f.PlatformID, f.CustomerID)
	if err != nil {
		return Result[BeneficialOwner]{}, fmt.Errorf("find customer: %w", err)
	}
	found := rows.Next()
	rows.Close()
	if err := rows.Err(); err != nil {
		return Result[BeneficialOwner]{}, fmt.Errorf("find customer: %w", err)
	}
	if !found {
		return Result[BeneficialOwner]{}, customer.NotFound()
	}
	q := listQuery{from: "beneficial_owners o", alias: "o", columns: "o.*"}
	q.and("o.platform_id = ?", f.PlatformID)
	q.and("o.customer_id = ?", f.CustomerID)
	return listByID(ctx, conn, q, p, pgx.RowToStructByPos[BeneficialOwner])
}

// VerificationFilter selects verifications of a platform; nil fields do not filter.
type VerificationFilter struct {
	PlatformID uuid.UUID
	CustomerID uuid.NullUUID
	Status     *string
}

// VerificationPage reads one page of a platform's verifications. Counted by list_counts:
// all of them and by status; a customer's few are counted row by row.
func VerificationPage(ctx context.Context, conn ListDB, f VerificationFilter, p Page[IDPos]) (Result[Verification], error) {
	q := listQuery{from: "verifications v", alias: "v", columns: "v.*"}
	q.and("v.platform_id = ?", f.PlatformID)
	var keys countKeys
	if f.CustomerID.Valid {
		q.and("v.customer_id = ?", f.CustomerID.UUID)
		keys.byRows()
	}
	filter(&q, &keys, f.Status, "v.status = ?", "status=")
	q.count = keys.counter(f.PlatformID, "verifications", false)
	return listByID(ctx, conn, q, p, pgx.RowToStructByPos[Verification])
}
