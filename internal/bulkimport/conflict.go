package bulkimport

import (
	"fmt"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/problem"
)

// Holder names, in a refused row's message, the customer c that holds an identifier a row
// of job jobID on platform platformID asks for: a customer an earlier row of the same file
// created, another customer of the platform, or one of another platform.
func Holder(jobID, platformID uuid.UUID, c customer.Identifiers) string {
	if row, ok := RowOf(jobID, c.ID); ok {
		return fmt.Sprintf("the customer of row %d of this file", row)
	}
	if c.PlatformID != platformID {
		return "a customer of another platform"
	}
	return "another customer of the platform"
}

// DuplicatePlatformCustomerID is the refusal of a row whose platformCustomerId the customer
// holder (Holder) has.
func DuplicatePlatformCustomerID(holder string) error {
	return problem.FieldCode(catalog.PlatformCustomerIDExists, ColPlatformCustomerID, "%s already has this platformCustomerId", holder)
}

// DuplicateUmaAddress is the refusal of a row whose umaAddress the customer holder
// (Holder) has.
func DuplicateUmaAddress(holder string) error {
	return problem.FieldCode(catalog.UmaAddressExists, ColUmaAddress, "%s already has this umaAddress", holder)
}

// Taken is the refusal of a row of job jobID on platform platformID whose customer the
// customer rules did not open (customer.Admit) because another customer holds one of its
// identifiers: its platformCustomerId (DuplicatePlatformCustomerID) or its umaAddress
// (DuplicateUmaAddress), the holder named by Holder.
func Taken(jobID, platformID uuid.UUID, c customer.Clash) error {
	holder := Holder(jobID, platformID, c.Holder)
	if c.Identifier == customer.PlatformCustomerIDHeld {
		return DuplicatePlatformCustomerID(holder)
	}
	return DuplicateUmaAddress(holder)
}

// ErrJobNotFound is the refusal of a bulk import job the caller's platform does not have:
// 404 BULK_UPLOAD_JOB_NOT_FOUND.
func ErrJobNotFound() error {
	return problem.NotFound(catalog.BulkUploadJobNotFound, "bulk upload job")
}
