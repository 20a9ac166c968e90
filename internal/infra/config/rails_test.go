package config

import (
	"strings"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/rail"
)

// PAYCORE_RAILS: unset, the sandbox rail serves sandbox platforms and nothing serves
// production; set, its routes; set but empty, no rail at all; malformed, an error.
func TestRails(t *testing.T) {
	sandboxOnly := []rail.Route{{Environment: catalog.Sandbox, Currency: rail.Any, Kind: rail.Any, Rail: "sandbox"}}
	for _, tc := range []struct {
		name  string
		value *string
		want  []rail.Route
		err   string
	}{
		{name: "unset", want: sandboxOnly},
		{name: "routes", value: ptr("SANDBOX:*:*=sandbox, PRODUCTION:USD:EXTERNAL_ACCOUNT=bank"),
			want: append(sandboxOnly, rail.Route{Environment: catalog.Production, Currency: "USD", Kind: rail.ExternalAccount, Rail: "bank"})},
		{name: "empty", value: ptr("")},
		{name: "malformed", value: ptr("PRODUCTION=bank"), err: "PAYCORE_RAILS: route"},
	} {
		c, err := LoadLookup(func(name string) (string, bool) {
			if name == "PAYCORE_RAILS" && tc.value != nil {
				return *tc.value, true
			}
			return "", false
		})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || len(c.Rails) != len(tc.want) {
			t.Errorf("%s: %+v %v", tc.name, c.Rails, err)
			continue
		}
		for i := range c.Rails {
			if c.Rails[i] != tc.want[i] {
				t.Errorf("%s: %+v, want %+v", tc.name, c.Rails[i], tc.want[i])
			}
		}
	}
}

func ptr(s string) *string { return &s }
