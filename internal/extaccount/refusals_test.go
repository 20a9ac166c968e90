package extaccount

import (
	"reflect"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// The refusals are answered byte for byte as before they moved here.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want problem.Wire
	}{
		{"Exists", Exists(), problem.Wire{Code: catalog.ExternalAccountExists, Message: "this account is already registered for the same owner"}},
		{"NotFound", NotFound(), problem.Wire{Code: catalog.ExternalAccountNotFound, Message: "external account not found"}},
	} {
		got, ok := problem.ToWire(tc.err)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
