package api_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
)

func TestIdempotencyReplayAndMismatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	body := map[string]any{"name": "idem", "permissions": []string{"VIEW"}}
	first := c.Do("POST", "/tokens", body, "Idempotency-Key", "key-1")
	if first.Status != 201 || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v", first.Status, first.Header)
	}
	again := c.Do("POST", "/tokens", body, "Idempotency-Key", "key-1")
	if again.Status != 201 || !bytes.Equal(again.Body, first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay differs: %d %q vs %q (%v)", again.Status, again.Body, first.Body, again.Header)
	}
	// The stored answer is sealed: the new token's secret is not in the database in clear.
	var stored []byte
	if err := e.pool.QueryRow(context.Background(), "SELECT response_body FROM idempotency_keys WHERE key = 'key-1'").Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if secret := first.JSON(t)["clientSecret"].(string); secret == "" || bytes.Contains(stored, []byte(secret)) {
		t.Fatal("the stored answer holds the client secret in clear")
	}
	if again.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("replay content type %q", again.Header.Get("Content-Type"))
	}
	expectError(t, c.Do("POST", "/tokens", map[string]any{"name": "other", "permissions": []string{"VIEW"}}, "Idempotency-Key", "key-1"),
		422, "IDEMPOTENCY_KEY_REUSED")
	// Keys are per platform: another platform's same key is a new request.
	other, _ := e.platform(true)
	if r := other.Do("POST", "/tokens", body, "Idempotency-Key", "key-1"); r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("other platform's key replayed: %d %v", r.Status, r.Header)
	}
	// A 4xx answer is stored and replayed too.
	bad := map[string]any{"name": "", "permissions": []string{"VIEW"}}
	b1 := c.Do("POST", "/tokens", bad, "Idempotency-Key", "key-2")
	b2 := c.Do("POST", "/tokens", bad, "Idempotency-Key", "key-2")
	if b1.Status != 400 || b2.Status != 400 || !bytes.Equal(b1.Body, b2.Body) || b2.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("4xx not replayed: %d %d", b1.Status, b2.Status)
	}
	var list api.List[view.Token]
	c.Do("GET", "/tokens?name=idem", nil).Decode(t, &list)
	if list.TotalCount != 1 {
		t.Fatalf("want 1 token created under key-1, got %d", list.TotalCount)
	}
	expectError(t, c.Do("POST", "/tokens", body, "Idempotency-Key", string(bytes.Repeat([]byte("k"), 256))), 400, "INVALID_INPUT")
}

// Fifty simultaneous duplicates execute once and all get the same answer.
func TestIdempotencyConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	body := map[string]any{"name": "burst", "permissions": []string{"VIEW"}}
	const n = 50
	var wg sync.WaitGroup
	res := make([]*apitest.Response, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res[i] = c.Do("POST", "/tokens", body, "Idempotency-Key", "burst-key")
		}()
	}
	close(start)
	wg.Wait()
	replays := 0
	for i, r := range res {
		if r.Status != 201 || !bytes.Equal(r.Body, res[0].Body) {
			t.Fatalf("response %d differs: %d %s vs %s", i, r.Status, r.Body, res[0].Body)
		}
		if r.Header.Get("Idempotent-Replayed") == "true" {
			replays++
		}
	}
	if replays != n-1 {
		t.Fatalf("want %d replays, got %d", n-1, replays)
	}
	var count int
	if err := e.pool.QueryRow(t.Context(), "SELECT count(*) FROM api_tokens WHERE name = 'burst'").Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != 1 {
		t.Fatalf("%d tokens created, want 1", count)
	}
}
