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
		{"infrastructure packages named with a reason", pkg{"paycore/internal/netguard", []string{"net/http", "net"}}, nil},
		{"the net/http exception is only for net/http", pkg{"paycore/internal/metrics", []string{"net/http", "github.com/jackc/pgx/v5"}}, []string{"github.com/jackc/pgx/v5"}},
		{"a subpackage of an exempted package is not exempt", pkg{"paycore/internal/netguard/probe", []string{"net/http"}}, []string{"net/http"}},
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
