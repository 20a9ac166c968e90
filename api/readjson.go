package api

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"paycore/internal/kit/strictjson"

	"paycore/internal/catalog"
)

// ReadJSON decodes the request body into a T with the one request decoder
// (internal/kit/strictjson): one JSON value, exact member names, no duplicates, no unknown
// fields, valid UTF-8 without NUL characters, types as declared, no blank strings where a
// value is given. Every failure is a 4xx that names the field.
func ReadJSON[T any](r *http.Request) (T, error) {
	var v T
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return v, &Error{Status: http.StatusUnsupportedMediaType, Code: catalog.InvalidInput, Message: "Content-Type must be application/json"}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return v, bodyReadError(err)
	}
	return v, decodeStrict(body, &v)
}

// decodeStrict decodes a JSON document (a request body or a part of one) into v.
func decodeStrict(body []byte, v any) error {
	if err := strictjson.Decode(body, v); err != nil {
		return jsonError(err)
	}
	return nil
}

// jsonError renders a decoding refusal as a 400 naming the field.
func jsonError(err error) error {
	var e *strictjson.Error
	if !errors.As(err, &e) {
		return invalid("malformed JSON")
	}
	if e.Field == "" {
		return invalid("%s", e.Message)
	}
	return invalidField(e.Field, "%s", e.Message)
}

// decodeStrictAt decodes a member of a request body that was kept raw for a second step
// (at path, e.g. "assertion"); refusals name the member's full path.
func decodeStrictAt(path string, raw []byte, v any) error {
	if err := strictjson.DecodeAt(path, raw, v); err != nil {
		return jsonError(err)
	}
	return nil
}
