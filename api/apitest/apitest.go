// Package apitest drives the API over HTTP the way a platform does, validating every
// response it receives against the served OpenAPI document. Both the api tests and the
// end-to-end tests use it.
package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"paycore/api"
)

var loadValidator = sync.OnceValues(func() (validator.Validator, error) {
	doc, err := libopenapi.NewDocument(api.OpenAPI())
	if err != nil {
		return nil, err
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return v, nil
})

var loadModel = sync.OnceValues(func() (*v3.Document, error) {
	doc, err := libopenapi.NewDocument(api.OpenAPI())
	if err != nil {
		return nil, err
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		return nil, err
	}
	return &m.Model, nil
})

// SchemaErrors validates payload against the document's component schema name (for
// bodies no response carries, such as webhook deliveries) and returns what does not
// match; none when it does.
func SchemaErrors(t testing.TB, name string, payload []byte) []string {
	t.Helper()
	m, err := loadModel()
	if err != nil {
		t.Fatalf("load OpenAPI document: %v", err)
	}
	proxy := m.Components.Schemas.GetOrZero(name)
	if proxy == nil {
		t.Fatalf("the document has no schema %s", name)
	}
	validateMu.Lock()
	ok, errs := schema_validation.NewSchemaValidator().ValidateSchemaBytes(proxy.Schema(), payload)
	validateMu.Unlock()
	if ok {
		return nil
	}
	var out []string
	for _, e := range errs {
		msg := e.Message + ": " + e.Reason
		for _, se := range e.SchemaValidationErrors {
			msg += "; " + se.FieldPath + " " + se.Reason
		}
		out = append(out, msg)
	}
	if len(out) == 0 {
		out = append(out, "does not match "+name)
	}
	return out
}

// Validator returns the OpenAPI validator of the embedded document.
func Validator(t testing.TB) validator.Validator {
	t.Helper()
	v, err := loadValidator()
	if err != nil {
		t.Fatalf("load OpenAPI document: %v", err)
	}
	return v
}

// Client calls the API with one set of Basic credentials.
type Client struct {
	T        testing.TB
	BaseURL  string // up to and including the version segment
	User     string
	Password string
	HTTP     *http.Client
	// SkipValidation turns off OpenAPI checks (for deliberately malformed requests the
	// validator cannot pair with an operation).
	SkipValidation bool
}

// Response is a fully read response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a map.
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// Decode decodes the body into v.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode response: %v: %s", err, r.Body)
	}
}

// Code returns the error envelope's code.
func (r *Response) Code(t testing.TB) string {
	t.Helper()
	m := r.JSON(t)
	s, _ := m["code"].(string)
	return s
}

// Field returns the error envelope's details.field.
func (r *Response) Field(t testing.TB) string {
	t.Helper()
	d, _ := r.JSON(t)["details"].(map[string]any)
	s, _ := d["field"].(string)
	return s
}

// With returns a copy of c using other credentials.
func (c *Client) With(user, password string) *Client {
	cp := *c
	cp.User, cp.Password = user, password
	return &cp
}

// Do sends a request. body may be nil, a string/[]byte (sent raw) or any value (JSON
// encoded). headers are name, value pairs.
func (c *Client) Do(method, path string, body any, headers ...string) *Response {
	c.T.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			c.T.Fatalf("encode request: %v", err)
		}
	}
	contentType := ""
	if body != nil {
		contentType = "application/json"
	}
	return c.send(method, path, bytes.NewReader(raw), raw, contentType, 60*time.Second, headers)
}

// send sends a request with body (raw, when known, is validated as the request body),
// Content-Type contentType (none when empty) and headers, and checks the answer against
// the document.
func (c *Client) send(method, path string, body io.Reader, raw []byte, contentType string, timeout time.Duration, headers []string) *Response {
	c.T.Helper()
	req, err := http.NewRequest(method, c.BaseURL+path, body)
	if err != nil {
		c.T.Fatalf("build request: %v", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.User != "" {
		req.SetBasicAuth(c.User, c.Password)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: timeout}
	}
	resp, err := hc.Do(req)
	if err != nil {
		c.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		c.T.Fatalf("read response: %v", err)
	}
	if resp.StatusCode == http.StatusInternalServerError {
		c.T.Errorf("%s %s answered %d: %s", method, path, resp.StatusCode, out)
	}
	if !c.SkipValidation {
		c.validate(method, path, raw, resp, out)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: out}
}

// validateMu serializes validations: the validator renders the document's schemas in
// place while it validates, which races when parallel tests or concurrent clients
// validate at the same time (reported by the race detector).
var validateMu sync.Mutex

func (c *Client) validate(method, path string, reqBody []byte, resp *http.Response, body []byte) {
	c.T.Helper()
	v := Validator(c.T)
	req, _ := http.NewRequest(method, c.BaseURL+path, bytes.NewReader(reqBody))
	if len(reqBody) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	validateMu.Lock()
	ok, errs := v.ValidateHttpResponse(req, resp)
	validateMu.Unlock()
	c.peerValidate(method, path, reqBody, resp, body)
	if !ok {
		for _, e := range errs {
			msg := e.Message + ": " + e.Reason
			for _, se := range e.SchemaValidationErrors {
				msg += "; " + se.FieldPath + " " + se.Reason
			}
			c.T.Errorf("OpenAPI: %s %s → %d does not match the document: %s\nbody: %s", method, path, resp.StatusCode, msg, body)
		}
	}
}

// Chromium finds Debian's Chromium for the tests that drive a real browser. CI installs
// it (.ci/run); elsewhere a test without it is skipped with a note, but never in CI.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is required in CI (apt-get install chromium)")
	}
	t.Skip("chromium not installed: apt-get install chromium to run the browser tests")
	return ""
}

// Upload sends a multipart/form-data POST with one part named field: a file called
// filename of type contentType (no Content-Type when empty) whose bytes are read from body
// as the request is sent, so a large file is never held in memory. The answer is checked
// against the document like Do's.
func (c *Client) Upload(path, field, filename, contentType string, body io.Reader, headers ...string) *Response {
	c.T.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, field, filename))
		if contentType != "" {
			h.Set("Content-Type", contentType)
		}
		part, err := mw.CreatePart(h)
		if err == nil {
			_, err = io.Copy(part, body)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	return c.Stream(http.MethodPost, path, mw.FormDataContentType(), pr, headers...)
}

// Stream sends a request whose body is read from body while it is sent (chunked), with
// Content-Type contentType. The answer is checked against the document like Do's.
func (c *Client) Stream(method, path, contentType string, body io.Reader, headers ...string) *Response {
	c.T.Helper()
	return c.send(method, path, body, nil, contentType, 10*time.Minute, headers)
}
