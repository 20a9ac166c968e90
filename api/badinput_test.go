package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/internal/infra/config"
)

// Bad input is always a clear 4xx in the error envelope, never a 500.
func TestBadInputIsA4xx(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.MaxBodyBytes = 1024 })
	c, _ := e.platform(true)
	huge := `{"name":"` + strings.Repeat("x", 2000) + `","permissions":["VIEW"]}`
	cases := []struct {
		name, method, path string
		body               any
		headers            []string
		status             int
		code               string
	}{
		// A declared Content-Length over the limit is refused before the body is read. (The
		// Transfer-Encoding header set here is dropped by the Go client, which sends a
		// Content-Length; TestOversizeChunkedBodies sends real chunked bodies.)
		{"oversize body", "POST", "/tokens", huge, nil, 413, "PAYLOAD_TOO_LARGE"},
		{"oversize chunked", "POST", "/tokens", huge, []string{"Transfer-Encoding", "chunked"}, 413, "PAYLOAD_TOO_LARGE"},
		{"oversize, unauthenticated", "POST", "/tokens", huge, []string{"Authorization", "Basic bm9ib2R5Om5vdGhpbmc="}, 413, "PAYLOAD_TOO_LARGE"},
		{"malformed json", "POST", "/tokens", `{"name": "x",`, nil, 400, "INVALID_INPUT"},
		{"not an object", "POST", "/tokens", `"hello"`, nil, 400, "INVALID_INPUT"},
		{"null body", "POST", "/tokens", `null`, nil, 400, "INVALID_INPUT"},
		{"wrong type", "POST", "/tokens", `{"name": ["x"], "permissions": ["VIEW"]}`, nil, 400, "INVALID_INPUT"},
		{"unknown enum", "POST", "/tokens", `{"name": "x", "permissions": ["ROOT"]}`, nil, 400, "INVALID_INPUT"},
		{"form encoded", "POST", "/tokens", `name=x`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "INVALID_INPUT"},
		{"unknown route", "GET", "/no/such/thing", nil, nil, 404, "NOT_FOUND"},
		{"wrong method", "PUT", "/config", `{}`, nil, 405, "METHOD_NOT_ALLOWED"},
		{"huge limit", "GET", "/webhooks/events?limit=99999999999999999999", nil, nil, 400, "INVALID_INPUT"},
		{"bad status filter", "GET", "/webhooks/events?status=LOST", nil, nil, 400, "INVALID_INPUT"},
		{"bad type filter", "GET", "/webhooks/events?type=NOPE", nil, nil, 400, "INVALID_INPUT"},
		{"foreign cursor", "GET", "/webhooks/events?cursor=eyJsIjoidG9rZW5zIiwicCI6eyJpZCI6IjAxOTBhMDAwLTAwMDAtNzAwMC04MDAwLTAwMDAwMDAwMDAwMSJ9fQ", nil, nil, 400, "INVALID_INPUT"},
		{"malformed event id", "GET", "/webhooks/events/Webhook:zzz", nil, nil, 404, "WEBHOOK_EVENT_NOT_FOUND"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cl := *c
			cl.SkipValidation = tc.status == 404 && tc.code == "NOT_FOUND" || tc.status == 405
			r := cl.Do(tc.method, tc.path, tc.body, tc.headers...)
			expectError(t, r, tc.status, tc.code)
		})
	}
	var n int
	if err := e.pool.QueryRow(t.Context(), "SELECT count(*) FROM api_tokens").Scan(&n); err != nil || n != 1 {
		t.Fatalf("bad requests wrote tokens: %d %v", n, err)
	}
}

// A body of undeclared length (chunked) is cut at the limit while it is read.
func TestOversizeChunkedBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.MaxBodyBytes = 1024 })
	c, _ := e.platform(true)
	huge := `{"name":"` + strings.Repeat("x", 2000) + `","permissions":["VIEW"]}`
	send := func(method, path string, headers ...string) (*http.Response, map[string]any) {
		t.Helper()
		// A reader of unknown length: the client sends it chunked, without Content-Length.
		req, _ := http.NewRequest(method, c.BaseURL+path, io.MultiReader(strings.NewReader(huge)))
		req.SetBasicAuth(c.User, c.Password)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatalf("%s %s: %d, not JSON: %v", method, path, resp.StatusCode, err)
		}
		return resp, m
	}
	// Read by the idempotency layer and by keepBody (signed-retry routes): 413.
	for _, tc := range []struct {
		method, path string
		headers      []string
	}{
		{"POST", "/tokens", []string{"Idempotency-Key", "chunked-1"}},
		{"PATCH", "/customers/Customer:0190a000-0000-7000-8000-000000000001", nil},
	} {
		resp, m := send(tc.method, tc.path, tc.headers...)
		if resp.StatusCode != 413 || m["code"] != "PAYLOAD_TOO_LARGE" || m["status"] != 413.0 {
			t.Errorf("%s %s: %d %v", tc.method, tc.path, resp.StatusCode, m)
		}
		if !resp.Close {
			t.Errorf("%s %s: connection kept open after a body cut at the limit", tc.method, tc.path)
		}
	}
	// Read by ReadJSON: 413 as well.
	resp, m := send("POST", "/tokens")
	if resp.StatusCode != 413 || m["code"] != "PAYLOAD_TOO_LARGE" {
		t.Errorf("POST /tokens (ReadJSON): %d %v", resp.StatusCode, m)
	}
}

func TestOperationalEndpoints(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client("", "")
	c.BaseURL = e.srv.URL
	if r := c.Do("GET", "/healthz", nil); r.Status != 200 {
		t.Fatalf("healthz: %d", r.Status)
	}
	r := c.Do("GET", "/openapi.yaml", nil)
	if r.Status != 200 || !strings.Contains(string(r.Body), "openapi: 3.1") {
		t.Fatalf("openapi: %d %.80s", r.Status, r.Body)
	}
	// Requests are counted by route pattern and status.
	p, _ := e.platform(true)
	p.Do("GET", "/tokens/Token:0190a000-0000-7000-8000-000000000001", nil)
	// Metrics are served by their own listener (NewMetricsServer), not on the API port.
	if r := (&apitest.Client{T: t, BaseURL: e.srv.URL, SkipValidation: true}).Do("GET", "/metrics", nil); r.Status != 404 {
		t.Fatalf("/metrics on the API port: %d", r.Status)
	}
	ms := httptest.NewServer(api.NewMetricsServer(e.cfg, e.api.MetricsHandler()).Handler)
	defer ms.Close()
	m := (&apitest.Client{T: t, BaseURL: ms.URL, SkipValidation: true}).Do("GET", "/metrics", nil)
	if m.Status != 200 {
		t.Fatalf("metrics listener: %d", m.Status)
	}
	if r := (&apitest.Client{T: t, BaseURL: ms.URL, SkipValidation: true}).Do("GET", "/healthz", nil); r.Status != 404 {
		t.Fatalf("the metrics listener serves more than /metrics: %d", r.Status)
	}
	want := `paycore_http_requests_total{method="GET",route="/api/2025-10-13/tokens/{tokenId}",status="404"} 1`
	if !strings.Contains(string(m.Body), want) {
		t.Fatalf("metrics lack %s", want)
	}
	if !strings.Contains(string(m.Body), "paycore_http_request_duration_seconds_bucket") {
		t.Fatal("no latency histogram")
	}
}
