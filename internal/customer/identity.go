package customer

import (
	"reflect"
	"time"

	"paycore/internal/catalog"
)

// IdentityChanged reports whether next identifies another person or business than cur:
// the members a KYC or KYB verification checked. For an individual they are the full
// name, birth date, nationality and address; for a business, the registration data of
// businessInfo (legal name, country, registration number, incorporation date, entity
// type, tax id) and the registered address; an individual's tax identifier given anew. Contact members (e-mail, UMA address), the
// currencies and a business's trade name and account profile are not identity. A member
// re-sent with the value it has is no change.
func IdentityChanged(cur, next Record) bool {
	if !reflect.DeepEqual(cur.Address, next.Address) {
		return true
	}
	if cur.Type == catalog.Business {
		return !reflect.DeepEqual(registration(cur.BusinessInfo), registration(next.BusinessInfo))
	}
	// A tax identifier given is a change: stored sealed, it is not compared.
	return !equal(cur.FullName, next.FullName) || !equal(cur.Nationality, next.Nationality) ||
		!sameDate(cur.BirthDate, next.BirthDate) || (next.Identification != nil && next.Identification.Number != "")
}

// registration is the part of business information a KYB verification checked.
func registration(b *BusinessInfo) BusinessInfo {
	if b == nil {
		return BusinessInfo{}
	}
	return BusinessInfo{LegalName: b.LegalName, Country: b.Country, RegistrationNumber: b.RegistrationNumber,
		IncorporatedOn: b.IncorporatedOn, EntityType: b.EntityType, TaxID: b.TaxID}
}

func equal(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func sameDate(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }

// Reverification is the verification status of a customer whose update takes it from cur
// to next, the status the request itself sets being next.KycStatus: an APPROVED customer
// whose identity changes is verified again (PENDING, like a beneficial owner whose
// personal information changes), and the APPROVED it had (or re-sends with the change)
// does not cover the new identity. reverify reports that.
func Reverification(cur, next Record) (status catalog.KycStatus, reverify bool) {
	if cur.KycStatus != catalog.KycApproved || next.KycStatus != catalog.KycApproved || !IdentityChanged(cur, next) {
		return next.KycStatus, false
	}
	return catalog.KycPending, true
}
