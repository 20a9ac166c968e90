package invitation

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
		{"ErrNotFound", ErrNotFound(), problem.Wire{Code: catalog.InvitationNotFound, Message: "invitation not found"}},
	} {
		got, ok := problem.ToWire(tc.err)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
