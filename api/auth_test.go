package api_test

import (
	"context"
	"encoding/base64"
	"testing"

	"paycore/api"
	"paycore/db/view"
)

func TestAuthenticationFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	good := c.Do("GET", "/config", nil)
	if good.Status != 200 {
		t.Fatalf("valid credentials: %d %s", good.Status, good.Body)
	}
	for name, cl := range map[string]struct{ user, pass string }{
		"no credentials": {"", ""},
		"wrong secret":   {c.User, c.Password + "x"},
		"unknown token":  {"0190a000-0000-7000-8000-000000000001", c.Password},
		"malformed id":   {"not-a-uuid", c.Password},
		"empty secret":   {c.User, ""},
		"secret as id":   {c.Password, c.User},
	} {
		t.Run(name, func(t *testing.T) {
			r := e.client(cl.user, cl.pass).Do("GET", "/config", nil)
			expectError(t, r, 401, "UNAUTHORIZED")
		})
	}
	// A bearer token or garbage header is not Basic.
	for _, h := range []string{"Bearer abc", "Basic !!!", "Basic " + base64.StdEncoding.EncodeToString([]byte("nocolon"))} {
		r := e.client("", "").Do("GET", "/config", nil, "Authorization", h)
		expectError(t, r, 401, "UNAUTHORIZED")
	}
	// The spec's "<api token id>:<secret>" form, with the Token: prefix, works too.
	r := e.client("", "").Do("GET", "/config", nil, "Authorization",
		"Basic "+base64.StdEncoding.EncodeToString([]byte("Token:"+c.User+":"+c.Password)))
	if r.Status != 200 {
		t.Fatalf("Token:<uuid>:<secret> form refused: %d %s", r.Status, r.Body)
	}
}

func TestDeletedTokenStopsAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	r := c.Do("POST", "/tokens", map[string]any{"name": "second", "permissions": []string{"VIEW"}})
	if r.Status != 201 {
		t.Fatalf("create token: %d %s", r.Status, r.Body)
	}
	var tok view.Token
	r.Decode(t, &tok)
	second := e.client(tok.ClientID, tok.ClientSecret)
	if s := second.Do("GET", "/tokens/"+tok.ID, nil).Status; s != 200 {
		t.Fatalf("new token does not authenticate: %d", s)
	}
	if r := c.Do("DELETE", "/tokens/"+tok.ID, nil); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	expectError(t, second.Do("GET", "/config", nil), 401, "UNAUTHORIZED")
	expectError(t, c.Do("GET", "/tokens/"+tok.ID, nil), 404, "TOKEN_NOT_FOUND")
}

func TestPermissionsEnforced(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin, p := e.platform(true)
	tok, err := api.IssueToken(context.Background(), e.pool, p.ID, "viewer", []string{"VIEW"})
	if err != nil {
		t.Fatal(err)
	}
	viewer := e.client(tok.Token.ID.String(), tok.Secret)
	for _, path := range []string{"/config", "/tokens", "/uma-providers", "/webhooks/events", "/webhooks/signing-key"} {
		if r := viewer.Do("GET", path, nil); r.Status != 200 {
			t.Errorf("VIEW token GET %s: %d %s", path, r.Status, r.Body)
		}
	}
	writes := []struct {
		method, path string
		body         any
	}{
		{"PATCH", "/config", map[string]any{"umaDomain": "pay.example.com"}},
		{"POST", "/tokens", map[string]any{"name": "x", "permissions": []string{"VIEW"}}},
		{"DELETE", "/tokens/Token:" + p.ID.String(), nil},
		{"POST", "/webhooks/test", nil},
		{"GET", "/webhooks/secret", nil},
		{"POST", "/webhooks/secret/rotate", nil},
	}
	for _, w := range writes {
		expectError(t, viewer.Do(w.method, w.path, w.body), 403, "FORBIDDEN")
	}
	// Nothing was written: the config is unchanged and no token was added.
	var cfg api.PlatformConfig
	admin.Do("GET", "/config", nil).Decode(t, &cfg)
	if cfg.UmaDomain == "pay.example.com" {
		t.Fatal("a VIEW token changed the config")
	}
	var list struct{ TotalCount int }
	admin.Do("GET", "/tokens", nil).Decode(t, &list)
	if list.TotalCount != 2 {
		t.Fatalf("want 2 tokens, got %d", list.TotalCount)
	}
}
