package db_test

import (
	"context"
	"testing"

	pgxdecimal "github.com/jackc/pgx-shopspring-decimal"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"paycore/db/dbtest"
)

// Rates are numeric in SQL and decimal.Decimal in Go: every digit survives the trip through
// the pool in both directions, and Postgres arithmetic comes back exact.
func TestNumericRoundTripsExactly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := dbtest.NewPool(t)

	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	typ, ok := conn.Conn().TypeMap().TypeForOID(pgtype.NumericOID)
	conn.Release()
	if !ok {
		t.Fatal("numeric is not registered")
	}
	if _, ok := typ.Codec.(pgxdecimal.NumericCodec); !ok {
		t.Fatalf("numeric codec of a pool connection is %T, want the decimal codec", typ.Codec)
	}

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "CREATE TEMP TABLE rates (id int PRIMARY KEY, rate numeric, fixed numeric(60, 30))"); err != nil {
		t.Fatal(err)
	}
	for i, s := range []string{
		"0.000000123456789012345678",
		"123456789012345678901234567890.123456789012345678901234567891",
		"-98765432109876543210.000000000000000000000000000001",
		"1",
		"0",
	} {
		want := decimal.RequireFromString(s)
		if _, err := tx.Exec(ctx, "INSERT INTO rates (id, rate) VALUES ($1, $2)", i, want); err != nil {
			t.Fatalf("insert %s: %v", s, err)
		}
		var got decimal.Decimal
		var text string
		if err := tx.QueryRow(ctx, "SELECT rate, rate::text FROM rates WHERE id = $1", i).Scan(&got, &text); err != nil {
			t.Fatalf("read %s: %v", s, err)
		}
		if text != s {
			t.Errorf("stored %s as %s", s, text)
		}
		if !got.Equal(want) || got.String() != s {
			t.Errorf("read back %s as %s", s, got)
		}

		// Generic decoding (rows.Values, scanning into any) yields decimals too.
		var v any
		if err := tx.QueryRow(ctx, "SELECT rate FROM rates WHERE id = $1", i).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if d, ok := v.(decimal.Decimal); !ok || !d.Equal(want) {
			t.Errorf("decoded %s as %T %v", s, v, v)
		}
	}

	// A scale fixed by the column pads with zeros and keeps the value.
	small := decimal.RequireFromString("0.000000123456789012345678")
	if _, err := tx.Exec(ctx, "INSERT INTO rates (id, fixed) VALUES (100, $1)", small); err != nil {
		t.Fatal(err)
	}
	var fixed decimal.Decimal
	if err := tx.QueryRow(ctx, "SELECT fixed FROM rates WHERE id = 100").Scan(&fixed); err != nil {
		t.Fatal(err)
	}
	if !fixed.Equal(small) || fixed.String() != small.String() {
		t.Errorf("numeric(60, 30) read back %s, want %s", fixed, small)
	}

	// Arithmetic done by Postgres is exact where binary floating point is not.
	var sum decimal.Decimal
	if err := tx.QueryRow(ctx, "SELECT $1::numeric + $2::numeric", decimal.RequireFromString("0.1"), decimal.RequireFromString("0.2")).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if sum.String() != "0.3" {
		t.Errorf("0.1 + 0.2 = %s, want 0.3", sum)
	}

	// Nullable columns map to decimal.NullDecimal.
	for _, in := range []decimal.NullDecimal{{}, {Decimal: small, Valid: true}} {
		var out decimal.NullDecimal
		if err := tx.QueryRow(ctx, "SELECT $1::numeric", in).Scan(&out); err != nil {
			t.Fatal(err)
		}
		if out.Valid != in.Valid || !out.Decimal.Equal(in.Decimal) {
			t.Errorf("NullDecimal %v read back as %v", in, out)
		}
	}
}
