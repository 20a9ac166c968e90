package api_test

import (
	"bytes"
	"strings"
	"testing"

	"paycore/api/apitest"
)

// newToken creates a token with perms through c and returns a client using it.
func newToken(t *testing.T, c *apitest.Client, name string, perms ...string) *apitest.Client {
	t.Helper()
	r := c.Do("POST", "/tokens", map[string]any{"name": name, "permissions": perms})
	if r.Status != 201 {
		t.Fatalf("create token %s: %d %s", name, r.Status, r.Body)
	}
	var tok struct{ ID, ClientSecret string }
	r.Decode(t, &tok)
	return c.With(strings.TrimPrefix(tok.ID, "Token:"), tok.ClientSecret)
}

// A stored answer belongs to the token that made the request: another token of the same
// platform repeating it (same key, same body) is never given it, so it never receives a
// secret minted for someone else, and a money request is not run a second time.
func TestIdempotentAnswerIsTheCallingTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	full, _ := e.platform(true)
	manager := newToken(t, full, "manager", "MANAGE")
	other := newToken(t, full, "other", "VIEW", "TRANSACT", "MANAGE")

	mint := map[string]any{"name": "payer", "permissions": []string{"TRANSACT"}}
	first := full.Do("POST", "/tokens", mint, "Idempotency-Key", "mint-1")
	if first.Status != 201 {
		t.Fatalf("mint: %d %s", first.Status, first.Body)
	}
	secret := first.JSON(t)["clientSecret"].(string)

	// The attack: a MANAGE-only token repeats the request to read the new secret.
	stolen := manager.Do("POST", "/tokens", mint, "Idempotency-Key", "mint-1")
	if bytes.Contains(stolen.Body, []byte(secret)) || stolen.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("another token was replayed the secret: %d %s", stolen.Status, stolen.Body)
	}
	expectError(t, stolen, 422, "IDEMPOTENCY_KEY_REUSED")
	// Not even a token holding every permission gets another token's answer.
	expectError(t, other.Do("POST", "/tokens", mint, "Idempotency-Key", "mint-1"), 422, "IDEMPOTENCY_KEY_REUSED")
	// The token that made the request still gets its answer replayed.
	again := full.Do("POST", "/tokens", mint, "Idempotency-Key", "mint-1")
	if again.Status != 201 || !bytes.Equal(again.Body, first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("own replay: %d %s", again.Status, again.Body)
	}

	// A money request under one key runs once, whichever tokens send it.
	cust := newCustomer(t, full, "US", "USD")
	acct := accountsByCurrency(t, full, cust.ID)["USD"].ID
	fund := map[string]any{"amount": 700}
	if r := full.Do("POST", "/sandbox/internal-accounts/"+acct+"/fund", fund, "Idempotency-Key", "fund-1"); r.Status != 200 {
		t.Fatalf("fund: %d %s", r.Status, r.Body)
	}
	expectError(t, other.Do("POST", "/sandbox/internal-accounts/"+acct+"/fund", fund, "Idempotency-Key", "fund-1"), 422, "IDEMPOTENCY_KEY_REUSED")
	if bal := accountsByCurrency(t, full, cust.ID)["USD"].Balance.Amount; bal != 700 {
		t.Fatalf("balance %d after one funding under one key, want 700", bal)
	}
}
