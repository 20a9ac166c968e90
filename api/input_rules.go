package api

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
	"go.yaml.in/yaml/v3"

	"paycore/internal/catalog"
)

// operationInput is what one operation of the OpenAPI document takes besides its path:
// the query parameters it declares and whether it declares a request body. The document
// is the one declaration; the router serves nothing it does not describe
// (TestOpenAPIDocumentsEveryRoute).
type operationInput struct {
	// query lists the declared query parameters in the document's order.
	query []string
	// repeatable are the array parameters (?p=a&p=b); any other may be given once.
	repeatable map[string]bool
	// body is set when the operation declares a request body.
	body bool
	// unrouted marks a request no route serves: the router answers it (404, 405).
	unrouted bool
}

// operationInputs is the input of every operation of the embedded document, keyed
// "METHOD /path" as the document writes it; it is read once, when the program starts.
var operationInputs = func() map[string]operationInput {
	m, err := parseOperationInputs(openAPIDoc)
	if err != nil {
		panic("api: the embedded OpenAPI document: " + err.Error()) // the document is part of the binary
	}
	return m
}()

type docParameter struct {
	Ref    string `yaml:"$ref"`
	Name   string `yaml:"name"`
	In     string `yaml:"in"`
	Schema struct {
		Type any `yaml:"type"` // "array", or a list of types in OpenAPI 3.1
	} `yaml:"schema"`
}

type docOperation struct {
	Parameters  []docParameter `yaml:"parameters"`
	RequestBody any            `yaml:"requestBody"`
}

func parseOperationInputs(doc []byte) (map[string]operationInput, error) {
	var d struct {
		Paths      map[string]map[string]yaml.Node `yaml:"paths"`
		Components struct {
			Parameters map[string]docParameter `yaml:"parameters"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	resolve := func(ps []docParameter) ([]docParameter, error) {
		out := make([]docParameter, 0, len(ps))
		for _, p := range ps {
			if p.Ref != "" {
				name, ok := strings.CutPrefix(p.Ref, "#/components/parameters/")
				ref, found := d.Components.Parameters[name]
				if !ok || !found {
					return nil, fmt.Errorf("unresolved parameter %s", p.Ref)
				}
				p = ref
			}
			out = append(out, p)
		}
		return out, nil
	}
	out := map[string]operationInput{}
	for path, item := range d.Paths {
		var shared []docParameter
		if n, ok := item["parameters"]; ok {
			if err := n.Decode(&shared); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		for key, n := range item {
			method := strings.ToUpper(key)
			if !slices.Contains(routeMethods, method) {
				continue
			}
			var op docOperation
			if err := n.Decode(&op); err != nil {
				return nil, fmt.Errorf("%s %s: %w", method, path, err)
			}
			params, err := resolve(append(slices.Clone(shared), op.Parameters...))
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", method, path, err)
			}
			in := operationInput{repeatable: map[string]bool{}, body: op.RequestBody != nil}
			for _, p := range params {
				if p.In != "query" {
					continue
				}
				in.query = append(in.query, p.Name)
				if t, _ := p.Schema.Type.(string); t == "array" {
					in.repeatable[p.Name] = true
				}
				if ts, ok := p.Schema.Type.([]any); ok && slices.Contains(ts, any("array")) {
					in.repeatable[p.Name] = true
				}
			}
			out[method+" "+path] = in
		}
	}
	return out, nil
}

// operationOf is the input of the operation the router serves r with (HEAD is GET's):
// the zero operationInput (no parameters, no body) for an operation the document lacks,
// and one marked unrouted when no route serves r (the router answers 404 or 405).
func (s *Server) operationOf(r *http.Request) operationInput {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	path := r.URL.Path
	if r.URL.RawPath != "" {
		path = r.URL.RawPath // what the router matches
	}
	pattern := s.router.Find(chi.NewRouteContext(), method, path)
	if pattern == "" {
		return operationInput{unrouted: true}
	}
	pattern = strings.TrimSuffix(pattern, "/")
	if base := s.Config.BasePath(); strings.HasPrefix(pattern, base+"/") {
		pattern = strings.TrimPrefix(pattern, base)
	}
	// Every route the router serves is in the document (TestOpenAPIDocumentsEveryRoute).
	return operationInputs[method+" "+pattern]
}

// check applies the operation's rules to a request whose query string parsed to values:
// every query parameter is one the operation declares, given once unless it is an array;
// an operation without a request body gets none; a body is UTF-8 (a Content-Type naming
// another charset is 415).
func (in operationInput) check(r *http.Request, values url.Values) error {
	if in.unrouted {
		return nil
	}
	if err := in.checkQuery(values); err != nil {
		return err
	}
	return in.checkBody(r)
}

func (in operationInput) checkQuery(values url.Values) *Error {
	for _, name := range sortedKeys(values) {
		switch {
		case !slices.Contains(in.query, name) && len(in.query) == 0:
			return invalidField(name, "unknown query parameter %q: this operation takes no query parameters", name)
		case !slices.Contains(in.query, name):
			return invalidField(name, "unknown query parameter %q (allowed: %s)", name, strings.Join(in.query, ", "))
		case len(values[name]) > 1 && !in.repeatable[name]:
			return invalidField(name, "query parameter %s is given more than once", name)
		}
	}
	return nil
}

// checkBody refuses a body sent to an operation that takes none (the rest of the chain then
// reads an empty body) and a declared charset other than UTF-8 on one that takes a body.
func (in operationInput) checkBody(r *http.Request) error {
	if !in.body {
		if r.ContentLength == 0 {
			return nil
		}
		var one [1]byte
		n, err := io.ReadFull(r.Body, one[:])
		if n > 0 {
			return invalid("this operation takes no request body")
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return bodyReadError(err)
		}
		r.Body = http.NoBody
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	_, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return &Error{Status: http.StatusUnsupportedMediaType, Code: catalog.InvalidInput, Message: "the Content-Type header could not be parsed"}
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return &Error{Status: http.StatusUnsupportedMediaType, Code: catalog.InvalidInput,
			Message: fmt.Sprintf("request bodies are read as UTF-8; charset=%s is not supported", cs)}
	}
	return nil
}
