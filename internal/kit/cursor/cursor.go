// Package cursor encodes keyset pagination positions as opaque strings. A cursor names the
// list it belongs to, so one list's cursor is refused by another.
package cursor

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// ErrInvalid is returned for a cursor that was not produced by Encode for the same list.
var ErrInvalid = errors.New("cursor is not valid for this list")

type envelope struct {
	List  string          `json:"l"`
	Pos   json.RawMessage `json:"p"`
	Total *int64          `json:"t,omitempty"`
}

// Encode turns a position (any JSON-encodable value) into an opaque cursor for list.
func Encode(list string, pos any) string {
	return encode(envelope{List: list}, pos)
}

// EncodePage is Encode for a page of a counted list: the cursor also carries total, the
// number of matches counted for the first page, so later pages need not count again.
func EncodePage(list string, pos any, total int64) string {
	return encode(envelope{List: list, Total: &total}, pos)
}

func encode(env envelope, pos any) string {
	p, err := json.Marshal(pos)
	if err != nil {
		panic("cursor: position not encodable: " + err.Error()) // programmer error: positions are plain structs
	}
	env.Pos = p
	b, _ := json.Marshal(env)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Decode reads a cursor made by Encode (or EncodePage) for list into pos.
func Decode(list, s string, pos any) error {
	_, err := DecodePage(list, s, pos)
	return err
}

// DecodePage reads a cursor made by EncodePage (or Encode) for list into pos and returns the
// total it carries, nil when it carries none. It is the one decoder of every list's
// cursor (api's serveList).
func DecodePage(list, s string, pos any) (*int64, error) {
	if len(s) > 1024 {
		return nil, ErrInvalid
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrInvalid
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil || env.List != list || len(env.Pos) == 0 || (env.Total != nil && *env.Total < 0) {
		return nil, ErrInvalid
	}
	if err := json.Unmarshal(env.Pos, pos); err != nil {
		return nil, ErrInvalid
	}
	// A cursor is client input that reaches the database as a position: it must be
	// exactly what encode writes for that position (no unknown members, no text that
	// decoding had to repair, such as invalid UTF-8), and its text holds no NUL character,
	// which PostgreSQL's text refuses.
	if encode(envelope{List: list, Total: env.Total}, pos) != s || holdsNUL(env.Pos) {
		return nil, ErrInvalid
	}
	return env.Total, nil
}

// holdsNUL reports whether a JSON value has a NUL character in any string.
func holdsNUL(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return true
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case string:
			return strings.ContainsRune(v, 0)
		case []any:
			return slices.ContainsFunc(v, walk)
		case map[string]any:
			for k, e := range v {
				if strings.ContainsRune(k, 0) || walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
