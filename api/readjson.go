package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ReadJSON decodes the request body into a T strictly: one JSON object, no unknown fields,
// types as declared. Every failure is a 400 that says what is wrong.
func ReadJSON[T any](r *http.Request) (T, error) {
	var v T
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return v, &Error{Status: http.StatusUnsupportedMediaType, Code: CodeInvalidInput, Message: "Content-Type must be application/json"}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return v, invalid("request body is larger than %d bytes", mbe.Limit)
		}
		return v, invalid("could not read request body: %v", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return v, invalid("request body is required (a JSON object)")
	}
	if err := decodeStrict(body, &v); err != nil {
		return v, err
	}
	return v, nil
}

func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return invalid("request body must hold exactly one JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalid("request body must hold exactly one JSON value")
	}
	return nil
}

func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return invalid("malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return invalid("request body must be a JSON object, not %s", typ.Value)
		}
		return invalidField(field, "field %s must be %s, not %s", field, jsonTypeName(typ.Type.String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return invalid("malformed JSON: unexpected end of body")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return invalidField(name, "unknown field %q", name)
	}
	return invalid("malformed JSON: %v", err)
}

func jsonTypeName(goType string) string {
	switch {
	case strings.Contains(goType, "int"):
		return "an integer"
	case strings.Contains(goType, "float"):
		return "a number"
	case goType == "string" || strings.HasSuffix(goType, "string"):
		return "a string"
	case goType == "bool" || strings.HasSuffix(goType, "bool"):
		return "a boolean"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map") || strings.Contains(goType, "struct") || strings.Contains(goType, "."):
		return "an object"
	}
	return fmt.Sprintf("of type %s", goType)
}
