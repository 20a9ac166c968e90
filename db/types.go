package db

import (
	"context"

	"github.com/google/uuid"
	pgxdecimal "github.com/jackc/pgx-shopspring-decimal"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// RegisterTypes adds the codecs the service relies on beyond pgx's defaults to conn's type
// map: Postgres numeric reads and writes github.com/shopspring/decimal values
// (decimal.Decimal, decimal.NullDecimal) exactly, digit for digit, never through a float;
// a uuid.UUID parameter is sent as its 16 bytes (wrapUUID). Every pool and connection the
// service opens registers them (Connect, Migrate, EnsureDatabase); its signature fits
// pgxpool.Config.AfterConnect.
func RegisterTypes(_ context.Context, conn *pgx.Conn) error {
	m := conn.TypeMap()
	pgxdecimal.Register(m)
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{wrapUUID}, m.TryWrapEncodePlanFuncs...)
	return nil
}

// wrapUUID encodes a uuid.UUID as the [16]byte it is. Without it pgx takes uuid.UUID for
// the driver.Valuer it also is: each value is formatted as text and parsed back, which
// made the arrays of ids of a batch of customers cost more than the rest of its statement.
func wrapUUID(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	u, ok := value.(uuid.UUID)
	if !ok {
		return nil, nil, false
	}
	return &uuidEncodePlan{}, [16]byte(u), true
}

// uuidEncodePlan hands a uuid.UUID's bytes to the plan for [16]byte.
type uuidEncodePlan struct{ next pgtype.EncodePlan }

func (p *uuidEncodePlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *uuidEncodePlan) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode([16]byte(value.(uuid.UUID)), buf)
}
