package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/api/apitest"
	"paycore/db"
	"paycore/internal/ids"
)

// The tests of this file check, for every paginated list, that the list and its
// totalCount apply the same filters: for each filter (and some combinations), walking all
// pages yields exactly totalCount rows, every page carries the same totalCount, and both
// equal a plain SQL count of what the filter means. The rows are seeded so that every
// filter matches some rows and not others, with dates spread over several UTC days and
// rows exactly on day boundaries, so that counts kept per day are checked at their edges.
// They run again after updates that move rows between filters and after the janitor's
// compaction of the counts.

// listCheck is one query of a list and the SQL predicate of what it must show.
type listCheck struct {
	query string // query string, without limit
	where string // SQL predicate over the list's rows; $1 is the platform, args are $2…
	args  []any
	all   bool   // matches every row of the list (sortOrder alone)
	from  string // the rows the predicate applies to, when not the list's (isIncludingDeleted)
}

// listRig walks one list of one platform.
type listRig struct {
	t        *testing.T
	e        *env
	c        *apitest.Client
	path     string    // e.g. "/transactions"
	from     string    // the list's rows in SQL: "transactions WHERE platform_id = $1 AND …"
	platform uuid.UUID // $1
	limit    int
}

type anyPage struct {
	Data       []json.RawMessage `json:"data"`
	HasMore    bool              `json:"hasMore"`
	NextCursor string            `json:"nextCursor"`
	TotalCount int64             `json:"totalCount"`
}

// walk reads every page of query and returns the rows seen and the first page's count.
func (l *listRig) walk(query string) (rows int, total int64) {
	l.t.Helper()
	seen := map[string]bool{}
	path := l.path + "?" + query
	if query != "" {
		path += "&"
	}
	path += fmt.Sprintf("limit=%d", l.limit)
	next := path
	for pages := 0; ; pages++ {
		if pages > 1000 {
			l.t.Fatalf("%s: no end of pages", query)
		}
		r := l.c.Do("GET", next, nil)
		if r.Status != 200 {
			l.t.Fatalf("%s: %d %s", next, r.Status, r.Body)
		}
		var p anyPage
		r.Decode(l.t, &p)
		if pages == 0 {
			total = p.TotalCount
		} else if p.TotalCount != total {
			l.t.Errorf("%s: page %d says totalCount %d, the first page %d", query, pages, p.TotalCount, total)
		}
		if len(p.Data) > l.limit || (p.HasMore && len(p.Data) != l.limit) {
			l.t.Fatalf("%s: page of %d rows for limit %d (hasMore %v)", query, len(p.Data), l.limit, p.HasMore)
		}
		for _, d := range p.Data {
			if seen[string(d)] {
				l.t.Fatalf("%s: a row listed twice: %s", query, d)
			}
			seen[string(d)] = true
		}
		if !p.HasMore {
			if p.NextCursor != "" {
				l.t.Fatalf("%s: nextCursor on the last page", query)
			}
			return len(seen), total
		}
		next = path + "&cursor=" + url.QueryEscape(p.NextCursor)
	}
}

func (l *listRig) sqlCount(from, where string, args ...any) int64 {
	l.t.Helper()
	if from == "" {
		from = l.from
	}
	sql := "SELECT count(*) FROM " + from
	if where != "" {
		sql += " AND (" + where + ")"
	}
	var n int64
	if err := l.e.pool.QueryRow(context.Background(), sql, append([]any{l.platform}, args...)...).Scan(&n); err != nil {
		l.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// check runs every check: walked rows = totalCount = SQL count, and the filter splits the
// rows (some match, some do not).
func (l *listRig) check(checks []listCheck) {
	l.t.Helper()
	all := l.sqlCount("", "")
	if all < 2 {
		l.t.Fatalf("%s: seed too small (%d rows)", l.path, all)
	}
	for _, c := range checks {
		want := l.sqlCount(c.from, c.where, c.args...)
		rows, total := l.walk(c.query)
		if int64(rows) != total || total != want {
			l.t.Errorf("%s?%s: walked %d rows, totalCount %d, SQL count %d", l.path, c.query, rows, total, want)
		}
		if c.all && want != all {
			l.t.Errorf("%s?%s: %d rows of %d", l.path, c.query, want, all)
		}
		if !c.all && (want == 0 || want == all) {
			l.t.Errorf("%s?%s: the seed does not exercise the filter (%d of %d rows match)", l.path, c.query, want, all)
		}
	}
}

func (e *env) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (e *env) compactCounts(t *testing.T) {
	t.Helper()
	if _, err := db.ListCountsCompact(context.Background(), e.pool); err != nil {
		t.Fatal(err)
	}
}

func qtime(t time.Time) string { return url.QueryEscape(t.Format(time.RFC3339Nano)) }

// seedCustomers inserts n customers of platform: every third a business, regions US, MX
// and DE in turn with their currencies, one created a day (13h apart from midnight) and
// every fourth updated two days after it was created. The last is deleted.
func seedCustomers(t *testing.T, e *env, platform uuid.UUID, n int, base time.Time) []uuid.UUID {
	t.Helper()
	out := make([]uuid.UUID, n)
	regions := []string{"US", "MX", "DE"}
	currencies := [][]string{{"USD", "USDC"}, {"MXN", "USD"}, {"EUR"}}
	for i := range n {
		out[i] = ids.New()
		typ := "INDIVIDUAL"
		if i%3 == 2 {
			typ = "BUSINESS"
		}
		created := base.Add(time.Duration(i) * 24 * time.Hour)
		updated := created
		if i%4 == 0 {
			updated = created.Add(48 * time.Hour)
		}
		e.exec(t, `INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, region, currencies, uma_address, is_deleted, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			out[i], platform, fmt.Sprintf("pc-%d", i), typ, regions[i%3], currencies[i%3], fmt.Sprintf("$c%d@%s.list.example", i, platform), i == n-1, created, updated)
	}
	return out
}

func TestTransactionListCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, p := e.platform(true)
	c.SkipValidation = true // rows are seeded in SQL; the shapes are checked elsewhere
	_, other := e.platform(true)
	base := time.Date(2025, 3, 10, 15, 30, 0, 0, time.UTC)
	cust := seedCustomers(t, e, p.ID, 3, base.AddDate(0, -1, 0))
	// Each customer has an internal and an external account; the platform has its own.
	internal := []uuid.UUID{ids.New(), ids.New(), ids.New(), ids.New()}
	external := []uuid.UUID{ids.New(), ids.New(), ids.New(), ids.New()}
	insert := func(platform uuid.UUID, customer uuid.NullUUID, pcid, typ, status string, src uuid.NullUUID, dst uuid.UUID, at time.Time) {
		kind, srcKind, dstKind := "TRANSFER_OUT", "INTERNAL", "EXTERNAL"
		if typ == "INCOMING" {
			kind, srcKind, dstKind = "TRANSFER_IN", "EXTERNAL", "INTERNAL"
			if !src.Valid {
				kind, srcKind = "SANDBOX_FUNDING", "REALTIME_FUNDING"
			} else if src.UUID == dst {
				srcKind = "INTERNAL"
			}
		}
		e.exec(t, `INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, kind, type, status, source_kind, source_account_id,
			destination_kind, destination_account_id, currency, amount, reference, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'USD', 100, $12, $13, $13)`,
			ids.New(), platform, customer, pcid, kind, typ, status, srcKind, src, dstKind, dst, "ref-"+uuid.NewString(), at)
	}
	outStatuses := []string{"COMPLETED", "FAILED", "PENDING", "COMPLETED", "PROCESSING"}
	inStatuses := []string{"COMPLETED", "PENDING", "REJECTED", "COMPLETED", "CREATED", "FAILED"}
	for i := range 60 {
		k := i % 4 // customers 0–2, 3 is the platform itself
		customer, pcid := uuid.NullUUID{}, ""
		if k < 3 {
			customer, pcid = uuid.NullUUID{UUID: cust[k], Valid: true}, fmt.Sprintf("pc-%d", k)
		}
		at := base.Add(-time.Duration(i) * (7*time.Hour + 13*time.Minute))
		switch {
		case i%10 == 9: // exactly on a day boundary
			at = at.Truncate(24 * time.Hour)
		case i%10 == 8: // a microsecond before one
			at = at.Truncate(24 * time.Hour).Add(-time.Microsecond)
		}
		switch i % 5 {
		case 0, 2:
			insert(p.ID, customer, pcid, "OUTGOING", outStatuses[i%len(outStatuses)], uuid.NullUUID{UUID: internal[k], Valid: true}, external[k], at)
		case 1, 3:
			insert(p.ID, customer, pcid, "INCOMING", inStatuses[i%len(inStatuses)], uuid.NullUUID{UUID: external[k], Valid: true}, internal[k], at)
		default:
			insert(p.ID, customer, pcid, "INCOMING", inStatuses[i%len(inStatuses)], uuid.NullUUID{}, internal[k], at)
		}
	}
	// A move within one account (source = destination) is one transaction of that account.
	insert(p.ID, uuid.NullUUID{UUID: cust[0], Valid: true}, "pc-0", "INCOMING", "COMPLETED", uuid.NullUUID{UUID: internal[0], Valid: true}, internal[0], base.Add(-50*time.Hour))
	// Another platform's transactions, with the same accounts, count nowhere here.
	for i := range 5 {
		insert(other.ID, uuid.NullUUID{}, "", "OUTGOING", "COMPLETED", uuid.NullUUID{UUID: internal[0], Valid: true}, external[0], base.Add(-time.Duration(i)*time.Hour))
	}
	var ref string
	if err := e.pool.QueryRow(context.Background(), "SELECT reference FROM transactions WHERE platform_id = $1 ORDER BY created_at LIMIT 1", p.ID).Scan(&ref); err != nil {
		t.Fatal(err)
	}

	day := func(d int) time.Time { return base.Truncate(24*time.Hour).AddDate(0, 0, -d) }
	mid := base.Add(-5*24*time.Hour + 3*time.Hour + 17*time.Minute + 123456789)
	cid, acct := ids.Format(ids.Customer, cust[0]), ids.Format(ids.InternalAccount, internal[0])
	checks := func() []listCheck {
		return []listCheck{
			{query: "", all: true},
			{query: "sortOrder=asc", all: true},
			{query: "startDate=0001-01-01T00:00:00Z&endDate=9999-12-31T23:59:59.999999999Z", all: true},
			{query: "customerId=" + cid, where: "customer_id = $2", args: []any{cust[0]}},
			{query: "customerId=" + ids.Format(ids.Platform, p.ID), where: "customer_id IS NULL"},
			{query: "platformCustomerId=pc-1", where: "platform_customer_id = 'pc-1'"},
			{query: "accountIdentifier=" + acct, where: "source_account_id = $2 OR destination_account_id = $2", args: []any{internal[0]}},
			{query: "accountIdentifier=" + ids.Format(ids.ExternalAccount, external[1]), where: "source_account_id = $2 OR destination_account_id = $2", args: []any{external[1]}},
			{query: "senderAccountIdentifier=" + acct, where: "source_account_id = $2", args: []any{internal[0]}},
			{query: "receiverAccountIdentifier=" + acct, where: "destination_account_id = $2", args: []any{internal[0]}},
			{query: "status=COMPLETED", where: "status = 'COMPLETED'"},
			{query: "status=PENDING&sortOrder=asc", where: "status = 'PENDING'"},
			{query: "type=INCOMING", where: "type = 'INCOMING'"},
			{query: "reference=" + ref, where: "reference = $2", args: []any{ref}},
			{query: "startDate=" + qtime(mid), where: "created_at >= $2", args: []any{mid}},
			{query: "endDate=" + qtime(mid), where: "created_at <= $2", args: []any{mid}},
			{query: "startDate=" + qtime(day(12)) + "&endDate=" + qtime(day(3)), where: "created_at BETWEEN $2 AND $3", args: []any{day(12), day(3)}},
			{query: "startDate=" + qtime(day(12).Add(time.Hour)) + "&endDate=" + qtime(day(3).Add(-time.Microsecond)),
				where: "created_at BETWEEN $2 AND $3", args: []any{day(12).Add(time.Hour), day(3).Add(-time.Microsecond)}},
			{query: "startDate=" + qtime(day(6).Add(2*time.Hour)) + "&endDate=" + qtime(day(6).Add(23*time.Hour)),
				where: "created_at BETWEEN $2 AND $3", args: []any{day(6).Add(2 * time.Hour), day(6).Add(23 * time.Hour)}},
			{query: "startDate=" + qtime(day(9).Add(20*time.Hour)) + "&endDate=" + qtime(day(8).Add(3*time.Hour)),
				where: "created_at BETWEEN $2 AND $3", args: []any{day(9).Add(20 * time.Hour), day(8).Add(3 * time.Hour)}},
			{query: "status=COMPLETED&startDate=" + qtime(mid.Add(-200*time.Hour)) + "&endDate=" + qtime(mid),
				where: "status = 'COMPLETED' AND created_at BETWEEN $2 AND $3", args: []any{mid.Add(-200 * time.Hour), mid}},
			{query: "type=OUTGOING&endDate=" + qtime(mid), where: "type = 'OUTGOING' AND created_at <= $2", args: []any{mid}},
			{query: "customerId=" + ids.Format(ids.Platform, p.ID) + "&startDate=" + qtime(mid), where: "customer_id IS NULL AND created_at >= $2", args: []any{mid}},
			{query: "customerId=" + cid + "&startDate=" + qtime(mid), where: "customer_id = $2 AND created_at >= $3", args: []any{cust[0], mid}},
			{query: "status=COMPLETED&type=OUTGOING", where: "status = 'COMPLETED' AND type = 'OUTGOING'"},
			{query: "type=INCOMING&status=PENDING&startDate=" + qtime(mid.Add(-150*time.Hour)), where: "status = 'PENDING' AND type = 'INCOMING' AND created_at >= $2", args: []any{mid.Add(-150 * time.Hour)}},
			{query: "customerId=" + cid + "&status=COMPLETED", where: "customer_id = $2 AND status = 'COMPLETED'", args: []any{cust[0]}},
			{query: "customerId=" + cid + "&type=OUTGOING", where: "customer_id = $2 AND type = 'OUTGOING'", args: []any{cust[0]}},
			{query: "customerId=" + cid + "&type=OUTGOING&status=COMPLETED", where: "customer_id = $2 AND type = 'OUTGOING' AND status = 'COMPLETED'", args: []any{cust[0]}},
			{query: "customerId=" + ids.Format(ids.Platform, p.ID) + "&status=COMPLETED", where: "customer_id IS NULL AND status = 'COMPLETED'"},
			{query: "accountIdentifier=" + acct + "&status=COMPLETED", where: "(source_account_id = $2 OR destination_account_id = $2) AND status = 'COMPLETED'", args: []any{internal[0]}},
			{query: "accountIdentifier=" + acct + "&endDate=" + qtime(mid), where: "(source_account_id = $2 OR destination_account_id = $2) AND created_at <= $3", args: []any{internal[0], mid}},
		}
	}
	l := &listRig{t: t, e: e, c: c, path: "/transactions", from: "transactions WHERE platform_id = $1", platform: p.ID, limit: 4}
	l.check(checks())
	// Settling moves rows between statuses (the count follows, kept per day); then the
	// janitor folds the deltas, and everything still adds up.
	e.exec(t, "UPDATE transactions SET status = 'COMPLETED', updated_at = now() WHERE platform_id = $1 AND status IN ('PENDING', 'PROCESSING')", p.ID)
	e.exec(t, "UPDATE transactions SET status = 'FAILED', updated_at = now() WHERE platform_id = $1 AND status = 'CREATED'", p.ID)
	e.exec(t, "INSERT INTO transactions (id, platform_id, kind, type, status, source_kind, destination_kind, destination_account_id, currency, amount, reference, created_at) VALUES ($1, $2, 'TRANSFER_IN', 'INCOMING', 'PENDING', 'REALTIME_FUNDING', 'INTERNAL', $3, 'USD', 5, 'late-pending', $4)",
		ids.New(), p.ID, internal[3], base.Add(-30*time.Hour))
	l.check(checks())
	e.compactCounts(t)
	l.check(checks())
}

func TestCustomerListCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, p := e.platform(true)
	c.SkipValidation = true
	_, other := e.platform(true)
	base := time.Date(2025, 1, 1, 13, 0, 0, 0, time.UTC)
	cust := seedCustomers(t, e, p.ID, 24, base)
	seedCustomers(t, e, other.ID, 4, base)
	day := func(d int) time.Time { return base.Truncate(24*time.Hour).AddDate(0, 0, d) }
	const withDeleted = "customers WHERE platform_id = $1"
	checks := func() []listCheck {
		return []listCheck{
			{query: "", all: true},
			{query: "isIncludingDeleted=true", from: withDeleted},
			{query: "customerType=BUSINESS", where: "customer_type = 'BUSINESS'"},
			{query: "region=MX", where: "region = 'MX'"},
			{query: "currency=USD", where: "'USD' = ANY(currencies)"},
			{query: "platformCustomerId=pc-4", where: "platform_customer_id = 'pc-4'"},
			{query: "umaAddress=" + url.QueryEscape(fmt.Sprintf("$c5@%s.list.example", p.ID)), where: fmt.Sprintf("uma_address = '$c5@%s.list.example'", p.ID)},
			{query: "createdAfter=" + qtime(day(7).Add(5*time.Hour)), where: "created_at >= $2", args: []any{day(7).Add(5 * time.Hour)}},
			{query: "createdBefore=" + qtime(day(7)), where: "created_at <= $2", args: []any{day(7)}},
			{query: "createdAfter=" + qtime(day(3)) + "&createdBefore=" + qtime(day(15).Add(13*time.Hour)), where: "created_at BETWEEN $2 AND $3", args: []any{day(3), day(15).Add(13 * time.Hour)}},
			{query: "updatedAfter=" + qtime(day(10).Add(time.Hour)), where: "updated_at >= $2", args: []any{day(10).Add(time.Hour)}},
			{query: "updatedBefore=" + qtime(day(10).Add(13*time.Hour)), where: "updated_at <= $2", args: []any{day(10).Add(13 * time.Hour)}},
			{query: "customerType=INDIVIDUAL&createdAfter=" + qtime(day(5).Add(time.Hour)), where: "customer_type = 'INDIVIDUAL' AND created_at >= $2", args: []any{day(5).Add(time.Hour)}},
			{query: "region=US&currency=USDC", where: "region = 'US' AND 'USDC' = ANY(currencies)"},
			{query: "region=DE&createdBefore=" + qtime(day(12)), where: "region = 'DE' AND created_at <= $2", args: []any{day(12)}},
			{query: "updatedAfter=" + qtime(day(4)) + "&customerType=BUSINESS", where: "updated_at >= $2 AND customer_type = 'BUSINESS'", args: []any{day(4)}},
			{query: "isIncludingDeleted=true&region=DE", from: withDeleted, where: "region = 'DE'"},
			{query: "isIncludingDeleted=true&updatedAfter=" + qtime(day(12)), from: withDeleted, where: "updated_at >= $2", args: []any{day(12)}},
			{query: "isIncludingDeleted=true&createdAfter=" + qtime(day(12).Add(time.Hour)), from: withDeleted, where: "created_at >= $2", args: []any{day(12).Add(time.Hour)}},
			{query: "isIncludingDeleted=true&customerType=BUSINESS", from: withDeleted, where: "customer_type = 'BUSINESS'"},
		}
	}
	l := &listRig{t: t, e: e, c: c, path: "/customers", from: "customers WHERE platform_id = $1 AND NOT is_deleted", platform: p.ID, limit: 5}
	check := func() { t.Helper(); l.check(checks()) }
	check()
	// Deleting, editing and moving customers between regions moves them between counts.
	e.exec(t, "UPDATE customers SET is_deleted = true, updated_at = $2 WHERE id = ANY($1)", []uuid.UUID{cust[1], cust[2]}, day(30))
	e.exec(t, "UPDATE customers SET region = 'MX', currencies = '{MXN,EUR}', updated_at = $2 WHERE id = $1", cust[3], day(31))
	check()
	e.compactCounts(t)
	check()
}

func TestWebhookEventListCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, p := e.platform(true)
	c.SkipValidation = true
	_, other := e.platform(true)
	base := time.Date(2025, 6, 1, 6, 0, 0, 0, time.UTC)
	types := []string{"TEST", "INTERNAL_ACCOUNT_BALANCE_UPDATED", "OUTGOING_PAYMENT_COMPLETED"}
	statuses := []string{"PENDING", "DELIVERED", "FAILED", "DELIVERED", "UNDELIVERABLE"}
	var evs []uuid.UUID
	for i := range 40 {
		at := base.Add(time.Duration(i) * 9 * time.Hour)
		if i%7 == 0 {
			at = at.Truncate(24 * time.Hour)
		}
		platform := p.ID
		if i%10 == 3 {
			platform = other.ID
		}
		id := ids.New()
		evs = append(evs, id)
		e.exec(t, "INSERT INTO webhook_events (id, platform_id, type, data, status, dispatched_at, created_at, updated_at) VALUES ($1, $2, $3, '{}', $4, $5, $5, $5)",
			id, platform, types[i%len(types)], statuses[i%len(statuses)], at)
	}
	day := func(d int) time.Time { return base.Truncate(24*time.Hour).AddDate(0, 0, d) }
	checks := func() []listCheck {
		return []listCheck{
			{query: "", all: true},
			{query: "type=TEST", where: "type = 'TEST'"},
			{query: "status=DELIVERED", where: "status = 'DELIVERED'"},
			{query: "createdAfter=" + qtime(day(6).Add(90*time.Minute)), where: "created_at >= $2", args: []any{day(6).Add(90 * time.Minute)}},
			{query: "createdBefore=" + qtime(day(6)), where: "created_at <= $2", args: []any{day(6)}},
			{query: "createdAfter=" + qtime(day(2).Add(time.Hour)) + "&createdBefore=" + qtime(day(11).Add(-time.Microsecond)),
				where: "created_at BETWEEN $2 AND $3", args: []any{day(2).Add(time.Hour), day(11).Add(-time.Microsecond)}},
			{query: "type=OUTGOING_PAYMENT_COMPLETED&createdAfter=" + qtime(day(4).Add(7*time.Hour)), where: "type = 'OUTGOING_PAYMENT_COMPLETED' AND created_at >= $2", args: []any{day(4).Add(7 * time.Hour)}},
			{query: "status=PENDING&createdBefore=" + qtime(day(9)), where: "status = 'PENDING' AND created_at <= $2", args: []any{day(9)}},
			{query: "status=DELIVERED&type=TEST", where: "status = 'DELIVERED' AND type = 'TEST'"},
		}
	}
	l := &listRig{t: t, e: e, c: c, path: "/webhooks/events", from: "webhook_events WHERE platform_id = $1", platform: p.ID, limit: 3}
	l.check(checks())
	e.exec(t, "UPDATE webhook_events SET status = 'DELIVERED', attempt_count = attempt_count + 1 WHERE status = 'FAILED'")
	e.exec(t, "UPDATE webhook_events SET attempt_count = attempt_count + 1 WHERE id = ANY($1)", evs[:10])
	l.check(checks())
	e.compactCounts(t)
	l.check(checks())
}

func TestAccountListCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, p := e.platform(true)
	c.SkipValidation = true
	_, other := e.platform(true)
	base := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	cust := seedCustomers(t, e, p.ID, 4, base)
	otherCust := seedCustomers(t, e, other.ID, 1, base)
	internal := func(platform, customer uuid.UUID, currency, typ, status string) uuid.UUID {
		id := ids.New()
		e.exec(t, "INSERT INTO ledger_accounts (id, platform_id, currency, kind) VALUES ($1, $2, $3, 'INTERNAL')", id, platform, currency)
		e.exec(t, "INSERT INTO internal_accounts (id, platform_id, customer_id, type, status, currency) VALUES ($1, $2, $3, $4, $5, $6)",
			id, platform, customer, typ, status, currency)
		return id
	}
	external := func(platform uuid.UUID, customer uuid.NullUUID, currency, identifier string, deleted bool) uuid.UUID {
		id := ids.New()
		e.exec(t, `INSERT INTO external_accounts (id, platform_id, customer_id, currency, account_type, account_info, identifier, is_deleted)
			VALUES ($1, $2, $3, $4, 'USD_ACCOUNT', '{}', $5, $6)`, id, platform, customer, currency, identifier, deleted)
		return id
	}
	var closeLater []uuid.UUID
	for i, cu := range cust {
		internal(p.ID, cu, "USD", "INTERNAL_FIAT", "ACTIVE")
		closeLater = append(closeLater, internal(p.ID, cu, "USDC", "INTERNAL_CRYPTO", "ACTIVE"))
		if i%2 == 0 {
			internal(p.ID, cu, "USDC", "EMBEDDED_WALLET", "ACTIVE")
			internal(p.ID, cu, "EUR", "INTERNAL_FIAT", "CLOSED")
		}
		for j, cur := range []string{"USD", "EUR", "MXN"} {
			external(p.ID, uuid.NullUUID{UUID: cu, Valid: true}, cur, fmt.Sprintf("%d-%d", i, j), i == 3 && j == 0)
		}
	}
	internal(other.ID, otherCust[0], "USD", "INTERNAL_FIAT", "ACTIVE")
	external(other.ID, uuid.NullUUID{UUID: otherCust[0], Valid: true}, "USD", "o-1", false)
	for j, cur := range []string{"USD", "EUR", "USD", "MXN", "EUR"} {
		external(p.ID, uuid.NullUUID{}, cur, fmt.Sprintf("p-%d", j), j == 2)
	}
	cid := ids.Format(ids.Customer, cust[0])
	internalChecks := []listCheck{
		{query: "", all: true},
		{query: "currency=USDC", where: "currency = 'USDC'"},
		{query: "type=INTERNAL_CRYPTO", where: "type = 'INTERNAL_CRYPTO'"},
		{query: "customerId=" + cid, where: "customer_id = $2", args: []any{cust[0]}},
		{query: "currency=USDC&type=EMBEDDED_WALLET", where: "currency = 'USDC' AND type = 'EMBEDDED_WALLET'"},
		{query: "customerId=" + cid + "&currency=USD", where: "customer_id = $2 AND currency = 'USD'", args: []any{cust[0]}},
	}
	externalChecks := []listCheck{
		{query: "", all: true},
		{query: "currency=EUR", where: "currency = 'EUR'"},
		{query: "customerId=" + cid, where: "customer_id = $2", args: []any{cust[0]}},
		{query: "customerId=" + cid + "&currency=MXN", where: "customer_id = $2 AND currency = 'MXN'", args: []any{cust[0]}},
	}
	platformChecks := []listCheck{{query: "", all: true}, {query: "currency=EUR", where: "currency = 'EUR'"}}
	rigs := []struct {
		l      *listRig
		checks []listCheck
	}{
		{&listRig{path: "/customers/internal-accounts", from: "internal_accounts WHERE platform_id = $1 AND customer_id IS NOT NULL AND status <> 'CLOSED'", limit: 2}, internalChecks},
		{&listRig{path: "/customers/external-accounts", from: "external_accounts WHERE platform_id = $1 AND customer_id IS NOT NULL AND NOT is_deleted", limit: 2}, externalChecks},
		{&listRig{path: "/platform/external-accounts", from: "external_accounts WHERE platform_id = $1 AND customer_id IS NULL AND NOT is_deleted", limit: 1}, platformChecks},
	}
	check := func() {
		t.Helper()
		for _, r := range rigs {
			r.l.t, r.l.e, r.l.c, r.l.platform = t, e, c, p.ID
			r.l.check(r.checks)
		}
	}
	check()
	e.exec(t, "UPDATE internal_accounts SET status = 'CLOSED' WHERE id = ANY($1)", closeLater[:2])
	e.exec(t, "UPDATE external_accounts SET is_deleted = true WHERE identifier IN ('1-1', 'p-0')")
	e.exec(t, "UPDATE external_accounts SET currency = 'EUR' WHERE identifier = '2-2'")
	check()
	e.compactCounts(t)
	check()
}

func TestTokenAndUmaProviderListCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, p := e.platform(true)
	c.SkipValidation = true
	base := time.Date(2025, 4, 1, 12, 0, 0, 0, time.UTC)
	for i := range 12 {
		created := base.Add(time.Duration(i) * 20 * time.Hour)
		var deleted *time.Time
		if i%5 == 4 {
			deleted = &created
		}
		e.exec(t, "INSERT INTO api_tokens (id, platform_id, name, permissions, secret_hash, created_at, updated_at, deleted_at) VALUES ($1, $2, $3, '{VIEW}', '\\x00', $4, $5, $6)",
			ids.New(), p.ID, fmt.Sprintf("t%d", i%3), created, created.Add(time.Duration(i%4)*24*time.Hour), deleted)
	}
	tokens := &listRig{t: t, e: e, c: c, path: "/tokens", from: "api_tokens WHERE platform_id = $1 AND deleted_at IS NULL", platform: p.ID, limit: 3}
	tokens.check([]listCheck{
		{query: "", all: true},
		{query: "name=t1", where: "name = 't1'"},
		{query: "createdAfter=" + qtime(base.Add(100*time.Hour)), where: "created_at >= $2", args: []any{base.Add(100 * time.Hour)}},
		{query: "createdBefore=" + qtime(base.Add(100*time.Hour)), where: "created_at <= $2", args: []any{base.Add(100 * time.Hour)}},
		{query: "updatedAfter=" + qtime(base.Add(150*time.Hour)), where: "updated_at >= $2", args: []any{base.Add(150 * time.Hour)}},
		{query: "updatedBefore=" + qtime(base.Add(150*time.Hour)) + "&name=t0", where: "updated_at <= $2 AND name = 't0'", args: []any{base.Add(150 * time.Hour)}},
	})
	e.listProviders()
	uma := &listRig{t: t, e: e, c: c, path: "/uma-providers", from: "uma_providers WHERE $1::uuid IS NOT NULL", platform: p.ID, limit: 4}
	uma.check([]listCheck{
		{query: "", all: true},
		{query: "sortOrder=asc", all: true},
		{query: "countryCode=US", where: "'US' = ANY(supported_regions)"},
		{query: "currencyCode=EUR&sortOrder=asc", where: "'EUR' = ANY(supported_currencies)"},
		{query: "hasBlockedProviders=false", where: "allow_list_status"},
		{query: "countryCode=GB&hasBlockedProviders=false", where: "'GB' = ANY(supported_regions) AND allow_list_status"},
		{query: "countryCode=DK&hasBlockedProviders=true", where: "'DK' = ANY(supported_regions)"},
	})
}
