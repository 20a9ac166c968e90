package ids

import (
	"fmt"

	"github.com/google/uuid"
)

// Optional is a uuid that may be absent, for typed members of workflow inputs. Its text
// form is the uuid, or "" when absent: the form those members had when they were strings,
// so inputs recorded in workflow histories before decode unchanged.
type Optional uuid.NullUUID

// Some is the Optional holding id.
func Some(id uuid.UUID) Optional {
	return Optional{UUID: id, Valid: true}
}

// Null is o as the nullable uuid of the sqlc queries.
func (o Optional) Null() uuid.NullUUID {
	return uuid.NullUUID(o)
}

// MarshalText writes the uuid, or nothing when o is absent.
func (o Optional) MarshalText() ([]byte, error) {
	if !o.Valid {
		return []byte{}, nil
	}
	return o.UUID.MarshalText()
}

// UnmarshalText reads a uuid; "" is an absent one.
func (o *Optional) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*o = Optional{}
		return nil
	}
	id, err := uuid.ParseBytes(b)
	if err != nil {
		return fmt.Errorf("optional uuid %q: %w", b, err)
	}
	*o = Some(id)
	return nil
}
