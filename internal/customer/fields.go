package customer

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/country"
	"paycore/internal/email"
	"paycore/internal/problem"
)

var (
	kycStatuses = []string{string(catalog.KycUnverified), string(catalog.KycPending), string(catalog.KycApproved), string(catalog.KycRejected),
		string(catalog.KycHold)}
	entityTypes = []string{"SOLE_PROPRIETORSHIP", "PARTNERSHIP", "LLC", "CORPORATION", "S_CORPORATION", "NON_PROFIT",
		"PUBLICLY_LISTED_COMPANY", "TRUST", "PRIVATE_FOUNDATION", "CHARITY", "OTHER"}
	purposes = []string{"CONTRACTOR_PAYOUTS", "CREATOR_PAYOUTS", "EMPLOYEE_PAYOUTS", "MARKETPLACE_SELLER_PAYOUTS", "SUPPLIER_PAYMENTS",
		"CROSS_BORDER_B2B", "AR_AUTOMATION", "AP_AUTOMATION", "EMBEDDED_PAYMENTS", "PLATFORM_FEE_COLLECTION", "P2P_TRANSFERS", "CHARITABLE_DONATIONS", "OTHER"}
	businessTypes = []string{"AGRICULTURE_FORESTRY_FISHING_AND_HUNTING", "MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION", "UTILITIES",
		"CONSTRUCTION", "MANUFACTURING", "WHOLESALE_TRADE", "RETAIL_TRADE", "TRANSPORTATION_AND_WAREHOUSING", "INFORMATION",
		"FINANCE_AND_INSURANCE", "REAL_ESTATE_AND_RENTAL_AND_LEASING", "PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES",
		"MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES", "ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES",
		"EDUCATIONAL_SERVICES", "HEALTH_CARE_AND_SOCIAL_ASSISTANCE", "ARTS_ENTERTAINMENT_AND_RECREATION", "ACCOMMODATION_AND_FOOD_SERVICES",
		"OTHER_SERVICES", "PUBLIC_ADMINISTRATION"}
	txCounts  = []string{"COUNT_UNDER_10", "COUNT_10_TO_100", "COUNT_100_TO_500", "COUNT_500_TO_1000", "COUNT_OVER_1000"}
	txVolumes = []string{"VOLUME_UNDER_10K", "VOLUME_10K_TO_100K", "VOLUME_100K_TO_1M", "VOLUME_1M_TO_10M", "VOLUME_OVER_10M"}
)

// named is an optional text member of a request with its field name.
type named struct {
	field string
	v     *string
}

// textField refuses a given text that is blank or longer than max bytes.
func textField(field string, v *string, max int) error {
	if v != nil && (len(strings.TrimSpace(*v)) == 0 || len(*v) > max) {
		return problem.Field(field, "%s must be 1 to %d characters", field, max)
	}
	return nil
}

func textFields(max int, fields ...named) error {
	for _, f := range fields {
		if err := textField(f.field, f.v, max); err != nil {
			return err
		}
	}
	return nil
}

func enumField(field string, v *string, values []string) error {
	if v != nil && !slices.Contains(values, *v) {
		return problem.Field(field, "%s must be one of %s", field, strings.Join(values, ", "))
	}
	return nil
}

func countryField(field string, v *string) error {
	if v != nil && !country.Valid(*v) {
		return problem.Field(field, "%s must be an ISO 3166-1 alpha-2 country code such as US", field)
	}
	return nil
}

// dateField parses a date; past requires it between 1900 and today.
func dateField(field string, v *string, past bool) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	d, err := time.Parse(time.DateOnly, *v)
	if err != nil {
		return nil, problem.Field(field, "%s must be a date YYYY-MM-DD", field)
	}
	if past && (d.After(time.Now()) || d.Year() < 1900) {
		return nil, problem.Field(field, "%s must be a date between 1900 and today", field)
	}
	return &d, nil
}

// checkAddress checks an address given under field; nil when none is given.
func checkAddress(field string, a *AddressInput) (*Address, error) {
	var c problem.Collect
	out := collectAddress(&c, field, a)
	return out, c.Err()
}

// collectAddress checks an address given under field into c, every member at once; nil
// when none is given or it is invalid.
func collectAddress(c *problem.Collect, field string, a *AddressInput) *Address {
	if a == nil {
		return nil
	}
	ok := true
	for _, m := range []named{{field + ".line1", a.Line1}, {field + ".postalCode", a.PostalCode}} {
		if m.v == nil || strings.TrimSpace(*m.v) == "" {
			ok = c.Add(problem.Field(m.field, "%s is required", m.field)) && ok
		}
	}
	if a.Country == nil {
		ok = c.Add(problem.Field(field+".country", "%s.country is required", field)) && ok
	}
	ok = collectText(c, 255, named{field + ".line1", a.Line1}, named{field + ".line2", a.Line2},
		named{field + ".city", a.City}, named{field + ".state", a.State}) && ok
	if a.PostalCode != nil && len(*a.PostalCode) > 20 {
		ok = c.Add(problem.Field(field+".postalCode", "%s.postalCode must be at most 20 characters", field)) && ok
	}
	ok = c.Add(countryField(field+".country", a.Country)) && ok
	if !ok {
		return nil
	}
	return &Address{Line1: *a.Line1, Line2: a.Line2, City: a.City, State: a.State, PostalCode: *a.PostalCode, Country: *a.Country}
}

// collectText checks text members into c (textField); false when one failed. A member
// already refused as missing or blank is not refused twice.
func collectText(c *problem.Collect, max int, fields ...named) bool {
	ok := true
	for _, f := range fields {
		if f.v != nil && strings.TrimSpace(*f.v) == "" && c.Has(f.field) {
			continue
		}
		ok = c.Add(textField(f.field, f.v, max)) && ok
	}
	return ok
}

// checkBusinessInfo checks business information into c and returns it merged over prev
// (the stored one of an update; nil for a new customer). Without b, prev stands; nil when
// it is invalid.
func checkBusinessInfo(c *problem.Collect, b *BusinessInfoInput, requireLegalName bool, prev *BusinessInfo) *BusinessInfo {
	if b == nil {
		return prev
	}
	ok := true
	if b.LegalName == nil && (requireLegalName || prev == nil) {
		ok = c.Add(problem.Field("businessInfo.legalName", "businessInfo.legalName is required"))
	}
	if !checkBusinessMembers(c, b) || !ok {
		return nil
	}
	out := BusinessInfo{}
	if prev != nil {
		out = *prev
	}
	mergeBusinessInfo(&out, b)
	// OTHER chosen in this request is described, in it or before (a business stored with
	// an undescribed OTHER before descriptions existed is not refused other updates).
	if !describeOther(c, "businessInfo.",
		otherChoice{"sourceOfFundsCategories", "sourceOfFundsOtherDescription", slices.Contains(b.SourceOfFundsCategories, "OTHER"), out.SourceOfFundsOtherDescription},
		otherChoice{"purposeOfAccount", "purposeOfAccountOtherDescription", b.PurposeOfAccount != nil && *b.PurposeOfAccount == "OTHER", out.PurposeOfAccountOtherDescription}) {
		return nil
	}
	return &out
}

// businessFundsCategories are the categories of a business's source of funds.
var businessFundsCategories = []string{"OPERATING_REVENUE", "INVESTMENT_INCOME", "LOANS", "VENTURE_CAPITAL", "PERSONAL_SAVINGS", "DONATIONS", "OTHER"}

// naicsRE is a NAICS code: 2 to 6 digits.
var naicsRE = regexp.MustCompile(`^[0-9]{2,6}$`)

// checkBusinessMembers checks every member of business information into c; false when
// one failed.
func checkBusinessMembers(c *problem.Collect, b *BusinessInfoInput) bool {
	const p = "businessInfo."
	ok := collectText(c, 255, named{p + "legalName", b.LegalName}, named{p + "doingBusinessAs", b.DoingBusinessAs},
		named{p + "registrationNumber", b.RegistrationNumber}, named{p + "taxId", b.TaxID}, named{p + "sourceOfFunds", b.SourceOfFunds})
	ok = collectText(c, maxDescription, named{p + "sourceOfFundsOtherDescription", b.SourceOfFundsOtherDescription},
		named{p + "purposeOfAccountOtherDescription", b.PurposeOfAccountOtherDescription}) && ok
	ok = collectText(c, 250, named{p + "primaryContactFirstName", b.PrimaryContactFirstName}, named{p + "primaryContactLastName", b.PrimaryContactLastName}) && ok
	if b.NaicsCode != nil && !naicsRE.MatchString(*b.NaicsCode) {
		ok = c.Add(problem.Field(p+"naicsCode", "businessInfo.naicsCode must be a NAICS code: 2 to 6 digits")) && ok
	}
	if b.SourceOfFundsCategories != nil {
		ok = checkCategories(c, p+"sourceOfFundsCategories", b.SourceOfFundsCategories, businessFundsCategories) && ok
	}
	ok = c.Add(countryField(p+"country", b.Country)) && ok
	_, err := dateField(p+"incorporatedOn", b.IncorporatedOn, true)
	ok = c.Add(err) && ok
	for _, e := range []struct {
		name   string
		v      *string
		values []string
	}{{"entityType", b.EntityType, entityTypes}, {"businessType", b.BusinessType, businessTypes}, {"purposeOfAccount", b.PurposeOfAccount, purposes},
		{"expectedMonthlyTransactionCount", b.ExpectedMonthlyTransactionCount, txCounts},
		{"expectedMonthlyTransactionVolume", b.ExpectedMonthlyTransactionVolume, txVolumes}} {
		ok = c.Add(enumField(p+e.name, e.v, e.values)) && ok
	}
	for _, l := range []struct {
		name string
		list []string
	}{{"countriesOfOperation", b.CountriesOfOperation}, {"expectedRecipientJurisdictions", b.ExpectedRecipientJurisdictions},
		{"expectedCounterpartyCountries", b.ExpectedCounterpartyCountries}} {
		for i, code := range l.list {
			if !country.Valid(code) {
				ok = c.Add(problem.Field(fmt.Sprintf("businessInfo.%s[%d]", l.name, i), "businessInfo.%s[%d] must be an ISO 3166-1 alpha-2 country code", l.name, i)) && ok
			}
		}
	}
	return ok
}

// mergeBusinessInfo copies the members b gives over out.
func mergeBusinessInfo(out *BusinessInfo, b *BusinessInfoInput) {
	if b.LegalName != nil {
		out.LegalName = *b.LegalName
	}
	set(&out.DoingBusinessAs, b.DoingBusinessAs)
	set(&out.Country, b.Country)
	set(&out.RegistrationNumber, b.RegistrationNumber)
	set(&out.IncorporatedOn, b.IncorporatedOn)
	set(&out.EntityType, b.EntityType)
	set(&out.TaxID, b.TaxID)
	set(&out.BusinessType, b.BusinessType)
	set(&out.PurposeOfAccount, b.PurposeOfAccount)
	set(&out.SourceOfFunds, b.SourceOfFunds)
	set(&out.ExpectedMonthlyTransactionCount, b.ExpectedMonthlyTransactionCount)
	set(&out.ExpectedMonthlyTransactionVolume, b.ExpectedMonthlyTransactionVolume)
	set(&out.NaicsCode, b.NaicsCode)
	set(&out.SourceOfFundsOtherDescription, b.SourceOfFundsOtherDescription)
	set(&out.PurposeOfAccountOtherDescription, b.PurposeOfAccountOtherDescription)
	set(&out.PrimaryContactFirstName, b.PrimaryContactFirstName)
	set(&out.PrimaryContactLastName, b.PrimaryContactLastName)
	setList(&out.CountriesOfOperation, b.CountriesOfOperation)
	setList(&out.ExpectedRecipientJurisdictions, b.ExpectedRecipientJurisdictions)
	setList(&out.SourceOfFundsCategories, b.SourceOfFundsCategories)
	setList(&out.ExpectedCounterpartyCountries, b.ExpectedCounterpartyCountries)
}

// setList replaces *dst with a list given (nil: not given).
func setList(dst *[]string, v []string) {
	if v != nil {
		*dst = v
	}
}

func set(dst **string, v *string) {
	if v != nil {
		*dst = v
	}
}

// checkTypeFields refuses, into c, members that belong to the other customer type.
func checkTypeFields(c *problem.Collect, typ catalog.CustomerType, in Input) {
	if typ == catalog.Business {
		for _, f := range in.diligenceFields() {
			c.Add(problem.Field(f, "%s applies to INDIVIDUAL customers; a business gives its due diligence in businessInfo", f))
		}
	}
	if typ == catalog.Individual {
		if in.KybStatus != nil {
			c.Add(problem.Field("kybStatus", "kybStatus applies to BUSINESS customers; individuals have kycStatus"))
		}
		if in.BusinessInfo != nil {
			c.Add(problem.Field("businessInfo", "businessInfo applies to BUSINESS customers"))
		}
		return
	}
	for _, f := range []named{{"kycStatus", in.KycStatus}, {"fullName", in.FullName}, {"birthDate", in.BirthDate}, {"nationality", in.Nationality},
		{"idType", in.IDType}, {"identifier", in.Identifier}, {"countryOfIssuance", in.CountryOfIssuance}} {
		if f.v != nil {
			c.Add(problem.Field(f.field, "%s applies to INDIVIDUAL customers; businesses carry businessInfo (and kybStatus)", f.field))
		}
	}
}

// checkCommon checks, into c, the members both customer types share and returns the
// verification status the request sets (cur when it sets none, sets an unknown one, or
// sets the other type's, which checkTypeFields refused first).
func checkCommon(c *problem.Collect, cur catalog.KycStatus, in Input) catalog.KycStatus {
	if in.Email != nil && !email.Plain(*in.Email) {
		c.Add(problem.Field("email", "email must be a plain e-mail address such as ana@example.com"))
	}
	c.Add(textField("fullName", in.FullName, 255))
	c.Add(countryField("nationality", in.Nationality))
	for _, f := range []named{{"kycStatus", in.KycStatus}, {"kybStatus", in.KybStatus}} {
		if c.Has(f.field) { // the other customer type's, refused already
			continue
		}
		if c.Add(enumField(f.field, f.v, kycStatuses)) && f.v != nil {
			cur = catalog.KycStatus(*f.v)
		}
	}
	return cur
}
