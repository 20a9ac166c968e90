package db_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/walletauth"
)

// databaseClockQueries are the only queries that may read the database's clock beyond the
// updated_at bookkeeping: each keeps a lease, a window or a marker wholly on the database's
// clock, written and judged there alone, so that every API instance and worker agrees
// whatever its own clock says. Everything else that decides on time, or stamps a time the
// API shows or a later decision reads, takes the injected clock's now as a parameter.
var databaseClockQueries = map[string]string{
	// Idempotency keys: the claim's lease (locked_at) and retention (expires_at) are
	// written by these queries and judged by them, all on the database's clock.
	"idempotency_keys.sql:IdempotencyClaim":         "idempotency lease and TTL",
	"idempotency_keys.sql:IdempotencyDeleteExpired": "idempotency TTL",
	"idempotency_keys.sql:IdempotencyRenew":         "idempotency lease",
	// Rate limits: the windows of rate_limits are opened and judged on the database's
	// clock, the same for every API instance.
	"agents.sql:RateLimitHit":          "rate-limit window",
	"agents.sql:RateLimitsDeleteEnded": "rate-limit window",
	// The per-account issuance window of signed requests counts rows by created_at, which
	// the database stamps (the column's default): both sides are the database's clock.
	"auth.sql:SignedRequestCountRecent": "signed-request issuance window",
	// Webhook dispatch bookkeeping: dispatched_at only marks an event handed to a delivery
	// workflow (read as NULL or not), and the backlog's age is a metric.
	"webhook_events.sql:WebhookEventMarkUndeliverable": "dispatch marker",
	"webhook_events.sql:WebhookEventMarkDispatched":    "dispatch marker",
	"webhook_events.sql:WebhookEventReopen":            "dispatch marker",
	"webhook_events.sql:WebhookEventBacklog":           "backlog metric",
}

var (
	// databaseClock matches a read of the database's clock in SQL.
	databaseClock = regexp.MustCompile(`(?i)\b(now|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday)\s*\(\s*\)|\bcurrent_(timestamp|date|time)\b|\blocaltime(stamp)?\b|'now'`)
	// bookkeeping is the one use of it every query may make: stamping updated_at.
	bookkeeping = regexp.MustCompile(`(?i)\bupdated_at\s*=\s*now\(\)`)
)

// TestQueriesUseTheInjectedClock holds the queries to one clock: a query of queries/*.sql
// reads the database's clock (now() and its kin) only to stamp updated_at, or when it is
// one of databaseClockQueries. A decision on time (expires_at > now()) or a time the API
// renders (revoked_at = now()) takes the caller's now instead, so a skewed database clock
// or a test's fake clock cannot split one decision between two clocks.
func TestQueriesUseTheInjectedClock(t *testing.T) {
	queries := sqlQueries(t, filepath.Join("..", "queries"))
	if len(queries) < 100 || queries["auth.sql:AuthSessionListActive"] == "" {
		t.Fatalf("read %d queries (AuthSessionListActive among them: %t); the scan is broken",
			len(queries), queries["auth.sql:AuthSessionListActive"] != "")
	}
	var names []string
	for name := range queries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		uses := readsDatabaseClock(queries[name])
		_, allowed := databaseClockQueries[name]
		switch {
		case uses && !allowed:
			t.Errorf("%s reads the database's clock: take the caller's now as a parameter (sqlc.arg(now)) instead; only updated_at = now() is bookkeeping", name)
		case !uses && allowed:
			t.Errorf("%s is allowed the database's clock but no longer reads it: drop it from databaseClockQueries", name)
		}
	}
	for name := range databaseClockQueries {
		if _, ok := queries[name]; !ok {
			t.Errorf("databaseClockQueries names %s, which queries/ no longer has", name)
		}
	}
}

// The detector itself: a decision on the database's clock is caught, the bookkeeping and
// a now parameter are not.
func TestReadsDatabaseClock(t *testing.T) {
	for sql, want := range map[string]bool{
		"UPDATE s SET used_at = now() WHERE id = $1":                                          true,
		"SELECT * FROM s WHERE expires_at > now()":                                            true,
		"SELECT * FROM s WHERE expires_at > NOW ( )":                                          true,
		"SELECT * FROM s WHERE expires_at > current_timestamp":                                true,
		"SELECT * FROM s WHERE created_at > clock_timestamp() - interval '1 minute'":          true,
		"UPDATE s SET x = 1, updated_at = now() WHERE id = $1":                                false,
		"UPDATE s SET used_at = sqlc.arg(now)::timestamptz, updated_at = now() WHERE id = $1": false,
		"SELECT * FROM s WHERE expires_at > @now::timestamptz":                                false,
		"SELECT * FROM s WHERE expires_at > $2 -- not now()":                                  false,
	} {
		if got := readsDatabaseClock(stripComments(sql)); got != want {
			t.Errorf("readsDatabaseClock(%q) = %t, want %t", sql, got, want)
		}
	}
}

// readsDatabaseClock reports whether the query text (comments stripped) reads the
// database's clock other than to stamp updated_at.
func readsDatabaseClock(sql string) bool {
	return databaseClock.MatchString(bookkeeping.ReplaceAllString(sql, ""))
}

// sqlQueries reads the sqlc queries of the .sql files in dir, by "file:Name", each with its
// comments stripped.
func sqlQueries(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var name string
		var body strings.Builder
		flush := func() {
			if name != "" {
				out[filepath.Base(path)+":"+name] = body.String()
			}
			body.Reset()
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "-- name:"); ok {
				flush()
				fields := strings.Fields(rest)
				if len(fields) == 0 {
					t.Fatalf("%s: a query without a name: %q", path, line)
				}
				name = fields[0]
				continue
			}
			body.WriteString(stripComments(line))
			body.WriteByte('\n')
		}
		flush()
		err = sc.Err()
		f.Close()
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		if name == "" {
			t.Fatalf("%s holds no named query", path)
		}
	}
	return out
}

// stripComments drops the SQL line comment (from "--" outside a string literal) of each
// line of sql.
func stripComments(sql string) string {
	lines := strings.Split(sql, "\n")
	for i, line := range lines {
		quoted := false
		for j := 0; j < len(line); j++ {
			switch {
			case line[j] == '\'':
				quoted = !quoted
			case !quoted && strings.HasPrefix(line[j:], "--"):
				line = line[:j]
			}
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

// The decisions on time follow the caller's clock, not the database's: a session or a
// signed request live by the database's clock is over at a later now, one over by the
// database's clock is live at an earlier now, and what is stamped (a code's sending, a
// revocation, a use) is the now given, which later decisions read.
func TestDecisionsFollowTheCallersClock(t *testing.T) {
	t.Parallel()
	pool, p, _, _ := setup(t)
	ctx := context.Background()
	acct := internalAccount(t, pool, p)
	key := []byte("session key")
	id := signedRequest(t, pool, p, acct, key)          // expires in a minute; its session in an hour
	base := time.Now().UTC().Truncate(time.Microsecond) // as Postgres stores it

	active := func(now time.Time) int {
		t.Helper()
		rows, err := db.AuthSessionListActive(ctx, pool, acct, now)
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	if n := active(base); n != 1 {
		t.Fatalf("%d sessions active now, want 1", n)
	}
	if n := active(base.Add(2 * time.Hour)); n != 0 {
		t.Fatalf("%d sessions active two hours on, want 0 (expired at the caller's clock)", n)
	}

	// Past its expiry at the caller's clock, the challenge cannot be used, and stays unused.
	accept := func(db.SignedRetry) error { return nil }
	if err := db.SignedRetryUse(ctx, pool, p, id, base.Add(2*time.Minute), accept); !errors.Is(err, db.ErrSignedRequestUsed) {
		t.Fatalf("use after expiry at the caller's clock: %v, want ErrSignedRequestUsed", err)
	}
	// The stamp is checked against the sessions active at the caller's clock too.
	if err := db.SignedRetryUse(ctx, pool, p, id, base.Add(2*time.Hour), stampBy(key)); !errors.Is(err, errWrongStamp) {
		t.Fatalf("stamp by a session expired at the caller's clock: %v, want the verify's refusal", err)
	}
	used := base.Add(30 * time.Second)
	if err := db.SignedRetryUse(ctx, pool, p, id, used, stampBy(key)); err != nil {
		t.Fatalf("use before expiry: %v", err)
	}
	if sr, err := db.SignedRequestFind(ctx, pool, p, id); err != nil || sr.UsedAt == nil || !sr.UsedAt.Equal(used) {
		t.Fatalf("used at %v (%v), want %v", sr.UsedAt, err, used)
	}

	// A session expired by the database's clock is active at an earlier now.
	cred, err := credential(t, pool, p, acct, catalog.CredentialOAuth, "")
	if err != nil {
		t.Fatal(err)
	}
	old := sessionFor(cred)
	old.ExpiresAt = base.Add(-time.Hour)
	if _, err := db.AuthSessionCreate(ctx, pool, old); err != nil {
		t.Fatal(err)
	}
	if n := active(base.Add(-2 * time.Hour)); n != 2 {
		t.Fatalf("%d sessions active two hours ago, want 2", n)
	}
	revoked := base.Add(-90 * time.Minute)
	if n, err := db.AuthSessionRevoke(ctx, pool, old.ID, revoked); err != nil || n != 1 {
		t.Fatalf("revoke: %d, %v", n, err)
	}
	if s, err := db.AuthSessionGet(ctx, pool, db.AuthSessionGetParams{PlatformID: p, ID: old.ID}); err != nil || s.RevokedAt == nil || !s.RevokedAt.Equal(revoked) {
		t.Fatalf("revoked at %v (%v), want %v", s.RevokedAt, err, revoked)
	}
}

// A code's sending is stamped with the caller's now, and the reissue interval is judged
// from it: a code sent (by a clock a day ahead of the database's) is not replaced moments
// later by that clock, and is once the interval has passed.
func TestOTPSentAtTheCallersClock(t *testing.T) {
	t.Parallel()
	pool, p, _, _ := setup(t)
	ctx := context.Background()
	sent := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Microsecond)
	in := db.AuthCredentialCreateParams{ID: ids.New(), PlatformID: p, AccountID: internalAccount(t, pool, p),
		Type: catalog.CredentialEmailOTP, Nickname: "n", Details: []byte(`{}`)}
	code := func(c string) db.OTPCode {
		return db.OTPCode{Hash: walletauth.OTPHash(in.ID, c), ExpiresAt: sent.Add(time.Hour)}
	}
	first := code("123456")
	if _, err := db.CredentialCreate(ctx, pool, in, &first, sent); err != nil {
		t.Fatal(err)
	}
	var stamped time.Time
	if err := pool.QueryRow(ctx, "SELECT sent_at FROM auth_otps WHERE credential_id = $1", in.ID).Scan(&stamped); err != nil || !stamped.Equal(sent) {
		t.Fatalf("sent at %v (%v), want %v", stamped, err, sent)
	}
	if err := db.OTPReissue(ctx, pool, in.ID, code("222222"), sent.Add(10*time.Second)); refusalCode(err) != catalog.RateLimited {
		t.Fatalf("reissue 10s after sending by the caller's clock: %v, want RATE_LIMITED", err)
	}
	if err := db.OTPReissue(ctx, pool, in.ID, code("333333"), sent.Add(walletauth.ReissueInterval)); err != nil {
		t.Fatalf("reissue after the interval: %v", err)
	}
}
