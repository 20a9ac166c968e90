package db

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pressly/goose/v3/lock"
)

// ErrNotFound is returned by the helpers of this package when a row does not exist.
var ErrNotFound = errors.New("not found")

// withTx runs fn in a transaction on pool and commits when fn returns nil.
func withTx(ctx context.Context, pool *pgxpool.Pool, fn func(q *queries, tx pgx.Tx) error) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := fn(newQueries(tx), tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	return nil
}

// IsNotFound reports whether err means "no such row".
func IsNotFound(err error) bool {
	return errors.Is(err, pgx.ErrNoRows) || errors.Is(err, ErrNotFound)
}

// IsUniqueViolation reports whether err is a Postgres unique-constraint violation.
func IsUniqueViolation(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505"
}

func migrationsFS() fs.FS {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	return sub
}

func mustLocker() lock.SessionLocker {
	l, err := lock.NewPostgresSessionLocker()
	if err != nil {
		panic(err) // only fails on invalid options, and none are passed
	}
	return l
}

// Migrations is the embedded migration directory.
func Migrations() fs.FS { return migrationsFS() }
