package db_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
)

// A bulk import row whose umaAddress a customer of another platform has (stored before
// addresses were unique on the deployment, on a domain that platform left) is refused with
// UMA_ADDRESS_EXISTS, like one of the platform's own customers'; the rest of the file is
// imported.
func TestBulkImportAddressOfAnotherPlatform(t *testing.T) {
	t.Parallel()
	w := newBulkWorld(t)
	ctx := context.Background()
	other, os := provision(t, w.pool, w.box)
	if _, err := db.CustomerOpen(ctx, w.pool, w.box, other.ID, newCustomer(t, os, "first", "$first@"+os.UmaDomain)); err != nil {
		t.Fatal(err)
	}
	// The other platform's customer has an address on this platform's domain (a legacy row).
	if _, err := w.pool.Exec(ctx, "UPDATE customers SET uma_address = $1 WHERE platform_id = $2", w.uma("taken"), other.ID); err != nil {
		t.Fatal(err)
	}
	end, _ := w.run(w.stage([][]string{personRow("c-1", w.uma("taken")), personRow("c-2", w.uma("free"))}), 10)
	if end.Status != catalog.BulkCompleted || end.Successful != 1 || end.Failed != 1 {
		t.Fatalf("job %+v", end)
	}
	report, err := db.BulkImportReportGet(ctx, w.pool, w.platform.ID, end.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Errors) != 1 || report.Errors[0].RowNumber != 2 || report.Errors[0].Code != string(catalog.UmaAddressExists) ||
		report.Errors[0].Message != "a customer of another platform already has this umaAddress" {
		t.Fatalf("errors %+v", report.Errors)
	}
}

// Migration 0026 does not pick a winner among rows that already break the new rules: it
// stops, naming the platforms that share a domain (case-insensitively), and runs once they
// are resolved.
func TestMigrationUmaDomainOwnerRefusesDuplicates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, cfg, provider := migratedDownTo(t, 23)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	a, b := ids.New(), ids.New()
	if _, err := conn.Exec(ctx, `INSERT INTO platforms (id, name, environment, config_id, uma_domain, supported_currencies)
		VALUES ($1, 'a', 'SANDBOX', $3, 'pay.example.com', '[]'), ($2, 'b', 'SANDBOX', $4, 'Pay.Example.com', '[]')`, a, b, ids.New(), ids.New()); err != nil {
		t.Fatal(err)
	}
	_, err = provider.Up(ctx)
	if err == nil || !strings.Contains(err.Error(), "umaDomain held by more than one platform: pay.example.com") ||
		!strings.Contains(err.Error(), a.String()) || !strings.Contains(err.Error(), b.String()) {
		t.Fatalf("migrating duplicates: %v", err)
	}
	if _, err := conn.Exec(ctx, "UPDATE platforms SET uma_domain = 'pay.b.example' WHERE id = $1", b); err != nil {
		t.Fatal(err)
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("migrating once resolved: %v", err)
	}
}
