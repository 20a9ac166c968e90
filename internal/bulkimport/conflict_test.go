package bulkimport

import (
	"reflect"
	"testing"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

func TestHolder(t *testing.T) {
	jobID, platformID := uuid.New(), uuid.New()
	for _, tc := range []struct {
		name string
		c    Identity
		want string
	}{
		{"an earlier row's customer", Identity{ID: CustomerID(jobID, 7), PlatformID: platformID}, "the customer of row 7 of this file"},
		{"another customer of the platform", Identity{ID: uuid.New(), PlatformID: platformID}, "another customer of the platform"},
		{"a customer of another platform", Identity{ID: uuid.New(), PlatformID: uuid.New()}, "a customer of another platform"},
	} {
		if got := Holder(jobID, platformID, tc.c); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestConflict(t *testing.T) {
	jobID, platformID, other := uuid.New(), uuid.New(), uuid.New()
	want := Identity{ID: CustomerID(jobID, 3), PlatformID: platformID, PlatformCustomerID: "c-1", UmaAddress: "$ada@pay.example"}
	byID := Identity{ID: want.ID, PlatformID: platformID, PlatformCustomerID: "c-1", UmaAddress: "$ada@pay.example"}
	byPCID := Identity{ID: CustomerID(jobID, 2), PlatformID: platformID, PlatformCustomerID: "c-1", UmaAddress: "$bob@pay.example"}
	byPCIDElsewhere := Identity{ID: uuid.New(), PlatformID: other, PlatformCustomerID: "c-1", UmaAddress: "$carl@other.example"}
	byUma := Identity{ID: uuid.New(), PlatformID: other, PlatformCustomerID: "x-9", UmaAddress: "$ADA@pay.example"}
	pcid := problem.Wire{Code: catalog.PlatformCustomerIDExists, Field: ColPlatformCustomerID, Message: "the customer of row 2 of this file already has this platformCustomerId"}
	uma := problem.Wire{Code: catalog.UmaAddressExists, Field: ColUmaAddress, Message: "a customer of another platform already has this umaAddress"}
	for _, tc := range []struct {
		name      string
		taken     []Identity
		want      problem.Wire
		wantFound bool
	}{
		{"nothing taken", nil, problem.Wire{}, false},
		{"its own id: the customer exists, nothing refused", []Identity{byPCID, byID}, problem.Wire{}, true},
		{"its platformCustomerId", []Identity{byPCID}, pcid, true},
		{"the platformCustomerId before the umaAddress", []Identity{byUma, byPCID}, pcid, true},
		{"a platformCustomerId on another platform is no conflict", []Identity{byPCIDElsewhere}, problem.Wire{}, false},
		{"its umaAddress, whatever the case", []Identity{byPCIDElsewhere, byUma}, uma, true},
	} {
		found, err := Conflict(jobID, want, tc.taken)
		var got problem.Wire
		if err != nil {
			got, _ = problem.ToWire(err)
		}
		if found != tc.wantFound || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: (%+v, %v), want (%+v, %v)", tc.name, got, found, tc.want, tc.wantFound)
		}
	}
}

// A job the platform does not have is 404 BULK_UPLOAD_JOB_NOT_FOUND, as the API answered it.
func TestErrJobNotFound(t *testing.T) {
	problemtest.Check(t, problemtest.Case{Name: "ErrJobNotFound", Err: ErrJobNotFound(),
		Want: problem.Wire{Code: catalog.BulkUploadJobNotFound, Message: "bulk upload job not found"}})
}
