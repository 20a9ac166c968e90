package db

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// TransactionFilter selects transactions of one platform; nil and zero fields do not filter.
type TransactionFilter struct {
	PlatformID         uuid.UUID
	PlatformOnly       bool // only the platform's own transactions (no customer)
	CustomerID         uuid.NullUUID
	PlatformCustomerID *string
	AccountID          uuid.NullUUID // the source or the destination account
	SenderID           uuid.NullUUID // the source account
	ReceiverID         uuid.NullUUID // the destination account
	Status             *string
	Type               *string
	Reference          *string
	StartDate          *time.Time // created at or after
	EndDate            *time.Time // created at or before
}

// TransactionPos is a position in the transaction list, which is ordered by creation.
type TransactionPos struct {
	CreatedAt time.Time `json:"c"`
	ID        uuid.UUID `json:"id"`
}

// TransactionPosOf is the position of t.
func TransactionPosOf(t Transaction) TransactionPos {
	return TransactionPos{CreatedAt: t.CreatedAt, ID: t.ID}
}

// countPart is one filter as list_counts keys name it: "status" and "COMPLETED", "customer"
// and a uuid; the platform's own transactions are "platform" without a value.
type countPart struct{ name, value string }

// transactionCounted says whether list_counts counts the filter combination names (as
// transactions_count_keys in migration 0007 writes them), and whether per day of
// created_at, so that it also counts within a date range.
func transactionCounted(names string) (dated, ok bool) {
	switch names {
	case "", "status", "type", "platform", "status&type":
		return true, true
	case "customer", "platformCustomerId", "sender", "receiver", "account", "customer&status", "customer&type":
		return false, true
	}
	return false, false
}

// transactionCountKey is the list_counts key counting exactly the filters parts, when there
// is one: "", "status=COMPLETED", "customer=<uuid>&type=INCOMING"…
func transactionCountKey(parts []countPart) (key string, dated, ok bool) {
	names := make([]string, len(parts))
	keys := make([]string, len(parts))
	for i, p := range parts {
		names[i], keys[i] = p.name, p.name
		if p.value != "" {
			keys[i] += "=" + p.value
		}
	}
	dated, ok = transactionCounted(strings.Join(names, "&"))
	return strings.Join(keys, "&"), dated, ok
}

// TransactionPage reads one page of a platform's transactions in creation order, newest
// first unless p.Asc, with the number of transactions f matches.
//
// Each filter has an index whose order is the list's order (migration 0007), so a page
// reads about limit index entries whatever the filter. The count comes from list_counts for
// no filter, any one filter but the reference (whose match is unique anyway), status with
// type, and a customer with status or type; also within a date range for the unfiltered
// list, status, type, both, and the platform's own transactions. Other combinations count
// their rows.
func TransactionPage(ctx context.Context, conn ListDB, f TransactionFilter, p Page[TransactionPos]) (Result[Transaction], error) {
	var after []any
	if p.After != nil {
		after = []any{p.After.CreatedAt, p.After.ID}
	}
	return readList(ctx, conn, transactionQuery(f), after, optsOf(p), pgx.RowToStructByPos[Transaction])
}

// transactionQuery is the list query of f.
func transactionQuery(f TransactionFilter) listQuery {
	q := listQuery{from: "transactions t", alias: "t", columns: "t.*", order: []string{"created_at", "id"},
		dates: dateRange{column: "created_at", from: f.StartDate, to: f.EndDate}}
	q.and("t.platform_id = ?", f.PlatformID)
	var parts []countPart // in the order transactionCounted names them
	if f.PlatformOnly {
		q.and("t.customer_id IS NULL")
		parts = append(parts, countPart{"platform", ""})
	}
	if f.CustomerID.Valid {
		q.and("t.customer_id = ?", f.CustomerID.UUID)
		parts = append(parts, countPart{"customer", f.CustomerID.UUID.String()})
	}
	if f.PlatformCustomerID != nil {
		q.and("t.platform_customer_id = ?", *f.PlatformCustomerID)
		parts = append(parts, countPart{"platformCustomerId", *f.PlatformCustomerID})
	}
	if f.SenderID.Valid {
		q.and("t.source_account_id = ?", f.SenderID.UUID)
		parts = append(parts, countPart{"sender", f.SenderID.UUID.String()})
	}
	if f.ReceiverID.Valid {
		q.and("t.destination_account_id = ?", f.ReceiverID.UUID)
		parts = append(parts, countPart{"receiver", f.ReceiverID.UUID.String()})
	}
	if f.AccountID.Valid {
		// Two disjoint halves, each read in order through its own index.
		id := f.AccountID.UUID
		q.anyOf = [][]cond{
			{where("t.source_account_id = ?", id)},
			{where("t.destination_account_id = ?", id), where("t.source_account_id IS DISTINCT FROM ?", id)},
		}
		parts = append(parts, countPart{"account", id.String()})
	}
	if f.Status != nil {
		q.and("t.status = ?", *f.Status)
		parts = append(parts, countPart{"status", *f.Status})
	}
	if f.Type != nil {
		q.and("t.type = ?", *f.Type)
		parts = append(parts, countPart{"type", *f.Type})
	}
	if f.Reference != nil {
		q.and("t.reference = ?", *f.Reference)
		parts = append(parts, countPart{"reference", *f.Reference}) // unique: not kept, at most one row to count
	}
	if key, dated, ok := transactionCountKey(parts); ok {
		q.count = &counter{platform: f.PlatformID, list: "transactions", keys: []string{key}, dated: dated}
	}
	return q
}
