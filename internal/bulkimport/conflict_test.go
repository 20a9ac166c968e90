package bulkimport

import (
	"testing"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

func TestHolder(t *testing.T) {
	jobID, platformID := uuid.New(), uuid.New()
	for _, tc := range []struct {
		name string
		c    customer.Identifiers
		want string
	}{
		{"an earlier row's customer", customer.Identifiers{ID: CustomerID(jobID, 7), PlatformID: platformID}, "the customer of row 7 of this file"},
		{"another customer of the platform", customer.Identifiers{ID: uuid.New(), PlatformID: platformID}, "another customer of the platform"},
		{"a customer of another platform", customer.Identifiers{ID: uuid.New(), PlatformID: uuid.New()}, "a customer of another platform"},
	} {
		if got := Holder(jobID, platformID, tc.c); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A row the customer rules did not open is refused naming the identifier and its holder.
func TestTaken(t *testing.T) {
	jobID, platformID, other := uuid.New(), uuid.New(), uuid.New()
	earlierRow := customer.Identifiers{ID: CustomerID(jobID, 2), PlatformID: platformID, PlatformCustomerID: "c-1", UmaAddress: "$bob@pay.example"}
	elsewhere := customer.Identifiers{ID: uuid.New(), PlatformID: other, PlatformCustomerID: "x-9", UmaAddress: "$ADA@pay.example"}
	problemtest.Check(t,
		problemtest.Case{Name: "platformCustomerId", Err: Taken(jobID, platformID, customer.Clash{Holder: earlierRow, Identifier: customer.PlatformCustomerIDHeld}),
			Want: problem.Wire{Code: catalog.PlatformCustomerIDExists, Field: ColPlatformCustomerID, Message: "the customer of row 2 of this file already has this platformCustomerId"}},
		problemtest.Case{Name: "umaAddress", Err: Taken(jobID, platformID, customer.Clash{Holder: elsewhere, Identifier: customer.UmaAddressHeld}),
			Want: problem.Wire{Code: catalog.UmaAddressExists, Field: ColUmaAddress, Message: "a customer of another platform already has this umaAddress"}},
	)
}

// A job the platform does not have is 404 BULK_UPLOAD_JOB_NOT_FOUND, as the API answered it.
func TestErrJobNotFound(t *testing.T) {
	problemtest.Check(t, problemtest.Case{Name: "ErrJobNotFound", Err: ErrJobNotFound(),
		Want: problem.Wire{Code: catalog.BulkUploadJobNotFound, Message: "bulk upload job not found"}})
}
