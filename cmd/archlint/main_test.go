package main

import (
	"slices"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		pkg     pkg
		reports []string // imports that must be reported; every other import must pass
	}{
		{"workflow subpackage importing db", pkg{"paycore/workflows/payments", []string{"paycore/db", "go.temporal.io/sdk/workflow", "paycore/activities"}}, []string{"paycore/db"}},
		{"deep workflow subpackage importing pgx and the network", pkg{"paycore/workflows/payments/uma", []string{"github.com/jackc/pgx/v5", "net/http/httptest", "os/exec", "math/rand/v2"}}, []string{"github.com/jackc/pgx/v5", "net/http/httptest", "os/exec", "math/rand/v2"}},
		{"workflow code using the client", pkg{"paycore/workflows", []string{"go.temporal.io/sdk/client"}}, []string{"go.temporal.io/sdk/client"}},
		{"starters use the client", pkg{"paycore/workflows/start", []string{"go.temporal.io/sdk/client", "paycore/workflows"}}, nil},
		{"the client exception is not inherited", pkg{"paycore/workflows/start/batch", []string{"go.temporal.io/sdk/client"}}, []string{"go.temporal.io/sdk/client"}},
		{"starters never reach activities", pkg{"paycore/workflows/start", []string{"paycore/activities"}}, []string{"paycore/activities"}},
		{"activity subpackage importing workflows", pkg{"paycore/activities/rails", []string{"paycore/workflows", "paycore/db"}}, []string{"paycore/workflows"}},
		{"api subpackage importing activities", pkg{"paycore/api/apitest", []string{"paycore/activities", "paycore/db"}}, []string{"paycore/activities"}},
		{"worker subpackage importing the api", pkg{"paycore/worker/relay", []string{"paycore/api", "paycore/workflows"}}, []string{"paycore/api"}},
		{"db subpackage importing activities", pkg{"paycore/db/view", []string{"paycore/activities"}}, []string{"paycore/activities"}},
		{"domain package importing HTTP, the database and Temporal", pkg{"paycore/internal/fx", []string{"net/http", "github.com/jackc/pgx/v5/pgtype", "go.temporal.io/sdk/workflow", "paycore/db"}}, []string{"net/http", "github.com/jackc/pgx/v5/pgtype", "go.temporal.io/sdk/workflow", "paycore/db"}},
		{"domain subpackage importing an unlisted module", pkg{"paycore/internal/fx/rates", []string{"github.com/example/big"}}, []string{"github.com/example/big"}},
		{"domain package using decimals and another domain package", pkg{"paycore/internal/fx", []string{"github.com/shopspring/decimal", "paycore/internal/money", "math/big"}}, nil},
		{"infrastructure may use the network and its own modules", pkg{"paycore/internal/infra/netguard", []string{"net/http", "net", "gocloud.dev/blob", "paycore/internal/kit/sealbox"}}, nil},
		{"infrastructure never reaches a layer above it", pkg{"paycore/internal/infra/metrics", []string{"net/http", "paycore/db", "paycore/api"}}, []string{"paycore/db", "paycore/api"}},
		{"the domain never imports infrastructure", pkg{"paycore/internal/agent", []string{"paycore/internal/infra/config", "paycore/internal/kit/secrets"}}, []string{"paycore/internal/infra/config"}},
		{"a pure helper never imports the domain", pkg{"paycore/internal/kit/cursor", []string{"paycore/internal/money", "paycore/internal/kit/strictjson"}}, []string{"paycore/internal/money", "paycore/internal/kit/strictjson"}},
		{"the helper exception is for its one import", pkg{"paycore/internal/kit/filecrypt", []string{"paycore/internal/kit/sealbox", "filippo.io/age"}}, nil},
		{"a sibling named like infra is still domain", pkg{"paycore/internal/infrastructure", []string{"net/http"}}, []string{"net/http"}},
		{"a package outside every subtree", pkg{"paycore/cmd/paycore", []string{"paycore/api", "paycore/activities", "net/http"}}, nil},
		{"a sibling with a shared name prefix is not covered", pkg{"paycore/workflowsutil", []string{"paycore/db"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range check([]pkg{tt.pkg}, rules) {
				prefix := tt.pkg.ImportPath + " imports "
				if !strings.HasPrefix(v, prefix) {
					t.Fatalf("violation %q does not name the package", v)
				}
				imp, _, _ := strings.Cut(strings.TrimPrefix(v, prefix), ":")
				if !slices.Contains(got, imp) {
					got = append(got, imp)
				}
			}
			slices.Sort(got)
			want := slices.Clone(tt.reports)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("reported %q, want %q", got, want)
			}
		})
	}
}

func TestMatchesAny(t *testing.T) {
	for _, tt := range []struct {
		imp, pattern string
		want         bool
	}{
		{"os", "os", true},
		{"os/exec", "os", true},
		{"osext", "os", false},
		{"github.com/jackc/pgx/v5", "github.com/jackc/", true},
		{"github.com/jackcx/pgx", "github.com/jackc/", false},
		{"paycore/db/view", "paycore/db", true},
		{"paycore/dbx", "paycore/db", false},
	} {
		if got := matchesAny(tt.imp, []string{tt.pattern}); got != tt.want {
			t.Errorf("matchesAny(%q, %q) = %v, want %v", tt.imp, tt.pattern, got, tt.want)
		}
	}
}
