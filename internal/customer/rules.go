package customer

import (
	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

// New is a checked new customer: the row to store and the internal accounts of its
// currencies.
type New struct {
	Record   Record
	Accounts []account.Opening
}

// Create checks the creation of a customer of a platform with settings p. The region is
// given or inferred (from the address, the nationality or the business country), the
// currencies given or inferred, and the UMA address given or generated.
func Create(in Input, p platformconfig.Settings) (New, error) {
	rec, err := newRecord(in)
	if err != nil {
		return New{}, err
	}
	if err := checkAttestation(rec.Type, catalog.KycUnverified, rec.KycStatus, p.Regulated); err != nil {
		return New{}, err
	}
	if rec.Region, err = regionOf(in, rec); err != nil {
		return New{}, err
	}
	if in.Currencies != nil {
		rec.Currencies = *in.Currencies
	} else if rec.Currencies = InferCurrencies(rec.Region, p.Currencies); len(rec.Currencies) == 0 {
		return New{}, problem.Field("currencies", "no supported currency fits region %s; pass currencies explicitly", rec.Region)
	}
	if err := CheckCurrencies(rec.Currencies, rec.Region, p.Currencies); err != nil {
		return New{}, err
	}
	if in.UmaAddress != nil {
		if err := checkUmaAddress(*in.UmaAddress, p.UmaDomain); err != nil {
			return New{}, err
		}
		rec.UmaAddress = *in.UmaAddress
	} else {
		rec.UmaAddress = generateUmaAddress(rec.PlatformCustomerID, p.UmaDomain)
	}
	if in.EndUserTermsConsent != nil {
		if rec.TermsConsent, err = checkConsent(in.EndUserTermsConsent, p.TermsVersion); err != nil {
			return New{}, err
		}
	}
	return New{Record: rec, Accounts: account.ForCustomer(rec.Currencies, p.EmbeddedWallets())}, nil
}

// newRecord checks what a new customer says about itself (everything but the region,
// currencies and UMA address, which depend on the platform).
func newRecord(in Input) (Record, error) {
	if in.CustomerType == nil {
		return Record{}, problem.Field("customerType", "customerType is required (INDIVIDUAL or BUSINESS)")
	}
	typ := catalog.CustomerType(*in.CustomerType)
	if typ != catalog.Individual && typ != catalog.Business {
		return Record{}, problem.Field("customerType", "customerType must be INDIVIDUAL or BUSINESS")
	}
	if err := checkTypeFields(typ, in); err != nil {
		return Record{}, err
	}
	rec := Record{ID: ids.New(), Type: typ, Email: in.Email, FullName: in.FullName, Nationality: in.Nationality}
	var err error
	if rec.KycStatus, err = checkCommon(catalog.KycUnverified, in); err != nil {
		return Record{}, err
	}
	if rec.BirthDate, err = dateField("birthDate", in.BirthDate, true); err != nil {
		return Record{}, err
	}
	if rec.Address, err = checkAddress("address", in.Address); err != nil {
		return Record{}, err
	}
	if typ == catalog.Business {
		if rec.BusinessInfo, err = checkBusinessInfo(in.BusinessInfo, true, nil); err != nil {
			return Record{}, err
		}
		if rec.BusinessInfo == nil {
			return Record{}, problem.Field("businessInfo", "businessInfo (with legalName) is required for BUSINESS customers")
		}
	}
	rec.PlatformCustomerID = rec.ID.String()
	if in.PlatformCustomerID != nil {
		if err := textField("platformCustomerId", in.PlatformCustomerID, 255); err != nil {
			return Record{}, err
		}
		rec.PlatformCustomerID = *in.PlatformCustomerID
	}
	return rec, nil
}

// regionOf is the region given, else the one of the address, nationality or business
// country.
func regionOf(in Input, rec Record) (string, error) {
	switch {
	case in.Region != nil:
		if err := countryField("region", in.Region); err != nil {
			return "", err
		}
		return *in.Region, nil
	case rec.Address != nil:
		return rec.Address.Country, nil
	case in.Nationality != nil:
		return *in.Nationality, nil
	case rec.BusinessInfo != nil && rec.BusinessInfo.Country != nil:
		return *rec.BusinessInfo.Country, nil
	}
	return "", problem.Field("region", "region is required when there is no address, nationality or business country to infer it from")
}

// checkAttestation refuses a request that changes the KYC/KYB status from cur to next on a
// platform that is not a regulated financial institution: there the status is the outcome
// of the service's verification (POST /verifications or the hosted KYC link), never
// attested. Repeating the current status (a customer sent back as it was read) is no
// change.
func checkAttestation(typ catalog.CustomerType, cur, next catalog.KycStatus, regulated bool) error {
	if regulated || cur == next {
		return nil
	}
	field := map[catalog.CustomerType]string{catalog.Individual: "kycStatus", catalog.Business: "kybStatus"}[typ]
	return problem.Field(field, "%s is set by the service's verification on platforms that are not regulated financial institutions: "+
		"submit POST /verifications or send the customer a KYC link (POST /customers/{customerId}/kyc-link)", field)
}

// CheckImmutable refuses an update of the members that never change.
func CheckImmutable(in Input) error {
	if in.PlatformCustomerID != nil {
		return problem.Field("platformCustomerId", "platformCustomerId cannot be changed")
	}
	if in.Region != nil {
		return problem.Field("region", "region is immutable; create a new customer for another region")
	}
	return nil
}

// Change is a checked update of a customer.
type Change struct {
	// Record is the customer as it will be stored.
	Record Record
	// ReplacesCurrencies is set when the update gives a currency list: Accounts are then
	// the accounts of its currencies; accounts of other currencies are closed and missing
	// ones opened.
	ReplacesCurrencies bool
	Accounts           []account.Opening
	// Reverify is set when the update changes the identity of a verified customer (see
	// Reverification): Record's status is then PENDING and the customer is verified again.
	Reverify bool
}

// Patch checks an update of customer cur of a platform with settings p. Members absent
// from in are kept; businessInfo members are merged over the stored ones.
func Patch(cur Record, in Input, p platformconfig.Settings) (Change, error) {
	if err := CheckImmutable(in); err != nil {
		return Change{}, err
	}
	switch {
	case cur.IsDeleted:
		return Change{}, cur.CheckNotDeleted()
	case in.CustomerType == nil:
		return Change{}, problem.Field("customerType", "customerType is required (%s)", cur.Type)
	case catalog.CustomerType(*in.CustomerType) != cur.Type:
		return Change{}, problem.Field("customerType", "customerType cannot change from %s to %s; create a new customer", cur.Type, *in.CustomerType)
	}
	if err := checkTypeFields(cur.Type, in); err != nil {
		return Change{}, err
	}
	next, err := patchRecord(cur, in)
	if err != nil {
		return Change{}, err
	}
	if err := checkAttestation(cur.Type, cur.KycStatus, next.KycStatus, p.Regulated); err != nil {
		return Change{}, err
	}
	var reverify bool
	next.KycStatus, reverify = Reverification(cur, next)
	if in.UmaAddress != nil && *in.UmaAddress != cur.UmaAddress {
		if err := checkUmaAddress(*in.UmaAddress, p.UmaDomain); err != nil {
			return Change{}, err
		}
		next.UmaAddress = *in.UmaAddress
	}
	if in.EndUserTermsConsent != nil {
		if next.TermsConsent, err = checkConsent(in.EndUserTermsConsent, p.TermsVersion); err != nil {
			return Change{}, err
		}
	}
	ch := Change{Record: next, Reverify: reverify}
	if in.Currencies != nil {
		if err := CheckCurrencies(*in.Currencies, cur.Region, p.Currencies); err != nil {
			return Change{}, err
		}
		ch.Record.Currencies = *in.Currencies
		ch.ReplacesCurrencies = true
		ch.Accounts = account.ForCustomer(*in.Currencies, p.EmbeddedWallets())
	}
	return ch, nil
}

// patchRecord applies the members of in that need neither the platform nor the
// accounts: contact and identity members, address and business information.
func patchRecord(cur Record, in Input) (Record, error) {
	next := cur
	var err error
	if next.KycStatus, err = checkCommon(cur.KycStatus, in); err != nil {
		return cur, err
	}
	set(&next.Email, in.Email)
	set(&next.FullName, in.FullName)
	set(&next.Nationality, in.Nationality)
	if in.BirthDate != nil {
		if next.BirthDate, err = dateField("birthDate", in.BirthDate, true); err != nil {
			return cur, err
		}
	}
	if in.Address != nil {
		if next.Address, err = checkAddress("address", in.Address); err != nil {
			return cur, err
		}
	}
	if in.BusinessInfo != nil {
		if next.BusinessInfo, err = checkBusinessInfo(in.BusinessInfo, false, cur.BusinessInfo); err != nil {
			return cur, err
		}
	}
	return next, nil
}

// ChangesEmail reports whether in gives cur another e-mail address.
func (in Input) ChangesEmail(cur Record) bool {
	return in.Email != nil && (cur.Email == nil || *cur.Email != *in.Email)
}
