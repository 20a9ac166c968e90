package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"paycore/api"
)

// badSegments are path and query values that must be refused (or simply not found), never
// answered with a 5xx.
var badSegments = []string{"%00", "%FF", "a%00b", "%C0%AF", "12345", "Customer:%00", "%E2%80%AE"}

// Every route of the OpenAPI document is driven with NUL characters, invalid UTF-8, bad
// escapes and wrong types in its path, query and body: no answer is a 5xx (the client
// fails the test on any 500) and every refusal is in the JSON error envelope.
func TestEveryRouteRefusesMalformedInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, true)
	raw := *c
	raw.SkipValidation = true
	// The agent's routes (/agents/me) are driven with a live agent's Bearer token holding
	// every permission, so that their decoding, not their authentication, answers.
	cust := newCustomer(t, c, "US", "USD")
	created := createAgent(t, c, cust.ID, map[string]any{"defaultExecutionMode": "AUTO",
		"permissions":    []string{"VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"},
		"spendingLimits": map[string]any{"currency": "USD", "perTransactionLimit": 1000}})
	var red redeemed
	anonymous(c).Do("POST", "/agents/device-codes/"+created.DeviceCode.Code+"/redeem", nil).Decode(t, &red)
	bearer := "Bearer " + red.AccessToken
	srv := httptest.NewUnstartedServer(e.api)
	srv.Listener = api.EnvelopeListener(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)

	doc, err := libopenapi.NewDocument(api.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	model, errs := doc.BuildV3Model()
	if errs != nil {
		t.Fatal(errs)
	}
	check := func(what string, status int, body []byte) {
		t.Helper()
		if status >= 500 {
			t.Errorf("%s answered %d: %s", what, status, body)
		}
		if status >= 400 && len(body) > 0 && !strings.HasPrefix(strings.TrimSpace(string(body)), "{") {
			t.Errorf("%s answered %d outside the envelope: %.200s", what, status, body)
		}
	}
	requests := 0
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			method = strings.ToUpper(method)
			params := append(append([]*v3.Parameter{}, item.Parameters...), op.Parameters...)
			var pathParams, queryParams []string
			for _, p := range params {
				switch p.In {
				case "path":
					pathParams = append(pathParams, p.Name)
				case "query":
					queryParams = append(queryParams, p.Name)
				}
			}
			fill := func(bad, value string) string {
				out := path
				for _, name := range pathParams {
					v := "Thing:0190a000-0000-7000-8000-000000000001"
					if name == bad {
						v = value
					}
					out = strings.ReplaceAll(out, "{"+name+"}", v)
				}
				return out
			}
			client := &raw
			if strings.HasPrefix(path, "/agents/me") {
				client = raw.With("", "")
			}
			send := func(p string, body any, headers ...string) {
				t.Helper()
				requests++
				if strings.HasPrefix(path, "/agents/me") {
					headers = append(headers, "Authorization", bearer)
				}
				r := client.Do(method, p, body, headers...)
				if strings.HasPrefix(path, "/agents/me") && r.Status == http.StatusUnauthorized {
					t.Errorf("%s %s: the agent's token was refused (%s), its input was not reached", method, p, r.Body)
				}
				check(method+" "+p, r.Status, r.Body)
			}
			// Path segments, including a bad escape that net/http itself refuses.
			for _, name := range pathParams {
				for _, v := range badSegments {
					send(fill(name, v), nil)
				}
				requests++
				resp, body := rawRequest(t, srv.Listener.Addr().String(), method, e.cfg.BasePath()+fill(name, "%ZZ"), c.User, c.Password)
				check(method+" bad escape in "+name, resp.StatusCode, body)
			}
			// Query parameters: bad values, a bad escape, a repeat, an unknown name.
			for _, name := range queryParams {
				for _, v := range append(badSegments, "%ZZ", "[]", "-1", "99999999999999999999", "1.5", "tru") {
					send(fill("", "")+"?"+name+"="+v, nil)
				}
				send(fill("", "")+"?"+name+"=a&"+name+"=b", nil)
			}
			send(fill("", "")+"?x=1;y=2", nil)
			// Bodies: the document's properties with NUL, invalid UTF-8 and wrong types.
			if op.RequestBody != nil {
				if mt, ok := op.RequestBody.Content.Get("application/json"); ok && mt.Schema != nil {
					for _, b := range badBodies(mt.Schema.Schema()) {
						send(fill("", ""), b)
					}
				}
				send(fill("", ""), `{"a": 1, "a": 2}`, "Idempotency-Key", "key\xff")
			}
		}
	}
	if requests < 500 {
		t.Fatalf("only %d requests sent: the document was not walked", requests)
	}
}

// badBodies derives malformed bodies from a request schema: each property in turn set to
// a NUL string, invalid UTF-8 and a value of the wrong type, nested one level deep.
func badBodies(s *base.Schema) []any {
	out := []any{`[]`, `"x"`, `null`, "{\"\xff\": 1}", `{"\u0000": 1}`}
	if s == nil || s.Properties == nil {
		return out
	}
	for name, prop := range s.Properties.FromOldest() {
		ps := prop.Schema()
		for _, v := range append([]string{`"a\u0000b"`, "\"\xff\xfe\"", `"   "`}, wrongTypes(ps)...) {
			out = append(out, fmt.Sprintf(`{%q: %s}`, name, v))
		}
		if ps != nil && ps.Properties != nil {
			for inner := range ps.Properties.FromOldest() {
				out = append(out, fmt.Sprintf(`{%q: {%q: "x\u0000"}}`, name, inner), fmt.Sprintf(`{%q: {%q: 1e400}}`, name, inner))
			}
		}
	}
	return out
}

func wrongTypes(s *base.Schema) []string {
	if s == nil || len(s.Type) == 0 {
		return []string{`{}`, `12`, `[]`}
	}
	switch s.Type[0] {
	case "string":
		return []string{`12`, `{}`, `["x"]`, `true`}
	case "integer":
		return []string{`"12"`, `1.5`, `99999999999999999999`, `-1`, `{}`}
	case "number":
		return []string{`"1"`, `[]`}
	case "boolean":
		return []string{`"true"`, `1`}
	case "array":
		return []string{`"x"`, `{}`, `[null]`, `[12]`, `["\u0000"]`}
	case "object":
		return []string{`"x"`, `[]`, `12`}
	}
	return []string{`{}`}
}
