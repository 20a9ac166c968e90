package api_test

import (
	"net/url"
	"slices"
	"sort"
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/money"
)

func TestUmaProviders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	var none api.List[api.UmaProvider]
	if c.Do("GET", "/uma-providers", nil).Decode(t, &none); len(none.Data) != 0 {
		t.Fatalf("providers before the operator listed any: %+v", none.Data)
	}
	e.listProviders()
	all := fetchAllProviders(t, c.Do, "/uma-providers?limit=5")
	if len(all) < 20 {
		t.Fatalf("listed providers missing: %d", len(all))
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

// GET /vasps is the directory of the providers the deployment transacts with: the allowed
// ones, by name, each with its site, in pages.
func TestVasps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	e.listProviders()
	var allowed api.List[api.UmaProvider]
	c.Do("GET", "/uma-providers?hasBlockedProviders=false&limit=100", nil).Decode(t, &allowed)
	var vasps []view.Vasp
	cursor := ""
	for {
		var page api.List[view.Vasp]
		r := c.Do("GET", "/vasps?limit=4"+cursor, nil)
		if r.Status != 200 {
			t.Fatalf("vasps: %d %s", r.Status, r.Body)
		}
		r.Decode(t, &page)
		vasps = append(vasps, page.Data...)
		if !page.HasMore {
			break
		}
		cursor = "&cursor=" + url.QueryEscape(page.NextCursor)
	}
	if len(vasps) == 0 || len(vasps) != len(allowed.Data) {
		t.Fatalf("%d VASPs, %d allowed providers", len(vasps), len(allowed.Data))
	}
	byName := map[string]string{}
	for _, p := range allowed.Data {
		byName[p.Name] = "https://" + p.Domain
	}
	for i, v := range vasps {
		if byName[v.VaspName] != v.URL || (i > 0 && vasps[i-1].VaspName > v.VaspName) {
			t.Fatalf("VASP %d %+v: not an allowed provider in name order", i, v)
		}
	}
	expectError(t, c.Do("GET", "/vasps?countryCode=MX", nil), 400, "INVALID_INPUT")
}
