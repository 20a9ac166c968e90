package account

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
		{"CustomerAccountExists", CustomerAccountExists(), problem.Wire{Code: catalog.Conflict, Message: "the customer already has an open account of this currency and type"}},
		{"PlatformAccountExists", PlatformAccountExists(), problem.Wire{Code: catalog.Conflict, Message: "the platform already has an account of this currency and type"}},
		{"NotFound", NotFound(), problem.Wire{Code: catalog.AccountNotFound, Message: "internal account not found"}},
	} {
		got, ok := problem.ToWire(tc.err)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
