package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// The operator's rate file replaces the built-in rates it names; a file that is missing or
// wrong stops the process with the variable's name.
func TestLoadRates(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "rates.json")
	if err := os.WriteFile(good, []byte(`{"EUR": "0.5", "MXN": 19}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tb, err := loadRates(good, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if mid, _, _ := tb.Mid("EUR", "MXN", time.Now()); !mid.Equal(decimal.NewFromInt(38)) {
		t.Fatalf("EUR → MXN %s with the file's rates", mid)
	}
	if mid, _, _ := tb.Mid("USD", "JPY", time.Now()); !mid.Equal(decimal.NewFromInt(150)) {
		t.Fatalf("USD → JPY %s, want the built-in 150", mid)
	}
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"EUR": "-1"}`), 0o600)
	for _, f := range []string{bad, filepath.Join(dir, "missing.json")} {
		if _, err := loadRates(f, time.Now()); err == nil {
			t.Errorf("%s loaded", f)
		}
	}
}
