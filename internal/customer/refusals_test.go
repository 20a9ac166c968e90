package customer

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
		{"PlatformCustomerIDTaken", PlatformCustomerIDTaken(), problem.Wire{Code: catalog.PlatformCustomerIDExists, Message: "another customer of the platform already has this platformCustomerId"}},
		{"UmaAddressTaken", UmaAddressTaken(), problem.Wire{Code: catalog.UmaAddressExists, Message: "another customer already has this umaAddress (addresses are unique on the deployment, a deleted customer's included)"}},
	} {
		got, ok := problem.ToWire(tc.err)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
