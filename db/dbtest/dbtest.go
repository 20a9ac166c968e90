// Package dbtest gives each test package its own Postgres database, cloned from a migrated
// template so that migrations run once per schema version rather than once per test.
package dbtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
)

// AdminURL is the server used by tests: TEST_DATABASE_URL, or local trust auth.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

var counter atomic.Int64

// New creates a fresh migrated database for t, dropped when t ends, and returns its URL.
func New(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url, err := Create(ctx)
	if err != nil {
		t.Fatalf("test database: %v", err)
	}
	t.Cleanup(func() { Drop(url) })
	return url
}

// NewPool is New plus an open pool closed at the end of t.
func NewPool(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	url := New(t)
	pool, err := db.Connect(context.Background(), url, 20)
	if err != nil {
		t.Fatalf("connect test database: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool, url
}

// Create makes a database cloned from the template and returns its URL.
func Create(ctx context.Context) (string, error) {
	tmpl, err := ensureTemplate(ctx)
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("paycore_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, counter.Add(1))
	conn, err := connectAdmin(ctx)
	if err != nil {
		return "", fmt.Errorf("connect admin: %w", err)
	}
	defer conn.Close(ctx)
	// CREATE DATABASE ... TEMPLATE fails while another session uses the template; retry.
	for i := 0; ; i++ {
		_, err = conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, tmpl))
		if err == nil || i > 50 || !strings.Contains(err.Error(), "being accessed by other users") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return "", fmt.Errorf("clone template: %w", err)
	}
	return withDatabase(AdminURL(), name), nil
}

// Drop removes a database made by Create.
func Drop(url string) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := connectAdmin(ctx)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{cfg.Database}.Sanitize()+" WITH (FORCE)")
}

// ensureTemplate builds (once per schema version, across processes) a migrated template
// database named after a hash of the migrations.
func ensureTemplate(ctx context.Context) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(db.Migrations(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(db.Migrations(), p)
		h.Write([]byte(p))
		h.Write(b)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("hash migrations: %w", err)
	}
	name := "paycore_tmpl_" + hex.EncodeToString(h.Sum(nil))[:16]
	conn, err := connectAdmin(ctx)
	if err != nil {
		return "", fmt.Errorf("connect admin %s: %w", AdminURL(), err)
	}
	defer conn.Close(ctx)
	// Serialise template creation between test binaries running in parallel.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(727001)"); err != nil {
		return "", fmt.Errorf("lock: %w", err)
	}
	defer func() { _, _ = conn.Exec(context.Background(), "SELECT pg_advisory_unlock(727001)") }()
	var ready bool
	err = conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)", name).Scan(&ready)
	if err != nil {
		return "", fmt.Errorf("look up template: %w", err)
	}
	if ready {
		return name, nil
	}
	_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("create template: %w", err)
	}
	if err := db.Migrate(ctx, withDatabase(AdminURL(), name)); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+name+" WITH IS_TEMPLATE true"); err != nil {
		return "", fmt.Errorf("mark template: %w", err)
	}
	return name, nil
}

// connectAdmin opens one connection to the test server's "postgres" database, with the
// service's types registered like every other connection.
func connectAdmin(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return nil, err
	}
	if err := db.RegisterTypes(ctx, conn); err != nil {
		_ = conn.Close(ctx)
		return nil, fmt.Errorf("register types: %w", err)
	}
	return conn, nil
}

func withDatabase(url, name string) string {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return url
	}
	user := cfg.User
	host := cfg.Host
	port := cfg.Port
	auth := user
	if cfg.Password != "" {
		auth += ":" + cfg.Password
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", auth, host, port, name)
}
