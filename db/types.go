package db

import (
	"context"

	pgxdecimal "github.com/jackc/pgx-shopspring-decimal"
	"github.com/jackc/pgx/v5"
)

// RegisterTypes adds the codecs the service relies on beyond pgx's defaults to conn's type
// map: Postgres numeric reads and writes github.com/shopspring/decimal values
// (decimal.Decimal, decimal.NullDecimal) exactly, digit for digit, never through a float.
// Every pool and connection the service opens registers them (Connect, Migrate,
// EnsureDatabase); its signature fits pgxpool.Config.AfterConnect.
func RegisterTypes(_ context.Context, conn *pgx.Conn) error {
	pgxdecimal.Register(conn.TypeMap())
	return nil
}
