package api_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/ids"
)

// benchTransactions is how many transactions BenchmarkListTransactions seeds on one platform.
const benchTransactions = 1_000_000

// seedTransactions writes n transactions of platform over the last year in one statement:
// 5,000 customers with a skewed share each (the busiest has about 3% of the rows), 5% of
// the platform's own, half transfers out and half in (a tenth of those sandbox funding),
// statuses mostly COMPLETED with the usual tail of failures and pending ones. Account ids
// are derived from the customer number, so each customer has one internal and one
// external account. Rows are inserted in time order, as they would have been written.
func seedTransactions(tb testing.TB, pool *pgxpool.Pool, platform uuid.UUID, n int) {
	tb.Helper()
	ctx := context.Background()
	start := time.Now()
	stmts := []string{
		`INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, region, currencies, uma_address, created_at, updated_at)
		 SELECT md5('customer-' || g)::uuid, $1, 'bench-' || g, CASE WHEN g % 10 = 0 THEN 'BUSINESS' ELSE 'INDIVIDUAL' END,
		        'US', '{USD}', '$bench' || g || '@bench.example', now() - interval '400 days', now() - interval '400 days'
		 FROM generate_series(1, 5000) g`,
		`WITH r AS (
		   SELECT now() - random() * interval '365 days' AS at,
		          CASE WHEN random() < 0.05 THEN NULL ELSE 1 + floor(5000 * power(random(), 2.5))::int END AS c,
		          random() AS rt, random() AS rs, 1 + floor(random() * 100000)::bigint AS amount
		   FROM generate_series(1, $2::int)
		 ), s AS (
		   SELECT row_number() OVER (ORDER BY at) AS g, * FROM r -- in time order: index inserts append
		 ), x AS (
		   SELECT s.*, md5('internal-' || coalesce(c::text, 'platform'))::uuid AS internal, md5('external-' || coalesce(c::text, 'platform'))::uuid AS external,
		          CASE WHEN rt < 0.5 THEN 'OUTGOING' ELSE 'INCOMING' END AS type,
		          CASE WHEN rt < 0.5 THEN 'TRANSFER_OUT' WHEN rt < 0.95 THEN 'TRANSFER_IN' ELSE 'SANDBOX_FUNDING' END AS kind,
		          CASE WHEN rt < 0.5 THEN
		                 CASE WHEN rs < 0.85 THEN 'COMPLETED' WHEN rs < 0.93 THEN 'FAILED' WHEN rs < 0.96 THEN 'PROCESSING' WHEN rs < 0.98 THEN 'PENDING' ELSE 'EXPIRED' END
		               ELSE
		                 CASE WHEN rs < 0.85 THEN 'COMPLETED' WHEN rs < 0.90 THEN 'FAILED' WHEN rs < 0.93 THEN 'REJECTED' WHEN rs < 0.96 THEN 'PENDING'
		                      WHEN rs < 0.98 THEN 'PROCESSING' WHEN rs < 0.99 THEN 'REFUNDED' ELSE 'CREATED' END
		          END AS status
		   FROM s
		 )
		 INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, kind, type, status, source_kind, source_account_id,
		                           destination_kind, destination_account_id, currency, amount, reference, settled_at, created_at, updated_at)
		 SELECT (lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') || '7' || substr(md5(g::text), 1, 3) || '8' || substr(md5(g::text), 4, 15))::uuid,
		        $1, md5('customer-' || c)::uuid, coalesce('bench-' || c, ''), kind, type, status,
		        CASE kind WHEN 'TRANSFER_OUT' THEN 'INTERNAL' WHEN 'TRANSFER_IN' THEN 'EXTERNAL' ELSE 'REALTIME_FUNDING' END,
		        CASE kind WHEN 'TRANSFER_OUT' THEN internal WHEN 'TRANSFER_IN' THEN external END,
		        CASE kind WHEN 'TRANSFER_OUT' THEN 'EXTERNAL' ELSE 'INTERNAL' END,
		        CASE kind WHEN 'TRANSFER_OUT' THEN external ELSE internal END,
		        'USD', amount, 'BENCH-' || lpad(g::text, 8, '0'), CASE WHEN status = 'COMPLETED' THEN at + interval '5 minutes' END, at, at
		 FROM x ORDER BY g`,
	}
	if _, err := pool.Exec(ctx, stmts[0], platform); err != nil {
		tb.Fatalf("seed customers: %v", err)
	}
	if _, err := pool.Exec(ctx, stmts[1], platform, n); err != nil {
		tb.Fatalf("seed transactions: %v", err)
	}
	// Set the visibility map and statistics as autovacuum would, and write the seed's dirty
	// pages out now rather than during the measurement.
	for _, sql := range []string{"VACUUM ANALYZE", "CHECKPOINT"} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			tb.Fatalf("%s: %v", sql, err)
		}
	}
	tb.Logf("seeded %d transactions in %s", n, time.Since(start).Round(time.Second))
}

// benchValues are filter values drawn from the seeded rows, busy customers and accounts as
// often as their share of the rows.
type benchValues struct {
	customers, platformCustomerIDs, accounts, senders, receivers, references []string
}

func sampleValues(tb testing.TB, pool *pgxpool.Pool) benchValues {
	tb.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT customer_id, platform_customer_id, source_kind, source_account_id, destination_kind, destination_account_id, reference
		FROM transactions TABLESAMPLE BERNOULLI (0.1) REPEATABLE (7) LIMIT 500`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var v benchValues
	prefix := map[string]string{"INTERNAL": ids.InternalAccount, "EXTERNAL": ids.ExternalAccount}
	for rows.Next() {
		var cust, src uuid.NullUUID
		var dst uuid.UUID
		var pcid, srcKind, dstKind, ref string
		if err := rows.Scan(&cust, &pcid, &srcKind, &src, &dstKind, &dst, &ref); err != nil {
			tb.Fatal(err)
		}
		if cust.Valid {
			v.customers = append(v.customers, ids.Format(ids.Customer, cust.UUID))
			v.platformCustomerIDs = append(v.platformCustomerIDs, pcid)
		}
		if src.Valid {
			v.senders = append(v.senders, ids.Format(prefix[srcKind], src.UUID))
		}
		v.receivers = append(v.receivers, ids.Format(prefix[dstKind], dst))
		v.accounts = append(v.accounts, ids.Format(ids.InternalAccount, dst))
		v.references = append(v.references, ref)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(v.customers) == 0 || len(v.senders) == 0 {
		tb.Fatal("sample found no rows")
	}
	return v
}

// benchFilter is one query shape of the benchmark; query(i) gives the i-th request's query
// string, so successive requests ask for different customers, accounts, statuses and dates.
type benchFilter struct {
	name  string
	query func(i int) string
}

func transactionFilters(v benchValues, platform uuid.UUID) []benchFilter {
	pick := func(s []string, i int) string { return url.QueryEscape(s[i%len(s)]) }
	statuses := []string{"COMPLETED", "FAILED", "PENDING", "PROCESSING", "REJECTED", "REFUNDED", "EXPIRED", "CREATED"}
	yearAgo := time.Now().AddDate(-1, 0, 0)
	day := func(i int) time.Time {
		// A pseudo-random instant within the seeded year, not on a day boundary.
		r := rand.New(rand.NewPCG(uint64(i), 42))
		return yearAgo.Add(time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
	}
	stamp := func(t time.Time) string { return url.QueryEscape(t.UTC().Format(time.RFC3339Nano)) }
	return []benchFilter{
		{"unfiltered", func(int) string { return "" }},
		{"sortOrder=asc", func(int) string { return "sortOrder=asc" }},
		{"customerId", func(i int) string { return "customerId=" + pick(v.customers, i) }},
		{"customerId=platform", func(int) string { return "customerId=" + ids.Format(ids.Platform, platform) }},
		{"platformCustomerId", func(i int) string { return "platformCustomerId=" + pick(v.platformCustomerIDs, i) }},
		{"accountIdentifier", func(i int) string { return "accountIdentifier=" + pick(v.accounts, i) }},
		{"senderAccountIdentifier", func(i int) string { return "senderAccountIdentifier=" + pick(v.senders, i) }},
		{"receiverAccountIdentifier", func(i int) string { return "receiverAccountIdentifier=" + pick(v.receivers, i) }},
		{"status", func(i int) string { return "status=" + statuses[i%len(statuses)] }},
		{"type", func(i int) string { return "type=" + []string{"INCOMING", "OUTGOING"}[i%2] }},
		{"reference", func(i int) string { return "reference=" + pick(v.references, i) }},
		{"startDate", func(i int) string { return "startDate=" + stamp(day(i)) }},
		{"endDate", func(i int) string { return "endDate=" + stamp(day(i)) }},
		{"startDate+endDate", func(i int) string {
			return "startDate=" + stamp(day(i)) + "&endDate=" + stamp(day(i).Add(30*24*time.Hour))
		}},
	}
}

// BenchmarkListTransactions measures GET /transactions (first pages, default limit 20, with
// the exact totalCount) through the real router on 1,000,000 transactions of one platform:
// for each filter the latency of requests one after another ("single") and at a fixed
// arrival rate of 20 requests/s ("rate20", open loop: a slow answer does not delay the next
// request), and a mix of three common filters at 20/s. Each reports p50-ms and p99-ms, and
// the same of a one-row read made alongside (config-*); run it with a fixed count, e.g.
// -benchtime 200x (make bench-lists).
func BenchmarkListTransactions(b *testing.B) {
	e := newEnv(b)
	c, p := e.platform(true)
	seedTransactions(b, e.pool, p.ID, benchTransactions)
	filters := transactionFilters(sampleValues(b, e.pool), p.ID)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	get := func(path string) (time.Duration, error) {
		req, _ := http.NewRequest("GET", c.BaseURL+path, nil)
		req.SetBasicAuth(c.User, c.Password)
		start := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		elapsed := time.Since(start)
		if resp.StatusCode != 200 {
			return 0, fmt.Errorf("GET %s: status %d", path, resp.StatusCode)
		}
		return elapsed, nil
	}
	list := func(query string) (time.Duration, error) { return get("/transactions?" + query) }
	// Warm up as a running service would be: every connection of the pool opened, with each
	// query shape prepared on it, and the pages in the buffer cache.
	var warm sync.WaitGroup
	for w := range 16 {
		warm.Go(func() {
			for i := range 5 {
				for _, f := range filters {
					if _, err := list(f.query(1000 + 16*i + w)); err != nil {
						b.Error(err)
						return
					}
				}
			}
		})
	}
	warm.Wait()
	if b.Failed() {
		b.FailNow()
	}
	// Every measured request is paired with an authenticated read of one row (GET /config)
	// made at the same time, whose latency (config-p50-ms, config-p99-ms) is the floor the
	// host sets: on a busy machine it tells the lists' own latency from scheduling noise.
	config := func(int) (time.Duration, error) { return get("/config") }
	for _, f := range filters {
		b.Run(f.name+"/single", func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			base := make([]time.Duration, 0, b.N)
			for i := range b.N {
				d, err := list(f.query(i))
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, d)
				if d, err = config(i); err != nil {
					b.Fatal(err)
				}
				base = append(base, d)
			}
			reportPercentiles(b, lat, base)
		})
	}
	for _, f := range filters {
		b.Run(f.name+"/rate20", func(b *testing.B) {
			lat, base := atRate(b, 20, b.N, func(i int) (time.Duration, error) { return list(f.query(i)) }, config)
			reportPercentiles(b, lat, base)
		})
	}
	mix := []benchFilter{filters[2], filters[8], filters[9]} // customerId, status, type
	b.Run("mix(customerId,status,type)/rate20", func(b *testing.B) {
		lat, base := atRate(b, 20, b.N, func(i int) (time.Duration, error) { return list(mix[i%3].query(i / 3)) }, config)
		reportPercentiles(b, lat, base)
	})
}

// atRate starts n requests of do at perSecond, each on time whatever the earlier ones are
// doing, and n requests of base halfway between them; it returns both latencies.
func atRate(b *testing.B, perSecond, n int, do, base func(i int) (time.Duration, error)) (lat, baseLat []time.Duration) {
	b.Helper()
	lat, baseLat = make([]time.Duration, n), make([]time.Duration, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	run := func(f func(int) (time.Duration, error), i int, into []time.Duration) {
		wg.Go(func() {
			d, err := f(i)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			into[i] = d
		})
	}
	tick := time.NewTicker(time.Second / time.Duration(2*perSecond))
	defer tick.Stop()
	for i := range n {
		if i > 0 {
			<-tick.C
		}
		run(do, i, lat)
		<-tick.C
		run(base, i, baseLat)
	}
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	return lat, baseLat
}

// reportPercentiles reports p50 and p99 of lat and of the baseline requests, in milliseconds.
func reportPercentiles(b *testing.B, lat, base []time.Duration) {
	pct := func(lat []time.Duration, p float64) float64 {
		return float64(lat[int(float64(len(lat)-1)*p)].Microseconds()) / 1000
	}
	for _, m := range []struct {
		lat    []time.Duration
		prefix string
	}{{lat, ""}, {base, "config-"}} {
		if len(m.lat) == 0 {
			continue
		}
		slices.Sort(m.lat)
		b.ReportMetric(pct(m.lat, 0.50), m.prefix+"p50-ms")
		b.ReportMetric(pct(m.lat, 0.99), m.prefix+"p99-ms")
	}
}
