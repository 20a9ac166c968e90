package customer

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/country"
	"paycore/internal/email"
	"paycore/internal/problem"
)

var (
	kycStatuses = []string{string(catalog.KycUnverified), string(catalog.KycPending), string(catalog.KycApproved), string(catalog.KycRejected)}
	entityTypes = []string{"SOLE_PROPRIETORSHIP", "PARTNERSHIP", "LLC", "CORPORATION", "S_CORPORATION", "NON_PROFIT", "OTHER"}
	purposes    = []string{"CONTRACTOR_PAYOUTS", "CREATOR_PAYOUTS", "EMPLOYEE_PAYOUTS", "MARKETPLACE_SELLER_PAYOUTS", "SUPPLIER_PAYMENTS",
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
	if a == nil {
		return nil, nil
	}
	switch {
	case a.Line1 == nil || strings.TrimSpace(*a.Line1) == "":
		return nil, problem.Field(field+".line1", "%s.line1 is required", field)
	case a.PostalCode == nil || strings.TrimSpace(*a.PostalCode) == "":
		return nil, problem.Field(field+".postalCode", "%s.postalCode is required", field)
	case a.Country == nil:
		return nil, problem.Field(field+".country", "%s.country is required", field)
	}
	if err := textFields(255, named{field + ".line1", a.Line1}, named{field + ".line2", a.Line2},
		named{field + ".city", a.City}, named{field + ".state", a.State}); err != nil {
		return nil, err
	}
	if len(*a.PostalCode) > 20 {
		return nil, problem.Field(field+".postalCode", "%s.postalCode must be at most 20 characters", field)
	}
	if err := countryField(field+".country", a.Country); err != nil {
		return nil, err
	}
	return &Address{Line1: *a.Line1, Line2: a.Line2, City: a.City, State: a.State, PostalCode: *a.PostalCode, Country: *a.Country}, nil
}

// checkBusinessInfo checks business information and returns it merged over prev (the
// stored one of an update; nil for a new customer). Without b, prev stands.
func checkBusinessInfo(b *BusinessInfoInput, requireLegalName bool, prev *BusinessInfo) (*BusinessInfo, error) {
	if b == nil {
		return prev, nil
	}
	if b.LegalName == nil && (requireLegalName || prev == nil) {
		return nil, problem.Field("businessInfo.legalName", "businessInfo.legalName is required")
	}
	if err := checkBusinessMembers(b); err != nil {
		return nil, err
	}
	out := BusinessInfo{}
	if prev != nil {
		out = *prev
	}
	mergeBusinessInfo(&out, b)
	return &out, nil
}

func checkBusinessMembers(b *BusinessInfoInput) error {
	const p = "businessInfo."
	if err := textFields(255, named{p + "legalName", b.LegalName}, named{p + "doingBusinessAs", b.DoingBusinessAs},
		named{p + "registrationNumber", b.RegistrationNumber}, named{p + "taxId", b.TaxID}, named{p + "sourceOfFunds", b.SourceOfFunds}); err != nil {
		return err
	}
	if err := countryField(p+"country", b.Country); err != nil {
		return err
	}
	if _, err := dateField(p+"incorporatedOn", b.IncorporatedOn, true); err != nil {
		return err
	}
	for _, e := range []struct {
		name   string
		v      *string
		values []string
	}{{"entityType", b.EntityType, entityTypes}, {"businessType", b.BusinessType, businessTypes}, {"purposeOfAccount", b.PurposeOfAccount, purposes},
		{"expectedMonthlyTransactionCount", b.ExpectedMonthlyTransactionCount, txCounts},
		{"expectedMonthlyTransactionVolume", b.ExpectedMonthlyTransactionVolume, txVolumes}} {
		if err := enumField(p+e.name, e.v, e.values); err != nil {
			return err
		}
	}
	for _, l := range []struct {
		name string
		list []string
	}{{"countriesOfOperation", b.CountriesOfOperation}, {"expectedRecipientJurisdictions", b.ExpectedRecipientJurisdictions}} {
		for i, c := range l.list {
			if !country.Valid(c) {
				return problem.Field(fmt.Sprintf("businessInfo.%s[%d]", l.name, i), "businessInfo.%s[%d] must be an ISO 3166-1 alpha-2 country code", l.name, i)
			}
		}
	}
	return nil
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
	if b.CountriesOfOperation != nil {
		out.CountriesOfOperation = b.CountriesOfOperation
	}
	if b.ExpectedRecipientJurisdictions != nil {
		out.ExpectedRecipientJurisdictions = b.ExpectedRecipientJurisdictions
	}
}

func set(dst **string, v *string) {
	if v != nil {
		*dst = v
	}
}

// checkTypeFields refuses members that belong to the other customer type.
func checkTypeFields(typ catalog.CustomerType, in Input) error {
	if typ == catalog.Individual {
		if in.KybStatus != nil {
			return problem.Field("kybStatus", "kybStatus applies to BUSINESS customers; individuals have kycStatus")
		}
		if in.BusinessInfo != nil {
			return problem.Field("businessInfo", "businessInfo applies to BUSINESS customers")
		}
		return nil
	}
	for _, f := range []named{{"kycStatus", in.KycStatus}, {"fullName", in.FullName}, {"birthDate", in.BirthDate}, {"nationality", in.Nationality}} {
		if f.v != nil {
			return problem.Field(f.field, "%s applies to INDIVIDUAL customers; businesses carry businessInfo (and kybStatus)", f.field)
		}
	}
	return nil
}

// checkCommon checks the members both customer types share and returns the verification
// status the request sets (cur when it sets none).
func checkCommon(cur catalog.KycStatus, in Input) (catalog.KycStatus, error) {
	if in.Email != nil {
		if !email.Plain(*in.Email) {
			return cur, problem.Field("email", "email must be a plain e-mail address such as ana@example.com")
		}
	}
	if err := textField("fullName", in.FullName, 255); err != nil {
		return cur, err
	}
	if err := countryField("nationality", in.Nationality); err != nil {
		return cur, err
	}
	for _, f := range []named{{"kycStatus", in.KycStatus}, {"kybStatus", in.KybStatus}} {
		if err := enumField(f.field, f.v, kycStatuses); err != nil {
			return cur, err
		}
		if f.v != nil {
			cur = catalog.KycStatus(*f.v)
		}
	}
	return cur, nil
}
