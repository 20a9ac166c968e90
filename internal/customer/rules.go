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
// currencies given or inferred, and the UMA address given or generated. Every invalid
// field is named at once (problem.Collect).
func Create(in Input, p platformconfig.Settings) (New, error) {
	var c problem.Collect
	rec, ok := newRecord(&c, in)
	if !ok {
		return New{}, c.Err()
	}
	c.Add(checkAttestation(rec.Type, catalog.KycUnverified, rec.KycStatus, p.Regulated))
	inferable := in.Region != nil || in.Address == nil || rec.Address != nil // no region is inferred from a refused address
	if region, err := regionOf(in, rec); inferable && c.Add(err) {
		rec.Region = region
		if in.Currencies != nil {
			rec.Currencies = *in.Currencies
		} else if rec.Currencies = InferCurrencies(rec.Region, p.Currencies); len(rec.Currencies) == 0 {
			c.Add(problem.Field("currencies", "no supported currency fits region %s; pass currencies explicitly", rec.Region))
		}
		if len(rec.Currencies) > 0 {
			c.Add(CheckCurrencies(rec.Currencies, rec.Region, p.Currencies))
		}
	}
	if in.UmaAddress != nil {
		if c.Add(checkUmaAddress(*in.UmaAddress, p.UmaDomain)) {
			rec.UmaAddress = *in.UmaAddress
		}
	} else {
		rec.UmaAddress = generateUmaAddress(rec.PlatformCustomerID, p.UmaDomain)
	}
	if in.EndUserTermsConsent != nil {
		consent, err := checkConsent(in.EndUserTermsConsent, p.TermsVersion)
		if c.Add(err) {
			rec.TermsConsent = consent
		}
	}
	if c.Failed() {
		return New{}, c.Err()
	}
	return New{Record: rec, Accounts: account.ForCustomer(rec.Currencies, p.EmbeddedWallets())}, nil
}

// newRecord checks, into c, what a new customer says about itself (everything but the
// region, currencies and UMA address, which depend on the platform). ok is false when the
// customer type is missing or unknown (nothing else can be judged); the record is then
// empty.
func newRecord(c *problem.Collect, in Input) (rec Record, ok bool) {
	if in.CustomerType == nil {
		c.Add(problem.Field("customerType", "customerType is required (INDIVIDUAL or BUSINESS)"))
		return Record{}, false
	}
	typ := catalog.CustomerType(*in.CustomerType)
	if typ != catalog.Individual && typ != catalog.Business {
		c.Add(problem.Field("customerType", "customerType must be INDIVIDUAL or BUSINESS"))
		return Record{}, false
	}
	checkTypeFields(c, typ, in)
	rec = Record{ID: ids.New(), Type: typ, Email: in.Email, FullName: in.FullName, Nationality: in.Nationality}
	rec.KycStatus = checkCommon(c, catalog.KycUnverified, in)
	birth, err := dateField("birthDate", in.BirthDate, true)
	if c.Add(err) {
		rec.BirthDate = birth
	}
	rec.Address = collectAddress(c, "address", in.Address)
	if typ == catalog.Individual {
		rec.DueDiligence = checkDiligence(c, in, nil)
		rec.Identification = checkIdentification(c, in, nil)
	}
	if typ == catalog.Business {
		if in.BusinessInfo == nil {
			c.Add(problem.Field("businessInfo", "businessInfo (with legalName) is required for BUSINESS customers"))
		}
		rec.BusinessInfo = checkBusinessInfo(c, in.BusinessInfo, true, nil)
	}
	rec.PlatformCustomerID = rec.ID.String()
	if in.PlatformCustomerID != nil && c.Add(textField("platformCustomerId", in.PlatformCustomerID, 255)) {
		rec.PlatformCustomerID = *in.PlatformCustomerID
	}
	return rec, true
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

// checkImmutable refuses, into c, an update of the members that never change.
func checkImmutable(c *problem.Collect, in Input) {
	if in.PlatformCustomerID != nil {
		c.Add(problem.Field("platformCustomerId", "platformCustomerId cannot be changed"))
	}
	if in.Region != nil {
		c.Add(problem.Field("region", "region is immutable; create a new customer for another region"))
	}
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
// from in are kept; businessInfo members are merged over the stored ones. Every invalid
// field is named at once (problem.Collect).
func Patch(cur Record, in Input, p platformconfig.Settings) (Change, error) {
	var c problem.Collect
	checkImmutable(&c, in)
	switch {
	case cur.IsDeleted:
		return Change{}, cur.CheckNotDeleted()
	case in.CustomerType == nil:
		c.Add(problem.Field("customerType", "customerType is required (%s)", cur.Type))
		return Change{}, c.Err()
	case catalog.CustomerType(*in.CustomerType) != cur.Type:
		c.Add(problem.Field("customerType", "customerType cannot change from %s to %s; create a new customer", cur.Type, *in.CustomerType))
		return Change{}, c.Err()
	}
	checkTypeFields(&c, cur.Type, in)
	next := patchRecord(&c, cur, in)
	c.Add(checkAttestation(cur.Type, cur.KycStatus, next.KycStatus, p.Regulated))
	var reverify bool
	next.KycStatus, reverify = Reverification(cur, next)
	if in.UmaAddress != nil && *in.UmaAddress != cur.UmaAddress && c.Add(checkUmaAddress(*in.UmaAddress, p.UmaDomain)) {
		next.UmaAddress = *in.UmaAddress
	}
	if in.EndUserTermsConsent != nil {
		consent, err := checkConsent(in.EndUserTermsConsent, p.TermsVersion)
		if c.Add(err) {
			next.TermsConsent = consent
		}
	}
	ch := Change{Record: next, Reverify: reverify}
	if in.Currencies != nil && c.Add(CheckCurrencies(*in.Currencies, cur.Region, p.Currencies)) {
		ch.Record.Currencies = *in.Currencies
		ch.ReplacesCurrencies = true
		ch.Accounts = account.ForCustomer(*in.Currencies, p.EmbeddedWallets())
	}
	if c.Failed() {
		return Change{}, c.Err()
	}
	return ch, nil
}

// patchRecord applies, checking into c, the members of in that need neither the platform
// nor the accounts: contact and identity members, address and business information. A
// member that is invalid is left as it was.
func patchRecord(c *problem.Collect, cur Record, in Input) Record {
	next := cur
	next.KycStatus = checkCommon(c, cur.KycStatus, in)
	set(&next.Email, in.Email)
	set(&next.FullName, in.FullName)
	set(&next.Nationality, in.Nationality)
	if in.BirthDate != nil {
		if d, err := dateField("birthDate", in.BirthDate, true); c.Add(err) {
			next.BirthDate = d
		}
	}
	if in.Address != nil {
		if a := collectAddress(c, "address", in.Address); a != nil {
			next.Address = a
		}
	}
	if in.BusinessInfo != nil {
		if b := checkBusinessInfo(c, in.BusinessInfo, false, cur.BusinessInfo); b != nil {
			next.BusinessInfo = b
		}
	}
	if cur.Type == catalog.Individual {
		next.DueDiligence = checkDiligence(c, in, cur.DueDiligence)
		if id := checkIdentification(c, in, cur.Identification); id != nil {
			next.Identification = id
		}
	}
	return next
}

// ChangesEmail reports whether in gives cur another e-mail address.
func (in Input) ChangesEmail(cur Record) bool {
	return in.Email != nil && (cur.Email == nil || *cur.Email != *in.Email)
}
