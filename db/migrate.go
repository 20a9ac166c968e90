package db

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate applies every pending migration to the database at dsn. It is safe to run from
// several processes at once: goose takes a Postgres advisory lock.
func Migrate(ctx context.Context, dsn string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	sqlDB := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(RegisterTypes))
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrationsFS(),
		goose.WithSessionLocker(mustLocker()))
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	if _, err := provider.Up(ctx); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}

// EnsureDatabase creates the database named in dsn when it does not exist yet, connecting
// to the server's "postgres" database to do so.
func EnsureDatabase(ctx context.Context, dsn string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	name := cfg.Database
	if name == "" {
		return errors.New("database url names no database")
	}
	admin := cfg.Copy()
	admin.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect to postgres server: %w", err)
	}
	defer conn.Close(ctx)
	if err := RegisterTypes(ctx, conn); err != nil {
		return fmt.Errorf("register types: %w", err)
	}
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	if err != nil && !IsUniqueViolation(err) && !strings.Contains(err.Error(), "already exists") {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// Connect opens a pool on dsn; every connection of it has the types of RegisterTypes.
func Connect(ctx context.Context, dsn string, maxConns int32) (*pgxpool.Pool, error) {
	return ConnectWith(ctx, dsn, PoolOptions{MaxConns: maxConns})
}

// PoolOptions tunes ConnectWith.
type PoolOptions struct {
	// MaxConns bounds the pool (pgx's default when zero).
	MaxConns int32
	// Tracer, when set, observes every query (QueryTracer records spans).
	Tracer pgx.QueryTracer
}

// ConnectWith opens a pool on dsn like Connect, with options.
func ConnectWith(ctx context.Context, dsn string, o PoolOptions) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	if o.Tracer != nil {
		cfg.ConnConfig.Tracer = o.Tracer
	}
	cfg.AfterConnect = RegisterTypes
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping database %s: %w", redact(dsn), err)
	}
	return pool, nil
}

func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparseable url)"
	}
	return u.Redacted()
}
