package api_test

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"paycore/api"
	"paycore/db/view"
)

func TestTokenLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	r := c.Do("POST", "/tokens", map[string]any{"name": "ci", "permissions": []string{"VIEW", "TRANSACT"}})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var tok view.Token
	r.Decode(t, &tok)
	if !strings.HasPrefix(tok.ID, "Token:") || len(tok.ClientSecret) < 43 || tok.ClientID == "" {
		t.Fatalf("bad token: %+v", tok)
	}
	// The secret is shown once: reads never return it, and it is not stored in clear.
	got := c.Do("GET", "/tokens/"+tok.ID, nil)
	if strings.Contains(string(got.Body), tok.ClientSecret) || strings.Contains(string(got.Body), "clientSecret") {
		t.Fatalf("secret returned on read: %s", got.Body)
	}
	var stored int
	if err := e.pool.QueryRow(t.Context(), "SELECT count(*) FROM api_tokens WHERE encode(secret_hash, 'escape') LIKE '%' || $1 || '%'", tok.ClientSecret).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("secret stored in clear (%d, %v)", stored, err)
	}
	// Filters.
	var list api.List[view.Token]
	c.Do("GET", "/tokens?name=ci", nil).Decode(t, &list)
	if list.TotalCount != 1 || list.Data[0].ID != tok.ID {
		t.Fatalf("name filter: %+v", list)
	}
	future := url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	c.Do("GET", "/tokens?createdAfter="+future, nil).Decode(t, &list)
	if list.TotalCount != 0 {
		t.Fatalf("createdAfter filter: %+v", list)
	}
	c.Do("GET", "/tokens?updatedBefore="+future, nil).Decode(t, &list)
	if list.TotalCount != 2 {
		t.Fatalf("updatedBefore filter: %+v", list)
	}
	// Bad input.
	for _, b := range []any{
		map[string]any{"name": "", "permissions": []string{"VIEW"}},
		map[string]any{"name": "x", "permissions": []string{}},
		map[string]any{"name": "x", "permissions": []string{"ADMIN"}},
		map[string]any{"name": "x", "permissions": []string{"VIEW", "VIEW"}},
		map[string]any{"name": "x", "permissions": "VIEW"},
		map[string]any{"name": strings.Repeat("n", 256), "permissions": []string{"VIEW"}},
		map[string]any{"permissions": []string{"VIEW"}},
	} {
		expectError(t, c.Do("POST", "/tokens", b), 400, "INVALID_INPUT")
	}
	for _, q := range []string{"limit=0", "limit=101", "limit=abc", "cursor=zzz", "createdAfter=yesterday", "nosuch=1", "name="} {
		expectError(t, c.Do("GET", "/tokens?"+q, nil), 400, "INVALID_INPUT")
	}
	expectError(t, c.Do("GET", "/tokens/Token:not-a-uuid", nil), 404, "TOKEN_NOT_FOUND")
	expectError(t, c.Do("DELETE", "/tokens/Customer:"+tok.ClientID, nil), 404, "TOKEN_NOT_FOUND")
}

func TestLastTokenCannotBeDeleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	var list api.List[view.Token]
	c.Do("GET", "/tokens", nil).Decode(t, &list)
	r := c.Do("DELETE", "/tokens/"+list.Data[0].ID, nil)
	m := expectError(t, r, 400, "INVALID_INPUT")
	if !strings.Contains(m["message"].(string), "last") {
		t.Fatalf("message does not explain: %v", m["message"])
	}
	// Two concurrent deletes of the last two tokens: exactly one succeeds.
	var second view.Token
	c.Do("POST", "/tokens", map[string]any{"name": "b", "permissions": []string{"MANAGE"}}).Decode(t, &second)
	other := e.client(second.ClientID, second.ClientSecret)
	var wg sync.WaitGroup
	codes := make([]int, 2)
	wg.Add(2)
	go func() { defer wg.Done(); codes[0] = c.Do("DELETE", "/tokens/"+second.ID, nil).Status }()
	go func() { defer wg.Done(); codes[1] = other.Do("DELETE", "/tokens/"+list.Data[0].ID, nil).Status }()
	wg.Wait()
	var remaining int
	if err := e.pool.QueryRow(t.Context(), "SELECT count(*) FROM api_tokens WHERE deleted_at IS NULL").Scan(&remaining); err != nil {
		t.Fatal(err)
	}
	if remaining != 1 {
		t.Fatalf("concurrent deletes left %d tokens (statuses %v)", remaining, codes)
	}
}

func TestIsolationBetweenPlatforms(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, _ := e.platform(true)
	b, _ := e.platform(true)
	var tok view.Token
	a.Do("POST", "/tokens", map[string]any{"name": "a2", "permissions": []string{"VIEW"}}).Decode(t, &tok)
	expectError(t, b.Do("GET", "/tokens/"+tok.ID, nil), 404, "TOKEN_NOT_FOUND")
	expectError(t, b.Do("DELETE", "/tokens/"+tok.ID, nil), 404, "TOKEN_NOT_FOUND")
	var list api.List[view.Token]
	b.Do("GET", "/tokens", nil).Decode(t, &list)
	for _, x := range list.Data {
		if x.ID == tok.ID {
			t.Fatal("platform B lists platform A's token")
		}
	}
	var events api.List[api.WebhookEvent]
	a.Do("PATCH", "/config", map[string]any{"webhookEndpoint": "https://93.184.216.34/hook"})
	a.Do("GET", "/webhooks/events", nil).Decode(t, &events)
	if len(events.Data) != 1 {
		t.Fatalf("want A's TEST event, got %d", len(events.Data))
	}
	expectError(t, b.Do("GET", "/webhooks/events/"+events.Data[0].ID, nil), 404, "WEBHOOK_EVENT_NOT_FOUND")
	expectError(t, b.Do("POST", "/webhooks/events/"+events.Data[0].ID+"/redeliver", nil), 404, "WEBHOOK_EVENT_NOT_FOUND")
}

// Paging while rows are inserted concurrently returns every row that existed when the
// listing started exactly once.
func TestPaginationUnderConcurrentInserts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	existing := map[string]bool{}
	var list api.List[view.Token]
	c.Do("GET", "/tokens?limit=100", nil).Decode(t, &list)
	for _, x := range list.Data {
		existing[x.ID] = true
	}
	for i := range 40 {
		var tok view.Token
		c.Do("POST", "/tokens", map[string]any{"name": fmt.Sprintf("t%d", i), "permissions": []string{"VIEW"}}).Decode(t, &tok)
		existing[tok.ID] = true
	}
	stop := make(chan struct{})
	inserted := make(chan int)
	go func() {
		n := 0
		defer func() { inserted <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			c.Do("POST", "/tokens", map[string]any{"name": "concurrent", "permissions": []string{"VIEW"}})
			n++
		}
	}()
	seen := map[string]int{}
	path := "/tokens?limit=7"
	pages := 0
	for {
		var pg api.List[view.Token]
		r := c.Do("GET", path, nil)
		if r.Status != 200 {
			t.Fatalf("page: %d %s", r.Status, r.Body)
		}
		r.Decode(t, &pg)
		pages++
		for _, x := range pg.Data {
			seen[x.ID]++
		}
		if !pg.HasMore {
			if pg.NextCursor != "" {
				t.Fatal("nextCursor present on the last page")
			}
			break
		}
		if pg.NextCursor == "" {
			t.Fatal("hasMore without nextCursor")
		}
		path = "/tokens?limit=7&cursor=" + url.QueryEscape(pg.NextCursor)
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	n := <-inserted
	for id, k := range seen {
		if k > 1 {
			t.Fatalf("%s listed %d times", id, k)
		}
	}
	for id := range existing {
		if seen[id] != 1 {
			t.Fatalf("%s missing from the pages", id)
		}
	}
	if n == 0 || pages < 6 {
		t.Fatalf("the test did not exercise concurrency: %d inserts, %d pages", n, pages)
	}
}
