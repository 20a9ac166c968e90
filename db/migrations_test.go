package db_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/internal/ids"
)

// Migration 0005 brings transfers out written before it (REJECTED, OFFRAMP_FAILED) and
// their stored webhook payloads within the outgoing enums, and the database refuses them
// from then on.
func TestMigrationOutgoingTransactionEnums(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, cfg, provider := migratedDownTo(t, 3)
	p, rejected, offramp, incoming := ids.New(), ids.New(), ids.New(), ids.New()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO platforms (id, name, environment, config_id, uma_domain, supported_currencies) VALUES ($1, 'p', 'SANDBOX', $2, 'p.example.com', '[]')", []any{p, ids.New()}},
		{`INSERT INTO transactions (id, platform_id, kind, type, status, source_kind, destination_kind, destination_account_id, currency, amount, reference,
		  failure_reason, failure_detail) VALUES
		  ($2, $1, 'TRANSFER_OUT', 'OUTGOING', 'REJECTED', 'INTERNAL', 'EXTERNAL', $1, 'USD', 5, 'r1', 'OFFRAMP_FAILED', 'REJECTED_BY_BANK: rejected'),
		  ($3, $1, 'TRANSFER_OUT', 'OUTGOING', 'FAILED', 'INTERNAL', 'EXTERNAL', $1, 'USD', 5, 'r2', 'OFFRAMP_FAILED', 'TIMED_OUT: late'),
		  ($4, $1, 'TRANSFER_IN', 'INCOMING', 'REJECTED', 'EXTERNAL', 'INTERNAL', $1, 'USD', 5, 'r3', 'OFFRAMP_FAILED', 'X: y')`, []any{p, rejected, offramp, incoming}},
		{`INSERT INTO webhook_events (id, platform_id, type, data) VALUES
		  ($2, $1, 'OUTGOING_PAYMENT_FAILED', '{"status": "REJECTED", "failureReason": "OFFRAMP_FAILED", "failureDetails": {"code": "REJECTED_BY_BANK", "message": "m"}}'),
		  ($3, $1, 'INCOMING_PAYMENT_FAILED', '{"status": "REJECTED", "failureReason": "OFFRAMP_FAILED"}')`, []any{p, ids.New(), ids.New()}},
	} {
		if _, err := conn.Exec(ctx, stmt.sql, stmt.args...); err != nil {
			t.Fatalf("legacy rows: %v", err)
		}
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, "SELECT id, status, coalesce(failure_reason, ''), failure_detail FROM transactions ORDER BY reference")
	if err != nil {
		t.Fatal(err)
	}
	want := map[uuid.UUID][3]string{
		rejected: {"FAILED", "", "REJECTED_BY_BANK: rejected"},
		offramp:  {"FAILED", "", "TIMED_OUT: late"},
		incoming: {"REJECTED", "OFFRAMP_FAILED", "X: y"}, // incoming keeps the incoming enums
	}
	n := 0
	for rows.Next() {
		var id uuid.UUID
		var status, reason, detail string
		if err := rows.Scan(&id, &status, &reason, &detail); err != nil {
			t.Fatal(err)
		}
		n++
		if w := want[id]; status != w[0] || reason != w[1] || detail != w[2] {
			t.Errorf("transaction %s: %s %q %q, want %v", id, status, reason, detail, w)
		}
	}
	if n != 3 {
		t.Fatalf("%d transactions", n)
	}
	var outgoingData, incomingData string
	_ = conn.QueryRow(ctx, "SELECT data::text FROM webhook_events WHERE type = 'OUTGOING_PAYMENT_FAILED'").Scan(&outgoingData)
	_ = conn.QueryRow(ctx, "SELECT data::text FROM webhook_events WHERE type = 'INCOMING_PAYMENT_FAILED'").Scan(&incomingData)
	if outgoingData != `{"status": "FAILED", "failureDetails": {"code": "REJECTED_BY_BANK", "message": "m"}}` ||
		incomingData != `{"status": "REJECTED", "failureReason": "OFFRAMP_FAILED"}` {
		t.Fatalf("stored payloads: %s / %s", outgoingData, incomingData)
	}
	// From now on the database refuses them.
	for name, sql := range map[string]string{
		"outgoing REJECTED":       "UPDATE transactions SET status = 'REJECTED' WHERE id = $1",
		"outgoing OFFRAMP_FAILED": "UPDATE transactions SET failure_reason = 'OFFRAMP_FAILED' WHERE id = $1",
	} {
		if _, err := conn.Exec(ctx, sql, rejected); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// migratedDownTo is a fresh test database migrated back down to version, with the
// migration provider to bring it up again and its connection settings.
func migratedDownTo(t *testing.T, version int64) (string, *pgx.ConnConfig, *goose.Provider) {
	t.Helper()
	url := dbtest.New(t)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { _ = sqlDB.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, db.Migrations())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.DownTo(context.Background(), version); err != nil {
		t.Fatal(err)
	}
	return url, cfg, provider
}
