// Package strictjson is the one decoder of request JSON. It accepts exactly one JSON value
// and refuses, naming the field: malformed JSON, duplicate member names, invalid UTF-8, a
// NUL character in any string (member names included), null where the Go type is an
// object, members the Go type does not declare (names match exactly, case included),
// values of the wrong type, and blank strings (empty or only white space) unless the
// field is tagged `blank:"ok"`.
//
// Decoding happens before any side effect, so a refused request writes nothing.
package strictjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Error is a refused document. Field is the dotted path of the offending member
// ("source.accountId", "currencies[2]"), empty when the document as a whole is at fault.
type Error struct {
	Field   string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Decode decodes data into v, which must be a non-nil pointer.
func Decode(data []byte, v any) error { return DecodeAt("", data, v) }

// DecodeAt decodes a member of a request body that was kept raw for a second step (at
// path, e.g. "assertion"); refusals name the member's full path ("assertion.signature").
func DecodeAt(path string, data []byte, v any) error {
	if err := scan(path, data); err != nil {
		return err
	}
	if err := checkNullObject(path, data, v); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v, json.RejectUnknownMembers(true)); err != nil {
		return semanticError(path, err)
	}
	return checkBlank(reflect.ValueOf(v), path)
}

// checkNullObject refuses a JSON null decoded into an object (a struct or a map), which
// decoding would otherwise leave as it is: a null body is not an empty one.
func checkNullObject(path string, data []byte, v any) error {
	if string(bytes.TrimSpace(data)) != "null" {
		return nil
	}
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || (t.Kind() != reflect.Struct && t.Kind() != reflect.Map) {
		return nil
	}
	return &Error{Field: path, Message: fmt.Sprintf("%s must be a JSON object, not null", fieldOrBody(path))}
}

func scan(root string, data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		if root != "" {
			return &Error{Field: root, Message: fmt.Sprintf("field %s must be a JSON value", root)}
		}
		return &Error{Message: "request body is required (a JSON object)"}
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return syntaxError(root, err)
		}
		if tok.Kind() == '"' && strings.ContainsRune(tok.String(), 0) {
			ptr := dec.StackPointer()
			if kind, n := dec.StackIndex(dec.StackDepth()); kind == '{' && n%2 == 1 {
				// A member name (names and values alternate in an object).
				f := pointerPath(root, ptr.Parent())
				return &Error{Field: f, Message: fmt.Sprintf("a member name in %s contains a NUL character", fieldOrBody(f))}
			}
			f := pointerPath(root, ptr)
			return &Error{Field: f, Message: fmt.Sprintf("%s must not contain a NUL character", fieldOrBody(f))}
		}
		if dec.StackDepth() == 0 {
			// One top-level value read: only white space may follow.
			if _, err := dec.ReadToken(); err != io.EOF {
				return &Error{Message: "request body must hold exactly one JSON value"}
			}
			return nil
		}
	}
}

func fieldOrBody(f string) string {
	if f == "" {
		return "the request body"
	}
	return "field " + f
}

func syntaxError(root string, err error) error {
	var syn *jsontext.SyntacticError
	if !errors.As(err, &syn) {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return &Error{Message: "malformed JSON: unexpected end of body"}
		}
		return &Error{Message: "malformed JSON"}
	}
	f := pointerPath(root, syn.JSONPointer)
	switch {
	case errors.Is(syn.Err, jsontext.ErrDuplicateName):
		name := lastToken(syn.JSONPointer)
		return &Error{Field: f, Message: fmt.Sprintf("duplicate field %q", name)}
	case strings.Contains(syn.Error(), "invalid UTF-8"):
		return &Error{Field: f, Message: fmt.Sprintf("%s holds invalid UTF-8", fieldOrBody(f))}
	case errors.Is(syn.Err, io.ErrUnexpectedEOF):
		return &Error{Message: "malformed JSON: unexpected end of body"}
	}
	return &Error{Message: fmt.Sprintf("malformed JSON at byte %d: %s", syn.ByteOffset, describe(syn.Err))}
}

// describe words a syntax error without the library's prefix.
func describe(err error) string {
	if err == nil {
		return "invalid syntax"
	}
	s := err.Error()
	s = strings.TrimPrefix(s, "jsontext: ")
	return s
}

func semanticError(root string, err error) error {
	var sem *json.SemanticError
	if !errors.As(err, &sem) {
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) {
			return syntaxError(root, err)
		}
		return &Error{Message: "malformed JSON"}
	}
	f := pointerPath(root, sem.JSONPointer)
	if errors.Is(sem.Err, json.ErrUnknownName) {
		return &Error{Field: f, Message: fmt.Sprintf("unknown field %q", lastToken(sem.JSONPointer))}
	}
	var fe *Error
	if errors.As(sem.Err, &fe) {
		if fe.Field == "" {
			fe.Field = f
		}
		return fe
	}
	want := "of another type"
	if sem.GoType != nil {
		want = typeName(sem.GoType)
	}
	got := kindName(sem.JSONKind)
	if f == "" {
		return &Error{Message: fmt.Sprintf("request body must be %s, not %s", want, got)}
	}
	if sem.JSONKind == '0' && strings.HasPrefix(want, "an integer") {
		return &Error{Field: f, Message: fmt.Sprintf("field %s must be an integer within range (got %s)", f, sem.JSONValue)}
	}
	return &Error{Field: f, Message: fmt.Sprintf("field %s must be %s, not %s", f, want, got)}
}

func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a JSON value"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "another type"
}

// pointerPath renders a JSON pointer below root as a dotted path: /a/b/0 → root.a.b[0].
func pointerPath(root string, p jsontext.Pointer) string {
	var b strings.Builder
	b.WriteString(root)
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func lastToken(p jsontext.Pointer) string {
	last := ""
	for tok := range p.Tokens() {
		last = tok
	}
	return last
}

// checkBlank refuses strings that are empty or only white space, walking structs,
// pointers, slices and arrays; a struct field tagged `blank:"ok"` may be blank.
func checkBlank(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkBlank(v.Elem(), path)
	case reflect.String:
		if strings.TrimFunc(v.String(), unicode.IsSpace) == "" {
			return &Error{Field: path, Message: fmt.Sprintf("%s must not be blank", fieldOrBody(path))}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // raw JSON, decoded and checked by its own reader
		}
		for i := range v.Len() {
			if err := checkBlank(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Tag.Get("blank") == "ok" {
				continue
			}
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			child := path
			if !sf.Anonymous || name != "" {
				if name == "" {
					name = sf.Name
				}
				if child != "" {
					child += "."
				}
				child += name
			}
			if err := checkBlank(v.Field(i), child); err != nil {
				return err
			}
		}
	}
	return nil
}

// ValidText reports whether s may be stored as text: valid UTF-8 without NUL characters.
// Query parameters, path segments and headers are checked with it.
func ValidText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}
