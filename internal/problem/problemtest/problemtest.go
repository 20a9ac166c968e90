// Package problemtest checks, in tests, that refusals answer exactly their wire form.
package problemtest

import (
	"reflect"
	"testing"

	"paycore/internal/problem"
)

// Case is a refusal and the wire form (code, message, field, details) it must answer.
type Case struct {
	Name string
	Err  error
	Want problem.Wire
}

// Check fails t for every case whose refusal is no problem, or whose wire form differs
// from the one it wants in any way.
func Check(t testing.TB, cases ...Case) {
	t.Helper()
	for _, c := range cases {
		got, ok := problem.ToWire(c.Err)
		if !ok || !reflect.DeepEqual(got, c.Want) {
			t.Errorf("%s: %+v (a refusal: %v), want %+v", c.Name, got, ok, c.Want)
		}
	}
}
