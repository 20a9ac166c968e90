package bulkimport

import (
	"fmt"
	"strings"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// Identity is a customer by the identifiers a new one may not share: its id, its
// platformCustomerId (unique on its platform) and its umaAddress (unique on the
// deployment).
type Identity struct {
	ID                 uuid.UUID
	PlatformID         uuid.UUID
	PlatformCustomerID string
	UmaAddress         string
}

// Holder names, in a refused row's message, the customer c that holds an identifier a row
// of job jobID on platform platformID asks for: a customer an earlier row of the same file
// created, another customer of the platform, or one of another platform.
func Holder(jobID, platformID uuid.UUID, c Identity) string {
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

// Conflict decides why the customer a row of job jobID asks for (want) could not be
// inserted, taken being the customers that hold one of its identifiers: when want's own
// id is among them the row's customer exists already and nothing is refused (true, nil);
// else a customer of the platform holding its platformCustomerId refuses it, before one
// holding its umaAddress (compared without case) does (true, the refusal). found is false
// when taken explains nothing.
func Conflict(jobID uuid.UUID, want Identity, taken []Identity) (found bool, refusal error) {
	for _, c := range taken {
		if c.ID == want.ID {
			return true, nil
		}
	}
	for _, c := range taken {
		if c.PlatformID == want.PlatformID && c.PlatformCustomerID == want.PlatformCustomerID {
			return true, DuplicatePlatformCustomerID(Holder(jobID, want.PlatformID, c))
		}
	}
	for _, c := range taken {
		if strings.EqualFold(c.UmaAddress, want.UmaAddress) {
			return true, DuplicateUmaAddress(Holder(jobID, want.PlatformID, c))
		}
	}
	return false, nil
}

// ErrJobNotFound is the refusal of a bulk import job the caller's platform does not have:
// 404 BULK_UPLOAD_JOB_NOT_FOUND.
func ErrJobNotFound() error {
	return problem.NotFound(catalog.BulkUploadJobNotFound, "bulk upload job")
}
