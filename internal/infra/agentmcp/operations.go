// Package agentmcp is `paycore mcp`: a Model Context Protocol server whose tools are the
// operations an agent may call under /agents/me. Each tool's input schema is derived from the
// API document, and each call is the REST request it names, made with the agent's token.
package agentmcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Operation is one tool: an operation of the API document under /agents/me.
type Operation struct {
	Name        string // the operationId
	Description string
	Method      string
	Path        string // the path template under the API's base, e.g. /agents/me/quotes/{quoteId}
	PathParams  []string
	QueryParams []string
	// Idempotent operations take an Idempotency-Key: the tool's idempotencyKey argument, else
	// one made for the call.
	Idempotent bool
	// Body is whether the operation takes a JSON body (the tool's body argument).
	Body bool
	// InputSchema is the tool's arguments: an object of the path and query parameters, body
	// and idempotencyKey, with every schema it references in $defs.
	InputSchema json.RawMessage
}

// ReadOnly is whether the operation changes nothing.
func (o Operation) ReadOnly() bool { return o.Method == "GET" }

// agentPrefix selects the operations that are tools.
const agentPrefix = "/agents/me"

// Operations reads the tools from the API document (OpenAPI 3.1, YAML), sorted by name.
func Operations(doc []byte) ([]Operation, error) {
	var root map[string]any
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("read the API document: %w", err)
	}
	paths, _ := root["paths"].(map[string]any)
	components, _ := root["components"].(map[string]any)
	d := deriver{schemas: asMap(components["schemas"]), parameters: asMap(components["parameters"])}
	var ops []Operation
	for path, item := range paths {
		if path != agentPrefix && !strings.HasPrefix(path, agentPrefix+"/") {
			continue
		}
		for method, raw := range asMap(item) {
			op := asMap(raw)
			if op == nil || op["operationId"] == nil {
				continue
			}
			o, err := d.operation(strings.ToUpper(method), path, op, asSlice(asMap(item)["parameters"]))
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", strings.ToUpper(method), path, err)
			}
			ops = append(ops, o)
		}
	}
	if len(ops) == 0 {
		return nil, errors.New("the API document has no operation under " + agentPrefix)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].Name < ops[j].Name })
	return ops, nil
}

type deriver struct {
	schemas, parameters map[string]any
}

func (d deriver) operation(method, path string, op map[string]any, shared []any) (Operation, error) {
	o := Operation{Name: str(op["operationId"]), Method: method, Path: path}
	o.Description = strings.TrimSpace(str(op["summary"]) + ". " + str(op["description"]))
	props := map[string]any{}
	var required []string
	for _, p := range append(append([]any{}, shared...), asSlice(op["parameters"])...) {
		param, err := d.parameter(asMap(p))
		if err != nil {
			return o, err
		}
		name, in := str(param["name"]), str(param["in"])
		schema := withDescription(asMap(param["schema"]), str(param["description"]))
		switch in {
		case "path":
			o.PathParams = append(o.PathParams, name)
			props[name] = schema
			required = append(required, name)
		case "query":
			o.QueryParams = append(o.QueryParams, name)
			props[name] = schema
			if param["required"] == true {
				required = append(required, name)
			}
		case "header":
			if name == "Idempotency-Key" {
				o.Idempotent = true
				props["idempotencyKey"] = withDescription(schema, "Makes the call safe to repeat: a repeat with the same key never acts twice. One is made for each call when absent.")
			}
		}
	}
	if body := asMap(op["requestBody"]); body != nil {
		schema := asMap(asMap(asMap(body["content"])["application/json"])["schema"])
		if schema == nil {
			return o, errors.New("a request body that is not JSON")
		}
		o.Body = true
		props["body"] = withDescription(schema, "The request's JSON body.")
		if body["required"] == true {
			required = append(required, "body")
		}
	}
	input := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		sort.Strings(required)
		input["required"] = required
	}
	defs := map[string]any{}
	if err := d.collect(props, defs); err != nil {
		return o, err
	}
	if len(defs) > 0 {
		input["$defs"] = defs
	}
	raw, err := json.Marshal(rewrite(input))
	if err != nil {
		return o, fmt.Errorf("input schema: %w", err)
	}
	o.InputSchema = raw
	return o, nil
}

// parameter resolves a parameter's $ref (#/components/parameters/...).
func (d deriver) parameter(p map[string]any) (map[string]any, error) {
	ref := str(p["$ref"])
	if ref == "" {
		return p, nil
	}
	name, ok := strings.CutPrefix(ref, "#/components/parameters/")
	if !ok || d.parameters[name] == nil {
		return nil, fmt.Errorf("unknown parameter %s", ref)
	}
	return asMap(d.parameters[name]), nil
}

// collect copies into defs every component schema v references, transitively.
func (d deriver) collect(v any, defs map[string]any) error {
	switch t := v.(type) {
	case map[string]any:
		if ref := str(t["$ref"]); ref != "" {
			name, ok := strings.CutPrefix(ref, "#/components/schemas/")
			if !ok || d.schemas[name] == nil {
				return fmt.Errorf("unknown schema %s", ref)
			}
			if _, done := defs[name]; !done {
				defs[name] = d.schemas[name]
				if err := d.collect(d.schemas[name], defs); err != nil {
					return err
				}
			}
		}
		for k, x := range t {
			if k == "$ref" {
				continue
			}
			if err := d.collect(x, defs); err != nil {
				return err
			}
		}
	case []any:
		for _, x := range t {
			if err := d.collect(x, defs); err != nil {
				return err
			}
		}
	}
	return nil
}

// rewrite returns v with component references pointing into $defs and the keywords JSON
// Schema does not know (OpenAPI's discriminator, example) left out.
func rewrite(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			switch k {
			case "discriminator", "example", "xml", "externalDocs":
				continue
			case "$ref":
				out[k] = strings.Replace(str(x), "#/components/schemas/", "#/$defs/", 1)
				continue
			}
			out[k] = rewrite(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = rewrite(x)
		}
		return out
	}
	return v
}

func withDescription(schema map[string]any, description string) map[string]any {
	out := make(map[string]any, len(schema)+1)
	for k, v := range schema {
		out[k] = v
	}
	if description != "" {
		if _, has := out["description"]; !has {
			out["description"] = strings.TrimSpace(description)
		}
	}
	return out
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func asSlice(v any) []any { s, _ := v.([]any); return s }

func str(v any) string { s, _ := v.(string); return s }
