package db

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Every paginated list is read through listQuery: one SQL text built per combination of
// filters (only the predicates that are present, so each shape can use the index made for
// it instead of one catch-all query), a keyset page in (sort columns…, id) order, and the
// number of matching rows. The page and its count are built from the same predicates, so
// they can never disagree on what a filter means, and they are read in one REPEATABLE READ
// snapshot, so the count is exact for the page it comes with.
//
// Counting: when list_counts keeps a key for the filters given (no filter, most single
// filters, a few pairs; with a date range only for the keys kept per day), the count is the
// sum of that key's delta rows (see migration 0007 and ListCountsCompact) and, for a date
// range, the rows of the two partial days at its ends counted through the date index. Any
// other combination counts its matching rows.

// Page asks for one page of a list.
type Page[P any] struct {
	After *P    // position of the previous page's last row; nil for the first page
	Asc   bool  // ascending order (lists that offer sortOrder); descending otherwise
	Limit int32 // rows per page
	// Total is the count carried over from the first page by the cursor; nil counts now.
	Total *int64
}

// Result is one page of a list.
type Result[R any] struct {
	Rows    []R   // at most Limit rows
	HasMore bool  // rows follow the last one
	Total   int64 // rows the filters match (as of the first page)
}

// ListDB is what lists are read through: a *pgxpool.Pool (not a transaction: a first
// page opens its own).
type ListDB interface {
	DBTX
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// IDPos is the position in a list ordered by id (UUIDv7, so by creation).
type IDPos struct {
	ID uuid.UUID `json:"id"`
}

// cond is one SQL predicate; each ? is replaced by the next argument's placeholder.
type cond struct {
	sql  string
	args []any
}

func where(sql string, args ...any) cond { return cond{sql: sql, args: args} }

// dateRange bounds a timestamptz column; from and to are inclusive, nil is unbounded.
type dateRange struct {
	column   string
	from, to *time.Time
}

func (d dateRange) set() bool { return d.from != nil || d.to != nil }

// counter names the list_counts keys whose sum is the count of the list's filters. dated
// keys have one row per UTC day of the dates column, so a range of dates is counted by day.
type counter struct {
	platform uuid.UUID
	list     string
	keys     []string
	dated    bool
}

// listQuery is one list read: the table, the keyset order, the filters and the counter.
type listQuery struct {
	from    string   // counted table with alias, e.g. "transactions t"
	alias   string   // that alias
	join    string   // joined for the page only; must neither filter nor repeat rows
	columns string   // the page's columns
	order   []string // keyset columns of alias, most significant first, ending with a unique one
	where   []cond
	// anyOf, when set, matches rows for which one of the alternatives holds. The
	// alternatives must be disjoint; each one reads its own index, and the page merges them.
	anyOf [][]cond
	dates dateRange
	count *counter // nil: count the matching rows
}

func (q *listQuery) and(sql string, args ...any) { q.where = append(q.where, where(sql, args...)) }

// filter adds a predicate on value, when given, and records it in keys: counted under
// key + the value, or row by row when key is "".
func filter[T any](q *listQuery, keys *countKeys, value *T, sql, key string) {
	if value == nil {
		return
	}
	q.and(sql, *value)
	if key == "" {
		keys.byRows()
		return
	}
	keys.add(key + fmt.Sprint(*value))
}

// sqlBuilder numbers placeholders as predicates are appended.
type sqlBuilder struct {
	sb   strings.Builder
	args []any
}

func (b *sqlBuilder) write(s string) { b.sb.WriteString(s) }

func (b *sqlBuilder) cond(c cond) {
	rest, args := c.sql, c.args
	for {
		i := strings.IndexByte(rest, '?')
		if i < 0 {
			break
		}
		if len(args) == 0 {
			panic("db: placeholder without argument in " + c.sql) // programmer error
		}
		b.sb.WriteString(rest[:i])
		b.arg(args[0])
		rest, args = rest[i+1:], args[1:]
	}
	if len(args) != 0 {
		panic("db: argument without placeholder in " + c.sql) // programmer error
	}
	b.sb.WriteString(rest)
}

func (b *sqlBuilder) arg(v any) {
	b.args = append(b.args, v)
	b.sb.WriteString("$" + strconv.Itoa(len(b.args)))
}

// filters writes the WHERE clause of one alternative (alt < 0: all of them, OR-ed) with
// the date range d and extra predicates.
func (q *listQuery) filters(b *sqlBuilder, alt int, d dateRange, extra ...cond) {
	conds := append([]cond{}, q.where...)
	switch {
	case alt >= 0:
		conds = append(conds, q.anyOf[alt]...)
	case len(q.anyOf) > 0:
		panic("db: alternatives are read one at a time") // programmer error
	}
	col := q.alias + "." + d.column
	if d.from != nil {
		conds = append(conds, where(col+" >= ?", *d.from))
	}
	if d.to != nil {
		conds = append(conds, where(col+" <= ?", *d.to))
	}
	conds = append(conds, extra...)
	for i, c := range conds {
		if i == 0 {
			b.write(" WHERE ")
		} else {
			b.write(" AND ")
		}
		b.cond(c)
	}
}

// pageSQL is the page read: rows after the position in keyset order, limit of them.
func (q *listQuery) pageSQL(after []any, asc bool, limit int32) (string, []any) {
	dir, cmp := " DESC", " < "
	if asc {
		dir, cmp = " ASC", " > "
	}
	var extra []cond
	if after != nil {
		cols := make([]string, len(q.order))
		marks := make([]string, len(q.order))
		for i, c := range q.order {
			cols[i], marks[i] = q.alias+"."+c, "?"
		}
		extra = append(extra, where("("+strings.Join(cols, ", ")+")"+cmp+"("+strings.Join(marks, ", ")+")", after...))
	}
	orderBy := func(prefix string) string {
		parts := make([]string, len(q.order))
		for i, c := range q.order {
			parts[i] = prefix + c + dir
		}
		return " ORDER BY " + strings.Join(parts, ", ")
	}
	b := &sqlBuilder{}
	one := func(alt int) {
		b.write("SELECT " + q.columns + " FROM " + q.from)
		if q.join != "" {
			b.write(" " + q.join)
		}
		q.filters(b, alt, q.dates, extra...)
		b.write(orderBy(q.alias+".") + " LIMIT ")
		b.arg(limit)
	}
	if len(q.anyOf) == 0 {
		one(-1)
		return b.sb.String(), b.args
	}
	b.write("SELECT * FROM (")
	for i := range q.anyOf {
		if i > 0 {
			b.write(" UNION ALL ")
		}
		b.write("(")
		one(i)
		b.write(")")
	}
	b.write(") u" + orderBy("u.") + " LIMIT ")
	b.arg(limit)
	return b.sb.String(), b.args
}

// countSQL is the count of the filters' matches: from list_counts when a counter covers
// them, row by row otherwise.
func (q *listQuery) countSQL() (string, []any) {
	b := &sqlBuilder{}
	b.write("SELECT ")
	if q.count == nil || (q.dates.set() && !q.count.dated) {
		q.countRows(b, q.dates)
		return b.sb.String() + "::bigint", b.args
	}
	if !q.dates.set() {
		q.sumCounter(b, nil, nil)
		return b.sb.String(), b.args
	}
	// Whole UTC days inside the range come from the counter; the partial days at its ends
	// are counted row by row through the date index.
	var first, end *time.Time // counter days: first <= day < end
	lower, upper := dateRange{column: q.dates.column}, dateRange{column: q.dates.column}
	if f := q.dates.from; f != nil {
		d := dateOf(*f)
		if d.Before(*f) {
			d = d.Add(24 * time.Hour)
			lower.from = f // rows from f to midnight
		}
		first = &d
	}
	if t := q.dates.to; t != nil {
		d := dateOf(*t)
		upper.to, upper.from = t, &d // rows from midnight to t
		end = &d
	}
	if first != nil && end != nil && !first.Before(*end) {
		// No whole day inside: the range is at most two partial days.
		q.countRows(b, q.dates)
		return b.sb.String() + "::bigint", b.args
	}
	q.sumCounter(b, first, end)
	if lower.from != nil {
		b.write(" + ")
		q.countRows(b, lower, where(q.alias+"."+lower.column+" < ?", *first))
	}
	if upper.to != nil {
		b.write(" + ")
		q.countRows(b, upper)
	}
	return b.sb.String(), b.args
}

// countRows writes a scalar count of the matching rows within d.
func (q *listQuery) countRows(b *sqlBuilder, d dateRange, extra ...cond) {
	if len(q.anyOf) == 0 {
		b.write("(SELECT count(*) FROM " + q.from)
		q.filters(b, -1, d, extra...)
		b.write(")")
		return
	}
	b.write("(")
	for i := range q.anyOf {
		if i > 0 {
			b.write(" + ")
		}
		b.write("(SELECT count(*) FROM " + q.from)
		q.filters(b, i, d, extra...)
		b.write(")")
	}
	b.write(")")
}

// sumCounter writes the sum of the counter's keys, for the days first <= day < end when
// those are given.
func (q *listQuery) sumCounter(b *sqlBuilder, first, end *time.Time) {
	c := q.count
	b.write("(SELECT coalesce(sum(n), 0) FROM list_counts WHERE ")
	b.cond(where("platform_id = ? AND list = ? AND key = ANY(?)", c.platform, c.list, c.keys))
	if first != nil {
		b.cond(where(" AND day >= ?", dateOf(*first)))
	}
	if end != nil {
		b.cond(where(" AND day < ?", dateOf(*end)))
	}
	b.write(")::bigint")
}

// dateOf is the UTC calendar day of t (its midnight), as list_counts.day holds it.
func dateOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// readList reads one page of q, and its count unless the page carries it over, in one
// snapshot.
func readList[R any](ctx context.Context, conn ListDB, q listQuery, after []any, p pageOpts, scan pgx.RowToFunc[R]) (Result[R], error) {
	pageSQL, pageArgs := q.pageSQL(after, p.asc, p.limit+1)
	res := Result[R]{}
	var err error
	if p.total != nil {
		rows, qerr := conn.Query(ctx, pageSQL, pageArgs...)
		if qerr != nil {
			return res, fmt.Errorf("read page: %w", qerr)
		}
		if res.Rows, err = pgx.CollectRows(rows, scan); err != nil {
			return res, fmt.Errorf("read page: %w", err)
		}
		res.Total = *p.total
	} else {
		// One round trip: the page and its count between BEGIN and COMMIT of a read-only
		// REPEATABLE READ transaction, so both see the same snapshot.
		countSQL, countArgs := q.countSQL()
		batch := &pgx.Batch{}
		batch.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
		batch.Queue(pageSQL, pageArgs...)
		batch.Queue(countSQL, countArgs...)
		batch.Queue("COMMIT")
		if res.Rows, res.Total, err = readBatch(ctx, conn, batch, scan); err != nil {
			return res, err
		}
	}
	if len(res.Rows) > int(p.limit) {
		res.Rows, res.HasMore = res.Rows[:p.limit], true
	}
	return res, nil
}

// readBatch sends a batch of BEGIN, the page, the count and COMMIT, and reads it. After an
// error the connection is left in a failed transaction, which the pool discards.
func readBatch[R any](ctx context.Context, conn ListDB, batch *pgx.Batch, scan pgx.RowToFunc[R]) (rows []R, total int64, err error) {
	br := conn.SendBatch(ctx, batch)
	defer func() {
		if cerr := br.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("read page: %w", cerr)
		}
	}()
	if _, err := br.Exec(); err != nil {
		return nil, 0, fmt.Errorf("begin list snapshot: %w", err)
	}
	r, err := br.Query()
	if err == nil {
		rows, err = pgx.CollectRows(r, scan)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read page: %w", err)
	}
	if err := br.QueryRow().Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count matches: %w", err)
	}
	if _, err := br.Exec(); err != nil {
		return nil, 0, fmt.Errorf("end list snapshot: %w", err)
	}
	return rows, total, nil
}

// pageOpts is Page without its position type.
type pageOpts struct {
	asc   bool
	limit int32
	total *int64
}

func optsOf[P any](p Page[P]) pageOpts {
	if p.Limit < 1 {
		p.Limit = 1
	}
	return pageOpts{asc: p.Asc, limit: p.Limit, total: p.Total}
}

// listByID reads a list ordered by id: the position is the previous page's last id.
func listByID[R any](ctx context.Context, conn ListDB, q listQuery, p Page[IDPos], scan pgx.RowToFunc[R]) (Result[R], error) {
	q.order = []string{"id"}
	var after []any
	if p.After != nil {
		after = []any{p.After.ID}
	}
	return readList(ctx, conn, q, after, optsOf(p), scan)
}

// countKeys gathers the list_counts keys of the filters a list applies. The matches are
// read from list_counts only when at most one keyed filter applies and no filter without a
// key does (a filter whose matches are few, such as one customer, is counted row by row).
type countKeys struct {
	keys      []string
	untracked bool
}

// add records a filter counted under key.
func (k *countKeys) add(key string) { k.keys = append(k.keys, key) }

// byRows records a filter whose matches are counted row by row.
func (k *countKeys) byRows() { k.untracked = true }

// none reports whether no filter was recorded.
func (k *countKeys) none() bool { return len(k.keys) == 0 && !k.untracked }

// counter counts a list's matches from list_counts under the one key recorded, prefixed by
// each scope ("" when none is given), per day when dated; nil when the matching rows must
// be counted.
func (k *countKeys) counter(platform uuid.UUID, list string, dated bool, scopes ...string) *counter {
	key, ok := k.key()
	if !ok {
		return nil
	}
	if len(scopes) == 0 {
		scopes = []string{""}
	}
	c := &counter{platform: platform, list: list, dated: dated}
	for _, s := range scopes {
		c.keys = append(c.keys, s+key)
	}
	return c
}

// key is the one key to count by ("" when no filter applies); ok is false when the
// matching rows must be counted.
func (k *countKeys) key() (key string, ok bool) {
	switch {
	case k.untracked || len(k.keys) > 1:
		return "", false
	case len(k.keys) == 0:
		return "", true
	}
	return k.keys[0], true
}
