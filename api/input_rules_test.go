package api_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/pb33f/libopenapi"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"paycore/api"
	"paycore/internal/infra/config"
)

// documentOperations maps "METHOD /path" of the OpenAPI document to its operation and the
// parameters of its path item.
func documentOperations(t *testing.T) map[string]struct {
	op     *v3.Operation
	params []*v3.Parameter
} {
	t.Helper()
	doc, err := libopenapi.NewDocument(api.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	model, errs := doc.BuildV3Model()
	if errs != nil {
		t.Fatal(errs)
	}
	out := map[string]struct {
		op     *v3.Operation
		params []*v3.Parameter
	}{}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			params := append(append([]*v3.Parameter{}, item.Parameters...), op.Parameters...)
			out[strings.ToUpper(method)+" "+path] = struct {
				op     *v3.Operation
				params []*v3.Parameter
			}{op, params}
		}
	}
	return out
}

// Every route the router serves applies the same input rules, before it does anything:
// a query parameter its operation does not declare, a malformed query string, a declared
// parameter given twice, and a body on an operation that takes none are 400; a body in
// another charset than UTF-8 is 415.
func TestEveryRouteAppliesInputRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	raw := *c
	raw.SkipValidation = true
	raw.BaseURL = e.srv.URL
	ops := documentOperations(t)
	base := e.cfg.BasePath()
	expect := func(what string, r resp, status int) {
		t.Helper()
		var env struct {
			Status  int
			Code    string
			Message string
		}
		if r.s != status || json.Unmarshal(r.b, &env) != nil || env.Status != status || env.Message == "" {
			t.Errorf("%s: %d %.300s, want %d in the error envelope", what, r.s, r.b, status)
		}
	}
	routes := 0
	err := chi.Walk(e.api.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		docPath := strings.TrimSuffix(route, "/")
		if strings.HasPrefix(docPath, base+"/") {
			docPath = strings.TrimPrefix(docPath, base)
		}
		o, ok := ops[method+" "+docPath]
		if !ok {
			t.Errorf("%s %s is not in the document", method, route)
			return nil
		}
		routes++
		path := route
		for _, p := range o.params {
			if p.In == "path" {
				path = strings.ReplaceAll(path, "{"+p.Name+"}", "Thing:0190a000-0000-7000-8000-000000000001")
			}
		}
		send := func(target string, body any, headers ...string) resp {
			t.Helper()
			r := raw.Do(method, target, body, headers...)
			return resp{r.Status, r.Body}
		}
		expect(method+" "+route+" unknown parameter", send(path+"?zzUnknown=1", nil), 400)
		if method == http.MethodGet {
			if r := raw.Do("HEAD", path+"?zzUnknown=1", nil); r.Status != 400 {
				t.Errorf("HEAD %s unknown parameter: %d", route, r.Status)
			}
		}
		expect(method+" "+route+" malformed name", send(path+"?%ZZ=1", nil), 400)
		expect(method+" "+route+" malformed value", send(path+"?a=%ZZ", nil), 400)
		for _, p := range o.params {
			if p.In != "query" || (p.Schema != nil && len(p.Schema.Schema().Type) > 0 && p.Schema.Schema().Type[0] == "array") {
				continue
			}
			expect(method+" "+route+" repeated "+p.Name, send(path+"?"+p.Name+"=a&"+p.Name+"=b", nil), 400)
		}
		if o.op.RequestBody == nil {
			expect(method+" "+route+" NUL body", send(path, "\x00"), 400)
			expect(method+" "+route+" invalid UTF-8 body", send(path, "\xff\xfe"), 400)
			expect(method+" "+route+" JSON body", send(path, `{}`), 400)
		} else {
			for mt := range o.op.RequestBody.Content.KeysFromOldest() {
				ct := mt + "; charset=latin1"
				if strings.HasPrefix(mt, "multipart/") {
					ct = mt + "; boundary=x; charset=latin1"
				}
				expect(method+" "+route+" "+ct, send(path, "{}", "Content-Type", ct), 415)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if routes < 100 {
		t.Fatalf("walked only %d routes", routes)
	}
	// Declared parameters still work, and an array parameter may repeat.
	if r := c.Do("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&destinationCurrency=MXN", nil); r.Status != 200 {
		t.Fatalf("repeated array parameter: %d %s", r.Status, r.Body)
	}
	if r := c.Do("PATCH", "/config", `{}`, "Content-Type", "application/json; charset=UTF-8"); r.Status != 200 {
		t.Fatalf("charset=UTF-8: %d %s", r.Status, r.Body)
	}
}

// resp is a status and body.
type resp struct {
	s int
	b []byte
}

// A JSON null where the body must be an object is refused, not read as an empty patch.
func TestNullBodyIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	expectError(t, c.Do("PATCH", "/config", `null`), 400, "INVALID_INPUT")
	expectError(t, c.Do("PATCH", "/config", " null\n"), 400, "INVALID_INPUT")
}

// An empty string removes the webhook endpoint (and an empty proxyUmaSubdomain clears it),
// as the document says; events raised afterwards are stored and not delivered.
func TestConfigRemovesWebhookEndpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.SandboxPrivateOK = true })
	c, _ := e.platform(true)
	if r := c.Do("PATCH", "/config", map[string]any{"webhookEndpoint": "http://127.0.0.1:9/hooks", "proxyUmaSubdomain": "pay"}); r.Status != 200 {
		t.Fatalf("set: %d %s", r.Status, r.Body)
	}
	r := c.Do("PATCH", "/config", map[string]any{"webhookEndpoint": "", "proxyUmaSubdomain": ""})
	if r.Status != 200 {
		t.Fatalf("remove: %d %s", r.Status, r.Body)
	}
	var got map[string]any
	c.Do("GET", "/config", nil).Decode(t, &got)
	if _, ok := got["webhookEndpoint"]; ok {
		t.Fatalf("webhookEndpoint still set: %v", got)
	}
	if _, ok := got["proxyUmaSubdomain"]; ok {
		t.Fatalf("proxyUmaSubdomain still set: %v", got)
	}
	// White space is not a way to remove it.
	expectError(t, c.Do("PATCH", "/config", map[string]any{"webhookEndpoint": "   "}), 400, "INVALID_INPUT")
	// With no endpoint a test send is refused clearly.
	expectError(t, c.Do("POST", "/webhooks/test", nil, "Idempotency-Key", "after-removal"), 400, "WEBHOOK_ENDPOINT_NOT_SET")
}

// A cursor whose position holds a NUL character (or anything a page never issued) is a
// 400 on every list, the one ordered by name included.
func TestCursorWithNULIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	for _, list := range []string{"uma-providers-desc", "uma-providers-asc"} {
		for _, pos := range []string{
			`{"n":"a\u0000b","id":"0190a000-0000-7000-8000-000000000001"}`,
			`{"n":"a","id":"0190a000-0000-7000-8000-000000000001","x":1}`,
			"{\"n\":\"a\xff\",\"id\":\"0190a000-0000-7000-8000-000000000001\"}",
		} {
			cur := base64.RawURLEncoding.EncodeToString([]byte(`{"l":"` + list + `","p":` + pos + `,"t":3}`))
			q := "/uma-providers?cursor=" + url.QueryEscape(cur)
			if strings.HasSuffix(list, "asc") {
				q += "&sortOrder=asc"
			}
			m := expectError(t, c.Do("GET", q, nil), 400, "INVALID_INPUT")
			if d, _ := m["details"].(map[string]any); d["field"] != "cursor" {
				t.Errorf("%s: %v", pos, m)
			}
		}
	}
}

// Transfer codings other than chunked are answered 501 in the error envelope, on every
// route, instead of net/http's plain text.
func TestUnsupportedTransferEncodingInEnvelope(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	srv := httptest.NewUnstartedServer(e.api)
	srv.Listener = api.EnvelopeListener(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)
	for _, target := range []string{"/healthz", e.cfg.BasePath() + "/config"} {
		for _, te := range []string{"identity", "gzip", "gzip, chunked"} {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(c.User+":"+c.Password))
			fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\nTransfer-Encoding: %s\r\n\r\n", target, auth, te)
			r, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(r.Body)
			conn.Close()
			var env struct {
				Status  int
				Code    string
				Message string
			}
			if r.StatusCode != 501 || r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &env) != nil ||
				env.Status != 501 || env.Code != "NOT_IMPLEMENTED" || env.Message == "" {
				t.Errorf("%s with Transfer-Encoding %s: %d %s %q", target, te, r.StatusCode, r.Header.Get("Content-Type"), body)
			}
		}
	}
}

// The Basic scheme name is case-insensitive (RFC 9110 §11.1), as Bearer's is.
func TestBasicSchemeIsCaseInsensitive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	creds := base64.StdEncoding.EncodeToString([]byte(c.User + ":" + c.Password))
	anon := anonymous(c)
	for _, scheme := range []string{"Basic", "basic", "BASIC", "bAsIc"} {
		for _, sep := range []string{" ", "  "} {
			if r := anon.Do("GET", "/config", nil, "Authorization", scheme+sep+creds); r.Status != 200 {
				t.Errorf("%q: %d %s", scheme+sep, r.Status, r.Body)
			}
		}
	}
	for _, bad := range []string{"Basics " + creds, "Basic", "Basic ", creds, "Bearer " + creds} {
		expectError(t, anon.Do("GET", "/config", nil, "Authorization", bad), 401, "UNAUTHORIZED")
	}
}
