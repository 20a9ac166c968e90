package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

func runManifests(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("manifests", flag.ContinueOnError)
	schemas := fs.String("schemas", "", "the api/openapi-spec/v3 folder of the k8s.io/kubernetes module (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *schemas == "" {
		return errors.New("manifests: -schemas is required")
	}
	v := newValidator(*schemas)
	var docs []document
	if fs.NArg() == 0 {
		d, err := readDocuments("<stdin>", stdin)
		if err != nil {
			return err
		}
		docs = d
	}
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("manifests: %w", err)
		}
		d, err := readDocuments(name, f)
		f.Close()
		if err != nil {
			return err
		}
		docs = append(docs, d...)
	}
	if len(docs) == 0 {
		return errors.New("manifests: no documents to validate")
	}
	problems := v.validateAll(docs)
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d of %d manifests invalid", countInvalid(problems), len(docs))
	}
	fmt.Fprintf(stdout, "%d manifests valid against the schemas of %s\n", len(docs), filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Clean(*schemas))))))
	return nil
}

// problem is one invalid document and why.
type problem struct {
	doc document
	err error
}

func (p problem) String() string {
	return fmt.Sprintf("INVALID %s (%s):\n%v", p.doc.describe(), p.doc.source, p.err)
}

func countInvalid(ps []problem) int {
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p.doc.source+"\x00"+p.doc.describe()] = true
	}
	return len(seen)
}

// document is one YAML document of a manifest stream.
type document struct {
	source string // the file, or the template helm names in its "# Source:" comment
	value  any    // the document as JSON values (map[string]any, []any, string, json.Number, bool, nil)
}

func (d document) field(name string) string {
	m, _ := d.value.(map[string]any)
	s, _ := m[name].(string)
	return s
}

func (d document) name() string {
	m, _ := d.value.(map[string]any)
	meta, _ := m["metadata"].(map[string]any)
	s, _ := meta["name"].(string)
	return s
}

func (d document) describe() string {
	return fmt.Sprintf("%s %s/%s", d.field("apiVersion"), d.field("kind"), d.name())
}

var sourceComment = regexp.MustCompile(`(?m)^#\s*Source:\s*(\S+)`)

// readDocuments splits a YAML stream into its non-empty documents.
func readDocuments(name string, r io.Reader) ([]document, error) {
	dec := yaml.NewDecoder(r)
	var docs []document
	for i := 1; ; i++ {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i, err)
		}
		if len(n.Content) == 0 || n.Content[0].Kind == yaml.ScalarNode && n.Content[0].Tag == "!!null" {
			continue // an empty document (a template that rendered nothing)
		}
		v, err := nodeValue(n.Content[0])
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i, err)
		}
		src := fmt.Sprintf("%s, document %d", name, i)
		comments := n.HeadComment + "\n" + n.Content[0].HeadComment
		if len(n.Content[0].Content) > 0 {
			comments += "\n" + n.Content[0].Content[0].HeadComment // yaml.v3 gives it to the first key
		}
		if m := sourceComment.FindStringSubmatch(comments); m != nil {
			src = m[1]
		}
		docs = append(docs, document{source: src, value: v})
	}
}

// yaml11Bools are the plain scalars YAML 1.1 (and so the Kubernetes API machinery's YAML
// reader) takes as booleans, beyond true and false.
var yaml11Bools = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false, "off": false, "Off": false, "OFF": false,
}

// nodeValue turns a YAML node into the value encoding/json would decode from the same
// document, numbers as json.Number.
func nodeValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return nodeValue(n.Alias)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				return nil, fmt.Errorf("line %d: merge keys (<<) are not supported", k.Line)
			}
			key, err := nodeValue(k)
			if err != nil {
				return nil, err
			}
			ks, ok := key.(string)
			if !ok {
				ks = fmt.Sprint(key) // the API machinery's reader turns scalar keys into strings
			}
			val, err := nodeValue(v)
			if err != nil {
				return nil, err
			}
			m[ks] = val
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := nodeValue(c)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		if n.Style == 0 { // plain and untagged in the source: resolved by the YAML 1.1 rules
			if b, ok := yaml11Bools[n.Value]; ok {
				return b, nil
			}
		}
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			return b, nil
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			return json.Number(strconv.FormatInt(i, 10)), nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		default:
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node kind %v", n.Line, n.Kind)
}

// validator validates documents against the OpenAPI v3 schemas of one group-version file
// each, loaded and compiled the first time a document of that group-version comes.
type validator struct {
	dir     string
	files   map[string]*gvFile // by apiVersion
	schemas map[string]*jsonschema.Schema
}

// gvFile is one group-version's OpenAPI document, with the schema of each kind.
type gvFile struct {
	compiler *jsonschema.Compiler
	url      string
	kinds    map[string]string // kind → schema name under components/schemas
}

func newValidator(dir string) *validator {
	return &validator{dir: dir, files: map[string]*gvFile{}, schemas: map[string]*jsonschema.Schema{}}
}

func (v *validator) validateAll(docs []document) []problem {
	var ps []problem
	seen := map[string]string{}
	for _, d := range docs {
		if err := v.validate(d); err != nil {
			ps = append(ps, problem{doc: d, err: err})
			continue
		}
		key := d.field("kind") + "/" + d.name()
		if prev, ok := seen[key]; ok {
			ps = append(ps, problem{doc: d, err: fmt.Errorf("a second %s named %q (the first is in %s)", d.field("kind"), d.name(), prev)})
		}
		seen[key] = d.source
	}
	return ps
}

func (v *validator) validate(d document) error {
	if _, ok := d.value.(map[string]any); !ok {
		return errors.New("not a YAML mapping")
	}
	apiVersion, kind := d.field("apiVersion"), d.field("kind")
	if apiVersion == "" || kind == "" {
		return errors.New("apiVersion and kind are required")
	}
	if d.name() == "" {
		return errors.New("metadata.name is required")
	}
	sch, err := v.schema(apiVersion, kind)
	if err != nil {
		return err
	}
	return sch.Validate(d.value)
}

// schema returns the compiled schema of apiVersion's kind.
func (v *validator) schema(apiVersion, kind string) (*jsonschema.Schema, error) {
	key := apiVersion + " " + kind
	if s, ok := v.schemas[key]; ok {
		return s, nil
	}
	f, err := v.file(apiVersion)
	if err != nil {
		return nil, err
	}
	name, ok := f.kinds[kind]
	if !ok {
		return nil, fmt.Errorf("%s has no kind %s in the Kubernetes schemas", apiVersion, kind)
	}
	s, err := f.compiler.Compile(f.url + "#/components/schemas/" + name)
	if err != nil {
		return nil, fmt.Errorf("compiling the schema of %s: %w", key, err)
	}
	v.schemas[key] = s
	return s, nil
}

// file loads the OpenAPI document of apiVersion: api__v1_openapi.json for the core group's
// v1, apis__GROUP__VERSION_openapi.json for the others.
func (v *validator) file(apiVersion string) (*gvFile, error) {
	if f, ok := v.files[apiVersion]; ok {
		return f, nil
	}
	group, version, found := strings.Cut(apiVersion, "/")
	name := "api__" + apiVersion + "_openapi.json"
	if found {
		name = "apis__" + group + "__" + version + "_openapi.json"
	} else {
		group, version = "", apiVersion
	}
	path := filepath.Join(v.dir, name)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("apiVersion %s is not served by this Kubernetes version (no %s)", apiVersion, name)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the schemas: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	root, _ := doc.(map[string]any)
	components, _ := root["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	if len(schemas) == 0 {
		return nil, fmt.Errorf("%s: no components/schemas", path)
	}
	f := &gvFile{compiler: newCompiler(), url: "file://" + filepath.ToSlash(path), kinds: map[string]string{}}
	for sname, s := range schemas {
		strict(s)
		sm, _ := s.(map[string]any)
		gvks, _ := sm["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gm, _ := g.(map[string]any)
			if gm["group"] == group && gm["version"] == version {
				if k, _ := gm["kind"].(string); k != "" && !strings.HasPrefix(sname, "io.k8s.apimachinery.") {
					f.kinds[k] = sname
				}
			}
		}
	}
	// Only the schemas: the rest of the OpenAPI document (paths, info) is no JSON Schema.
	if err := f.compiler.AddResource(f.url, map[string]any{"components": map[string]any{"schemas": schemas}}); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	v.files[apiVersion] = f
	return f, nil
}

// strict makes every object schema that lists its properties refuse the others, as the
// API server's strict field validation does, except where the schema keeps unknown fields
// on purpose (x-kubernetes-preserve-unknown-fields) or says what other properties hold.
func strict(s any) {
	t, ok := s.(map[string]any)
	if !ok {
		return
	}
	if props, ok := t["properties"].(map[string]any); ok {
		_, has := t["additionalProperties"]
		if keep, _ := t["x-kubernetes-preserve-unknown-fields"].(bool); !has && !keep {
			t["additionalProperties"] = false
		}
		for _, c := range props {
			strict(c)
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		strict(t[k])
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := t[k].([]any)
		for _, c := range list {
			strict(c)
		}
	}
}

func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "byte", Validate: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return errors.New("not base64")
		}
		return nil
	}})
	for name, bits := range map[string]int{"int32": 32, "int64": 64} {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(v any) error {
			n, ok := v.(json.Number)
			if !ok {
				return nil
			}
			if _, err := strconv.ParseInt(string(n), 10, bits); err != nil {
				return fmt.Errorf("not an int%d", bits)
			}
			return nil
		}})
	}
	return c
}
