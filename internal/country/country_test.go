package country

import (
	"slices"
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	tests := []struct {
		code string
		want bool
	}{
		{"US", true},
		{"MX", true},
		{"BR", true},
		{"DE", true},
		{"GB", true},
		{"IN", true},
		{"KE", true},
		{"NG", true},
		{"us", false},
		{"Us", false},
		{"UK", false},
		{"XX", false},
		{"XK", false},
		{"EU", false},
		{"", false},
		{"U", false},
		{"USA", false},
		{"U1", false},
		{" US", false},
	}
	for _, tt := range tests {
		if got := Valid(tt.code); got != tt.want {
			t.Errorf("Valid(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		code     string
		wantName string
		wantOK   bool
	}{
		{"US", "United States", true},
		{"MX", "Mexico", true},
		{"BR", "Brazil", true},
		{"DE", "Germany", true},
		{"GB", "United Kingdom", true},
		{"IN", "India", true},
		{"KE", "Kenya", true},
		{"NG", "Nigeria", true},
		{"AX", "Åland Islands", true},
		{"ZW", "Zimbabwe", true},
		{"us", "", false},
		{"UK", "", false},
		{"XK", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := Lookup(tt.code)
		if ok != tt.wantOK {
			t.Errorf("Lookup(%q) ok = %v, want %v", tt.code, ok, tt.wantOK)
			continue
		}
		if !ok {
			if got != (Country{}) {
				t.Errorf("Lookup(%q) = %+v, want zero Country", tt.code, got)
			}
			continue
		}
		if got.Code != tt.code || got.Name != tt.wantName {
			t.Errorf("Lookup(%q) = %+v, want {%s %s}", tt.code, got, tt.code, tt.wantName)
		}
	}
}

func TestCatalogue(t *testing.T) {
	all := All()
	if len(all) != 249 {
		t.Fatalf("len(All()) = %d, want 249", len(all))
	}
	if len(byCode) != len(all) {
		t.Errorf("index has %d entries, catalogue %d (duplicate codes?)", len(byCode), len(all))
	}
	seen := make(map[string]bool, len(all))
	for _, c := range all {
		if len(c.Code) != 2 || c.Code[0] < 'A' || c.Code[0] > 'Z' || c.Code[1] < 'A' || c.Code[1] > 'Z' {
			t.Errorf("code %q is not two upper-case ASCII letters", c.Code)
		}
		if seen[c.Code] {
			t.Errorf("duplicate code %q", c.Code)
		}
		seen[c.Code] = true
		if strings.TrimSpace(c.Name) == "" || c.Name != strings.TrimSpace(c.Name) {
			t.Errorf("code %q has empty or untrimmed name %q", c.Code, c.Name)
		}
		if got, ok := Lookup(c.Code); !ok || got != c {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v, true", c.Code, got, ok, c)
		}
	}
}

func TestAllSortedAndFresh(t *testing.T) {
	a := All()
	if !slices.IsSortedFunc(a, func(x, y Country) int { return strings.Compare(x.Code, y.Code) }) {
		t.Error("All() is not sorted by code")
	}
	first := a[0]
	a[0] = Country{Code: "ZZ", Name: "mutated"}
	a = append(a[:0], a[1:]...)
	b := All()
	if len(b) != 249 || b[0] != first {
		t.Errorf("All() aliased: after mutating a previous result, got len %d, first %+v; want 249, %+v", len(b), b[0], first)
	}
	if Valid("ZZ") {
		t.Error("mutating All() result changed Valid")
	}
	if &a[0] == &b[0] {
		t.Error("All() returned the same backing array twice")
	}
}
