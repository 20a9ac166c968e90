// Package cursor encodes keyset pagination positions as opaque strings. A cursor names the
// list it belongs to, so one list's cursor is refused by another.
package cursor

import (
	"encoding/base64"
	"encoding/json"
	"errors"
)

// ErrInvalid is returned for a cursor that was not produced by Encode for the same list.
var ErrInvalid = errors.New("cursor is not valid for this list")

type envelope struct {
	List string          `json:"l"`
	Pos  json.RawMessage `json:"p"`
}

// Encode turns a position (any JSON-encodable value) into an opaque cursor for list.
func Encode(list string, pos any) string {
	p, err := json.Marshal(pos)
	if err != nil {
		panic("cursor: position not encodable: " + err.Error()) // programmer error: positions are plain structs
	}
	b, _ := json.Marshal(envelope{List: list, Pos: p})
	return base64.RawURLEncoding.EncodeToString(b)
}

// Decode reads a cursor made by Encode for list into pos.
func Decode(list, s string, pos any) error {
	if len(s) > 1024 {
		return ErrInvalid
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return ErrInvalid
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil || env.List != list || len(env.Pos) == 0 {
		return ErrInvalid
	}
	if err := json.Unmarshal(env.Pos, pos); err != nil {
		return ErrInvalid
	}
	return nil
}
