package api_test

import (
	"net/url"
	"slices"
	"sort"
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/internal/money"
)

func TestUmaProviders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	all := fetchAllProviders(t, c.Do, "/uma-providers?limit=5")
	if len(all) < 20 {
		t.Fatalf("seeded providers missing: %d", len(all))
	}
	names := make([]string, len(all))
	for i, p := range all {
		names[i] = p.Name
	}
	if !sort.SliceIsSorted(names, func(i, j int) bool { return names[i] > names[j] }) {
		t.Fatalf("default order is not descending: %v", names)
	}
	asc := fetchAllProviders(t, c.Do, "/uma-providers?limit=3&sortOrder=asc")
	if len(asc) != len(all) || asc[0].Name != all[len(all)-1].Name {
		t.Fatalf("ascending order differs: %d vs %d", len(asc), len(all))
	}
	var list api.List[api.UmaProvider]
	c.Do("GET", "/uma-providers?countryCode=MX&limit=100", nil).Decode(t, &list)
	if list.TotalCount == 0 || int(list.TotalCount) != len(list.Data) {
		t.Fatalf("country filter: %+v", list)
	}
	for _, p := range list.Data {
		if !slices.Contains(p.SupportedRegions, "MX") {
			t.Fatalf("%s does not serve MX", p.Name)
		}
	}
	c.Do("GET", "/uma-providers?currencyCode=EUR&hasBlockedProviders=false&limit=100", nil).Decode(t, &list)
	if list.TotalCount == 0 {
		t.Fatal("no allow-listed EUR providers")
	}
	for _, p := range list.Data {
		if !p.AllowListStatus {
			t.Fatalf("%s is blocked but was listed", p.Name)
		}
		if !slices.ContainsFunc(p.SupportedCurrencies, func(c money.Currency) bool { return c.Code == "EUR" }) {
			t.Fatalf("%s does not support EUR", p.Name)
		}
	}
	var withBlocked api.List[api.UmaProvider]
	c.Do("GET", "/uma-providers?currencyCode=EUR&limit=100", nil).Decode(t, &withBlocked)
	if withBlocked.TotalCount <= list.TotalCount {
		t.Fatalf("blocked providers are not included by default: %d vs %d", withBlocked.TotalCount, list.TotalCount)
	}
	for _, q := range []string{"countryCode=XX", "countryCode=mx", "currencyCode=ABC", "hasBlockedProviders=yes", "sortOrder=up", "limit=-1", "cursor=abc"} {
		expectError(t, c.Do("GET", "/uma-providers?"+q, nil), 400, "INVALID_INPUT")
	}
	// A cursor of the descending list is refused by the ascending one.
	var first api.List[api.UmaProvider]
	c.Do("GET", "/uma-providers?limit=2", nil).Decode(t, &first)
	expectError(t, c.Do("GET", "/uma-providers?sortOrder=asc&cursor="+url.QueryEscape(first.NextCursor), nil), 400, "INVALID_INPUT")
}

func fetchAllProviders(t *testing.T, do func(string, string, any, ...string) *apitest.Response, path string) []api.UmaProvider {
	t.Helper()
	var out []api.UmaProvider
	for {
		var pg api.List[api.UmaProvider]
		do("GET", path, nil).Decode(t, &pg)
		out = append(out, pg.Data...)
		if !pg.HasMore {
			return out
		}
		u, _ := url.Parse(path)
		q := u.Query()
		q.Set("cursor", pg.NextCursor)
		u.RawQuery = q.Encode()
		path = u.String()
	}
}
