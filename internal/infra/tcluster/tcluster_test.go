package tcluster

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	deploytemporal "paycore/deploy/temporal"
)

// TestWriteConfigUsesTheShippedDynamicConfig: the server runs with the dynamic
// configuration a deployment gets, so what the cluster profile tests and measures is what
// is shipped.
func TestWriteConfigUsesTheShippedDynamicConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "temporal-server.yaml")
	if err := writeConfig(path, Options{PGHost: "127.0.0.1", PGPort: 5432, PGUser: "postgres", DB: "t", VisibilityDB: "tv", IP: "127.0.0.1", Port: 20000, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	dyn := filepath.Join(dir, "dynamicconfig.yaml")
	b, err := os.ReadFile(dyn)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, deploytemporal.DynamicConfig) {
		t.Fatalf("the dynamic configuration written is not deploy/temporal/paycore.yaml:\n%s", b)
	}
	cfg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), `filepath: "`+dyn+`"`) {
		t.Fatalf("the server's configuration does not read %s:\n%s", dyn, cfg)
	}
}
