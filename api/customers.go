package api

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/db"
	"paycore/internal/country"
	"paycore/internal/cursor"
	"paycore/internal/ids"
	"paycore/internal/money"
)

// Customer types and statuses.
const (
	Individual = "INDIVIDUAL"
	Business   = "BUSINESS"
)

var (
	kycStatuses       = []string{"UNVERIFIED", "PENDING", "APPROVED", "REJECTED"}
	entityTypes       = []string{"SOLE_PROPRIETORSHIP", "PARTNERSHIP", "LLC", "CORPORATION", "S_CORPORATION", "NON_PROFIT", "OTHER"}
	purposesOfAccount = []string{"CONTRACTOR_PAYOUTS", "CREATOR_PAYOUTS", "EMPLOYEE_PAYOUTS", "MARKETPLACE_SELLER_PAYOUTS", "SUPPLIER_PAYMENTS",
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

// Address is a postal address.
type Address struct {
	Line1      string  `json:"line1"`
	Line2      *string `json:"line2,omitempty"`
	City       *string `json:"city,omitempty"`
	State      *string `json:"state,omitempty"`
	PostalCode string  `json:"postalCode"`
	Country    string  `json:"country"`
}

// BusinessInfo describes a business customer.
type BusinessInfo struct {
	LegalName                        string   `json:"legalName"`
	DoingBusinessAs                  *string  `json:"doingBusinessAs,omitempty"`
	Country                          *string  `json:"country,omitempty"`
	RegistrationNumber               *string  `json:"registrationNumber,omitempty"`
	IncorporatedOn                   *string  `json:"incorporatedOn,omitempty"`
	EntityType                       *string  `json:"entityType,omitempty"`
	TaxID                            *string  `json:"taxId,omitempty"`
	CountriesOfOperation             []string `json:"countriesOfOperation,omitempty"`
	BusinessType                     *string  `json:"businessType,omitempty"`
	PurposeOfAccount                 *string  `json:"purposeOfAccount,omitempty"`
	SourceOfFunds                    *string  `json:"sourceOfFunds,omitempty"`
	ExpectedMonthlyTransactionCount  *string  `json:"expectedMonthlyTransactionCount,omitempty"`
	ExpectedMonthlyTransactionVolume *string  `json:"expectedMonthlyTransactionVolume,omitempty"`
	ExpectedRecipientJurisdictions   []string `json:"expectedRecipientJurisdictions,omitempty"`
}

// Customer is an individual or business customer of a platform.
type Customer struct {
	ID                 string        `json:"id"`
	PlatformCustomerID string        `json:"platformCustomerId"`
	CustomerType       string        `json:"customerType"`
	Region             string        `json:"region"`
	Currencies         []string      `json:"currencies"`
	Email              *string       `json:"email,omitempty"`
	UmaAddress         string        `json:"umaAddress"`
	CreatedAt          time.Time     `json:"createdAt"`
	UpdatedAt          time.Time     `json:"updatedAt"`
	IsDeleted          bool          `json:"isDeleted"`
	KycStatus          *string       `json:"kycStatus,omitempty"`
	KybStatus          *string       `json:"kybStatus,omitempty"`
	FullName           *string       `json:"fullName,omitempty"`
	BirthDate          *string       `json:"birthDate,omitempty"`
	Nationality        *string       `json:"nationality,omitempty"`
	Address            *Address      `json:"address,omitempty"`
	BusinessInfo       *BusinessInfo `json:"businessInfo,omitempty"`
}

func customerOf(c db.Customer) Customer {
	out := Customer{ID: ids.Format(ids.Customer, c.ID), PlatformCustomerID: c.PlatformCustomerID, CustomerType: c.CustomerType,
		Region: c.Region, Currencies: c.Currencies, Email: c.Email, UmaAddress: c.UmaAddress, CreatedAt: c.CreatedAt,
		UpdatedAt: c.UpdatedAt, IsDeleted: c.IsDeleted, FullName: c.FullName, Nationality: c.Nationality}
	status := c.KycStatus
	if c.CustomerType == Business {
		out.KybStatus = &status
	} else {
		out.KycStatus = &status
	}
	if c.BirthDate != nil {
		d := c.BirthDate.Format(time.DateOnly)
		out.BirthDate = &d
	}
	if len(c.Address) > 0 {
		out.Address = &Address{}
		_ = json.Unmarshal(c.Address, out.Address)
	}
	if len(c.BusinessInfo) > 0 {
		out.BusinessInfo = &BusinessInfo{}
		_ = json.Unmarshal(c.BusinessInfo, out.BusinessInfo)
	}
	return out
}

// addressIn and businessInfoIn are the request shapes (pointers to tell absent from empty).
type addressIn struct {
	Line1      *string `json:"line1"`
	Line2      *string `json:"line2"`
	City       *string `json:"city"`
	State      *string `json:"state"`
	PostalCode *string `json:"postalCode"`
	Country    *string `json:"country"`
}

type businessInfoIn struct {
	LegalName                        *string  `json:"legalName"`
	DoingBusinessAs                  *string  `json:"doingBusinessAs"`
	Country                          *string  `json:"country"`
	RegistrationNumber               *string  `json:"registrationNumber"`
	IncorporatedOn                   *string  `json:"incorporatedOn"`
	EntityType                       *string  `json:"entityType"`
	TaxID                            *string  `json:"taxId"`
	CountriesOfOperation             []string `json:"countriesOfOperation"`
	BusinessType                     *string  `json:"businessType"`
	PurposeOfAccount                 *string  `json:"purposeOfAccount"`
	SourceOfFunds                    *string  `json:"sourceOfFunds"`
	ExpectedMonthlyTransactionCount  *string  `json:"expectedMonthlyTransactionCount"`
	ExpectedMonthlyTransactionVolume *string  `json:"expectedMonthlyTransactionVolume"`
	ExpectedRecipientJurisdictions   []string `json:"expectedRecipientJurisdictions"`
}

// customerBody is the create and update body of both customer types.
type customerBody struct {
	PlatformCustomerID *string         `json:"platformCustomerId"`
	CustomerType       *string         `json:"customerType"`
	Region             *string         `json:"region"`
	Currencies         *[]string       `json:"currencies"`
	Email              *string         `json:"email"`
	UmaAddress         *string         `json:"umaAddress"`
	KycStatus          *string         `json:"kycStatus"`
	KybStatus          *string         `json:"kybStatus"`
	FullName           *string         `json:"fullName"`
	BirthDate          *string         `json:"birthDate"`
	Nationality        *string         `json:"nationality"`
	Address            *addressIn      `json:"address"`
	BusinessInfo       *businessInfoIn `json:"businessInfo"`
}

var (
	umaAddressRe = regexp.MustCompile(`^\$([a-z0-9._-]{1,64})@([a-z0-9.-]+)$`)
	handleStrip  = regexp.MustCompile(`[^a-z0-9._-]+`)
)

func textField(field string, v *string, max int) error {
	if v != nil && (len(strings.TrimSpace(*v)) == 0 || len(*v) > max) {
		return invalidField(field, "%s must be 1 to %d characters", field, max)
	}
	return nil
}

func enumField(field string, v *string, values []string) error {
	if v != nil && !slices.Contains(values, *v) {
		return invalidField(field, "%s must be one of %s", field, strings.Join(values, ", "))
	}
	return nil
}

func countryField(field string, v *string) error {
	if v != nil && !country.Valid(*v) {
		return invalidField(field, "%s must be an ISO 3166-1 alpha-2 country code such as US", field)
	}
	return nil
}

func dateField(field string, v *string, past bool) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	d, err := time.Parse(time.DateOnly, *v)
	if err != nil {
		return nil, invalidField(field, "%s must be a date YYYY-MM-DD", field)
	}
	if past && (d.After(time.Now()) || d.Year() < 1900) {
		return nil, invalidField(field, "%s must be a date between 1900 and today", field)
	}
	return &d, nil
}

func validateAddress(field string, a *addressIn) (*Address, error) {
	if a == nil {
		return nil, nil
	}
	switch {
	case a.Line1 == nil || strings.TrimSpace(*a.Line1) == "":
		return nil, invalidField(field+".line1", "%s.line1 is required", field)
	case a.PostalCode == nil || strings.TrimSpace(*a.PostalCode) == "":
		return nil, invalidField(field+".postalCode", "%s.postalCode is required", field)
	case a.Country == nil:
		return nil, invalidField(field+".country", "%s.country is required", field)
	}
	for name, v := range map[string]*string{"line1": a.Line1, "line2": a.Line2, "city": a.City, "state": a.State} {
		if err := textField(field+"."+name, v, 255); err != nil {
			return nil, err
		}
	}
	if len(*a.PostalCode) > 20 {
		return nil, invalidField(field+".postalCode", "%s.postalCode must be at most 20 characters", field)
	}
	if err := countryField(field+".country", a.Country); err != nil {
		return nil, err
	}
	return &Address{Line1: *a.Line1, Line2: a.Line2, City: a.City, State: a.State, PostalCode: *a.PostalCode, Country: *a.Country}, nil
}

func validateBusinessInfo(b *businessInfoIn, requireLegalName bool, prev *BusinessInfo) (*BusinessInfo, error) {
	if b == nil {
		return prev, nil
	}
	out := BusinessInfo{}
	if prev != nil {
		out = *prev
	}
	if b.LegalName == nil && (requireLegalName || prev == nil) {
		return nil, invalidField("businessInfo.legalName", "businessInfo.legalName is required")
	}
	for name, v := range map[string]*string{"legalName": b.LegalName, "doingBusinessAs": b.DoingBusinessAs, "registrationNumber": b.RegistrationNumber,
		"taxId": b.TaxID, "sourceOfFunds": b.SourceOfFunds} {
		if err := textField("businessInfo."+name, v, 255); err != nil {
			return nil, err
		}
	}
	if err := countryField("businessInfo.country", b.Country); err != nil {
		return nil, err
	}
	if _, err := dateField("businessInfo.incorporatedOn", b.IncorporatedOn, true); err != nil {
		return nil, err
	}
	for name, e := range map[string]struct {
		v      *string
		values []string
	}{"entityType": {b.EntityType, entityTypes}, "businessType": {b.BusinessType, businessTypes}, "purposeOfAccount": {b.PurposeOfAccount, purposesOfAccount},
		"expectedMonthlyTransactionCount": {b.ExpectedMonthlyTransactionCount, txCounts}, "expectedMonthlyTransactionVolume": {b.ExpectedMonthlyTransactionVolume, txVolumes}} {
		if err := enumField("businessInfo."+name, e.v, e.values); err != nil {
			return nil, err
		}
	}
	for name, list := range map[string][]string{"countriesOfOperation": b.CountriesOfOperation, "expectedRecipientJurisdictions": b.ExpectedRecipientJurisdictions} {
		for i, c := range list {
			if !country.Valid(c) {
				return nil, invalidField(fmt.Sprintf("businessInfo.%s[%d]", name, i), "businessInfo.%s[%d] must be an ISO 3166-1 alpha-2 country code", name, i)
			}
		}
	}
	set := func(dst **string, v *string) {
		if v != nil {
			*dst = v
		}
	}
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
	return &out, nil
}

// checkTypeFields refuses fields that belong to the other customer type.
func checkTypeFields(typ string, b customerBody) error {
	if typ == Individual {
		if b.KybStatus != nil {
			return invalidField("kybStatus", "kybStatus applies to BUSINESS customers; individuals have kycStatus")
		}
		if b.BusinessInfo != nil {
			return invalidField("businessInfo", "businessInfo applies to BUSINESS customers")
		}
		return nil
	}
	for name, v := range map[string]*string{"kycStatus": b.KycStatus, "fullName": b.FullName, "birthDate": b.BirthDate, "nationality": b.Nationality} {
		if v != nil {
			return invalidField(name, "%s applies to INDIVIDUAL customers; businesses carry businessInfo (and kybStatus)", name)
		}
	}
	return nil
}

// checkCurrencies validates a customer's currency list against the platform configuration
// and the customer's region: a customer holds its region's home currency, USD and crypto;
// other fiat currencies belong to customers of a region that uses them.
func checkCurrencies(list []string, region string, platformCurrencies []CurrencyConfig) error {
	supported := map[string]bool{}
	var names []string
	for _, c := range platformCurrencies {
		supported[c.CurrencyCode] = true
		names = append(names, c.CurrencyCode)
	}
	home, _ := money.HomeCurrency(region)
	seen := map[string]bool{}
	for i, c := range list {
		field := fmt.Sprintf("currencies[%d]", i)
		if _, ok := money.Lookup(c); !ok {
			return invalidField(field, "%q is not a known currency code", c)
		}
		if seen[c] {
			return invalidField(field, "currency %s is listed twice", c)
		}
		seen[c] = true
		if !supported[c] {
			return invalidField(field, "the platform does not support %s (supported: %s); add it with PATCH /config first", c, strings.Join(names, ", "))
		}
		if money.IsFiat(c) && c != home && c != "USD" {
			return invalidField(field, "a customer in region %s can hold %s, USD and crypto currencies; %s accounts need a separate customer in a region that uses %s",
				region, orNone(home), c, c)
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "no other fiat currency"
	}
	return s
}

// inferCurrencies picks the currencies of a customer created without a list: the region's
// home currency and the platform's crypto currencies, or USD when the home one is not
// supported.
func inferCurrencies(region string, platformCurrencies []CurrencyConfig) []string {
	home, _ := money.HomeCurrency(region)
	var out []string
	hasHome, hasUSD := false, false
	for _, c := range platformCurrencies {
		switch {
		case c.CurrencyCode == home:
			hasHome = true
		case c.CurrencyCode == "USD":
			hasUSD = true
		case money.IsCrypto(c.CurrencyCode):
			out = append(out, c.CurrencyCode)
		}
	}
	switch {
	case hasHome:
		out = append([]string{home}, out...)
	case hasUSD:
		out = append([]string{"USD"}, out...)
	}
	return out
}

func platformCurrencies(p db.Platform) ([]CurrencyConfig, error) {
	var cur []CurrencyConfig
	if err := json.Unmarshal(p.SupportedCurrencies, &cur); err != nil {
		return nil, fmt.Errorf("decode supported currencies: %w", err)
	}
	return cur, nil
}

func walletsEnabled(p db.Platform) bool {
	return len(p.EmbeddedWalletConfig) > 0 && string(p.EmbeddedWalletConfig) != "null"
}

var errCustomerNotFound = notFound("USER_NOT_FOUND", "customer")

func (s *Server) createCustomer(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[customerBody](r)
	if err != nil {
		return err
	}
	if b.CustomerType == nil {
		return invalidField("customerType", "customerType is required (INDIVIDUAL or BUSINESS)")
	}
	typ := *b.CustomerType
	if typ != Individual && typ != Business {
		return invalidField("customerType", "customerType must be INDIVIDUAL or BUSINESS")
	}
	if err := checkTypeFields(typ, b); err != nil {
		return err
	}
	row := db.CustomerCreateParams{ID: ids.New(), CustomerType: typ, KycStatus: "UNVERIFIED", Email: b.Email, FullName: b.FullName, Nationality: b.Nationality}
	if err := s.validateCommon(&row.KycStatus, b); err != nil {
		return err
	}
	if row.BirthDate, err = dateField("birthDate", b.BirthDate, true); err != nil {
		return err
	}
	addr, err := validateAddress("address", b.Address)
	if err != nil {
		return err
	}
	row.Address = jsonOrNil(addr)
	var bi *BusinessInfo
	if typ == Business {
		if bi, err = validateBusinessInfo(b.BusinessInfo, true, nil); err != nil {
			return err
		}
		if bi == nil {
			return invalidField("businessInfo", "businessInfo (with legalName) is required for BUSINESS customers")
		}
		row.BusinessInfo = jsonOrNil(bi)
	}
	if b.PlatformCustomerID != nil {
		if err := textField("platformCustomerId", b.PlatformCustomerID, 255); err != nil {
			return err
		}
		row.PlatformCustomerID = *b.PlatformCustomerID
	} else {
		row.PlatformCustomerID = row.ID.String()
	}
	// Region: given, else inferred from the address, nationality or business country.
	switch {
	case b.Region != nil:
		if err := countryField("region", b.Region); err != nil {
			return err
		}
		row.Region = *b.Region
	case addr != nil:
		row.Region = addr.Country
	case b.Nationality != nil:
		row.Region = *b.Nationality
	case bi != nil && bi.Country != nil:
		row.Region = *bi.Country
	default:
		return invalidField("region", "region is required when there is no address, nationality or business country to infer it from")
	}
	pid := principalFrom(r.Context()).PlatformID
	var out db.Customer
	err = db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		p, err := q.PlatformGet(r.Context(), pid)
		if err != nil {
			return fmt.Errorf("load platform: %w", err)
		}
		cur, err := platformCurrencies(p)
		if err != nil {
			return err
		}
		if b.Currencies != nil {
			row.Currencies = *b.Currencies
		} else {
			row.Currencies = inferCurrencies(row.Region, cur)
			if len(row.Currencies) == 0 {
				return invalidField("currencies", "no supported currency fits region %s; pass currencies explicitly", row.Region)
			}
		}
		if err := checkCurrencies(row.Currencies, row.Region, cur); err != nil {
			return err
		}
		row.PlatformID = pid
		if b.UmaAddress != nil {
			if err := checkUmaAddress(*b.UmaAddress, p.UmaDomain); err != nil {
				return err
			}
			row.UmaAddress = *b.UmaAddress
		} else {
			row.UmaAddress = generateUmaAddress(row.PlatformCustomerID, p.UmaDomain)
		}
		out, err = q.CustomerCreate(r.Context(), row)
		if err != nil {
			return customerConflict(err)
		}
		for _, c := range row.Currencies {
			if _, err := createInternalAccount(r.Context(), q, s.Box, pid, uuid.NullUUID{UUID: out.ID, Valid: true}, c, accountTypeFor(c, walletsEnabled(p))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, customerOf(out))
	return nil
}

// validateCommon checks the fields both customer types share and resolves the status.
func (s *Server) validateCommon(status *string, b customerBody) error {
	if b.Email != nil {
		if a, err := mail.ParseAddress(*b.Email); err != nil || a.Address != *b.Email || len(*b.Email) > 255 {
			return invalidField("email", "email must be a plain e-mail address such as ana@example.com")
		}
	}
	if err := textField("fullName", b.FullName, 255); err != nil {
		return err
	}
	if err := countryField("nationality", b.Nationality); err != nil {
		return err
	}
	for name, v := range map[string]*string{"kycStatus": b.KycStatus, "kybStatus": b.KybStatus} {
		if err := enumField(name, v, kycStatuses); err != nil {
			return err
		}
		if v != nil {
			*status = *v
		}
	}
	return nil
}

func jsonOrNil(v any) []byte {
	switch x := v.(type) {
	case *Address:
		if x == nil {
			return nil
		}
	case *BusinessInfo:
		if x == nil {
			return nil
		}
	}
	b, _ := json.Marshal(v)
	return b
}

func checkUmaAddress(addr, domain string) error {
	m := umaAddressRe.FindStringSubmatch(addr)
	if m == nil {
		return invalidField("umaAddress", "umaAddress must look like $name@%s (lower-case letters, digits, '.', '_' or '-')", domain)
	}
	if m[2] != domain {
		return invalidField("umaAddress", "umaAddress must be on the platform's UMA domain %s", domain)
	}
	return nil
}

// generateUmaAddress derives $<handle>@<domain> from the platform customer id, with a
// random tail so it is unique.
func generateUmaAddress(platformCustomerID, domain string) string {
	h := handleStrip.ReplaceAllString(strings.ToLower(platformCustomerID), "")
	if len(h) > 40 {
		h = h[:40]
	}
	if h == "" {
		h = "user"
	}
	tail := make([]byte, 3)
	_, _ = rand.Read(tail)
	return "$" + h + "." + hex.EncodeToString(tail) + "@" + domain
}

func customerConflict(err error) error {
	if db.IsUniqueViolation(err) {
		if strings.Contains(err.Error(), "uma_address") {
			return &Error{Status: http.StatusConflict, Code: "UMA_ADDRESS_EXISTS", Message: "another customer of the platform already has this umaAddress"}
		}
		if strings.Contains(err.Error(), "platform_customer_id") {
			return &Error{Status: http.StatusConflict, Code: "PLATFORM_CUSTOMER_ID_EXISTS", Message: "another customer of the platform already has this platformCustomerId"}
		}
	}
	return err
}

func (s *Server) getCustomer(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "customerId", ids.Customer, errCustomerNotFound)
	if err != nil {
		return err
	}
	c, err := s.q.CustomerGet(r.Context(), db.CustomerGetParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id})
	if isNoRows(err) {
		return errCustomerNotFound
	}
	if err != nil {
		return fmt.Errorf("get customer: %w", err)
	}
	writeJSON(w, http.StatusOK, customerOf(c))
	return nil
}

func (s *Server) listCustomers(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "platformCustomerId", "customerType", "createdAfter", "createdBefore", "updatedAfter", "updatedBefore",
		"limit", "cursor", "region", "currency", "umaAddress", "isIncludingDeleted")
	p := db.CustomerListParams{
		PlatformID: principalFrom(r.Context()).PlatformID, IncludeDeleted: q.boolean("isIncludingDeleted", false),
		PlatformCustomerID: q.str("platformCustomerId"), CustomerType: q.enum("customerType", Individual, Business),
		Region: q.str("region"), Currency: q.str("currency"), UmaAddress: q.str("umaAddress"),
		CreatedAfter: q.time("createdAfter"), CreatedBefore: q.time("createdBefore"),
		UpdatedAfter: q.time("updatedAfter"), UpdatedBefore: q.time("updatedBefore"),
	}
	if p.Region != nil && !country.Valid(*p.Region) {
		q.fail(invalidField("region", "region must be an ISO 3166-1 alpha-2 country code"))
	}
	limit := q.limit()
	p.AfterID = q.afterID("customers")
	if q.err != nil {
		return q.err
	}
	p.RowLimit = limit + 1
	rows, err := s.q.CustomerList(r.Context(), p)
	if err != nil {
		return fmt.Errorf("list customers: %w", err)
	}
	total, err := s.q.CustomerCount(r.Context(), db.CustomerCountParams{PlatformID: p.PlatformID, IncludeDeleted: p.IncludeDeleted,
		PlatformCustomerID: p.PlatformCustomerID, CustomerType: p.CustomerType, Region: p.Region, Currency: p.Currency, UmaAddress: p.UmaAddress,
		CreatedAfter: p.CreatedAfter, CreatedBefore: p.CreatedBefore, UpdatedAfter: p.UpdatedAfter, UpdatedBefore: p.UpdatedBefore})
	if err != nil {
		return fmt.Errorf("count customers: %w", err)
	}
	writeJSON(w, http.StatusOK, page(rows, limit, total, customerOf, func(c db.Customer) string {
		return cursor.Encode("customers", idCursor{ID: c.ID})
	}))
	return nil
}

func (s *Server) patchCustomer(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "customerId", ids.Customer, errCustomerNotFound)
	if err != nil {
		return err
	}
	b, err := ReadJSON[customerBody](r)
	if err != nil {
		return err
	}
	if b.PlatformCustomerID != nil {
		return invalidField("platformCustomerId", "platformCustomerId cannot be changed")
	}
	if b.Region != nil {
		return invalidField("region", "region is immutable; create a new customer for another region")
	}
	pid := principalFrom(r.Context()).PlatformID
	// Everything that can refuse the request is checked before a wallet signature is asked
	// for (and again under the row lock below).
	cur, err := s.q.CustomerGet(r.Context(), db.CustomerGetParams{PlatformID: pid, ID: id})
	if isNoRows(err) {
		return errCustomerNotFound
	}
	if err != nil {
		return err
	}
	p, err := s.q.PlatformGet(r.Context(), pid)
	if err != nil {
		return err
	}
	if _, err := s.customerUpdate(cur, p, b); err != nil {
		return err
	}
	// Changing the e-mail of a customer whose embedded wallet has an EMAIL_OTP credential
	// moves where its one-time codes go: that needs a wallet session signature, and the
	// credential follows the new address.
	var emailCred *db.AuthCredential
	if b.Email != nil && (cur.Email == nil || *cur.Email != *b.Email) {
		cred, err := s.q.AuthEmailCredentialOfCustomer(r.Context(), uuid.NullUUID{UUID: id, Valid: true})
		if err == nil {
			emailCred = &cred
			ch, err := s.signedRetry(r, signedRequest{accountID: cred.AccountID, kind: "UPDATE_CUSTOMER_EMAIL"})
			if err != nil {
				return err
			}
			if ch != nil {
				writeJSON(w, http.StatusAccepted, ch)
				return nil
			}
		} else if !isNoRows(err) {
			return err
		}
	}
	var out db.Customer
	err = db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		if emailCred != nil {
			if err := q.AuthCredentialSetNickname(r.Context(), db.AuthCredentialSetNicknameParams{ID: emailCred.ID, Nickname: *b.Email}); err != nil {
				return err
			}
		}
		c, err := q.CustomerGetForUpdate(r.Context(), db.CustomerGetForUpdateParams{PlatformID: pid, ID: id})
		if isNoRows(err) {
			return errCustomerNotFound
		}
		if err != nil {
			return err
		}
		upd, err := s.customerUpdate(c, p, b)
		if err != nil {
			return err
		}
		if b.Currencies != nil {
			if err := s.replaceCurrencies(r, q, p, c, *b.Currencies); err != nil {
				return err
			}
		}
		out, err = q.CustomerUpdate(r.Context(), upd)
		return customerConflict(err)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, customerOf(out))
	return nil
}

// customerUpdate validates a PATCH of customer c and returns the row as it would be
// written. It reads nothing and writes nothing.
func (s *Server) customerUpdate(c db.Customer, p db.Platform, b customerBody) (db.CustomerUpdateParams, error) {
	upd := db.CustomerUpdateParams{PlatformID: c.PlatformID, ID: c.ID, Currencies: c.Currencies, Email: c.Email, UmaAddress: c.UmaAddress,
		KycStatus: c.KycStatus, FullName: c.FullName, BirthDate: c.BirthDate, Nationality: c.Nationality, Address: c.Address, BusinessInfo: c.BusinessInfo}
	var err error
	switch {
	case c.IsDeleted:
		return upd, &Error{Status: http.StatusGone, Code: "CUSTOMER_DELETED", Message: "the customer is deleted"}
	case b.CustomerType == nil:
		return upd, invalidField("customerType", "customerType is required (%s)", c.CustomerType)
	case *b.CustomerType != c.CustomerType:
		return upd, invalidField("customerType", "customerType cannot change from %s to %s; create a new customer", c.CustomerType, *b.CustomerType)
	}
	if err := checkTypeFields(c.CustomerType, b); err != nil {
		return upd, err
	}
	if err := s.validateCommon(&upd.KycStatus, b); err != nil {
		return upd, err
	}
	if b.Email != nil {
		upd.Email = b.Email
	}
	if b.FullName != nil {
		upd.FullName = b.FullName
	}
	if b.Nationality != nil {
		upd.Nationality = b.Nationality
	}
	if b.BirthDate != nil {
		if upd.BirthDate, err = dateField("birthDate", b.BirthDate, true); err != nil {
			return upd, err
		}
	}
	if b.Address != nil {
		addr, err := validateAddress("address", b.Address)
		if err != nil {
			return upd, err
		}
		upd.Address = jsonOrNil(addr)
	}
	if b.BusinessInfo != nil {
		bi, err := validateBusinessInfo(b.BusinessInfo, false, customerOf(c).BusinessInfo)
		if err != nil {
			return upd, err
		}
		upd.BusinessInfo = jsonOrNil(bi)
	}
	if b.UmaAddress != nil && *b.UmaAddress != c.UmaAddress {
		if err := checkUmaAddress(*b.UmaAddress, p.UmaDomain); err != nil {
			return upd, err
		}
		upd.UmaAddress = *b.UmaAddress
	}
	if b.Currencies != nil {
		cur, err := platformCurrencies(p)
		if err != nil {
			return upd, err
		}
		if err := checkCurrencies(*b.Currencies, c.Region, cur); err != nil {
			return upd, err
		}
		upd.Currencies = *b.Currencies
	}
	return upd, nil
}

// replaceCurrencies opens accounts for added currencies and closes those of removed ones,
// inside the PATCH's database transaction. db.InternalAccountClose refuses an account that
// holds money, has money held or has money on its way in (the whole PATCH then writes
// nothing); accounts are closed in id order, the ledger's lock order.
func (s *Server) replaceCurrencies(r *http.Request, q *db.Queries, p db.Platform, c db.Customer, next []string) error {
	accounts, err := q.InternalAccountsOfCustomer(r.Context(), uuid.NullUUID{UUID: c.ID, Valid: true})
	if err != nil {
		return err
	}
	open := map[string]bool{}
	for _, a := range accounts {
		open[a.InternalAccount.Currency] = true
		if slices.Contains(next, a.InternalAccount.Currency) {
			continue
		}
		if err := db.InternalAccountClose(r.Context(), q, p.ID, a.InternalAccount.ID); err != nil {
			return err
		}
	}
	for _, cur := range next {
		if open[cur] {
			continue
		}
		if _, err := createInternalAccount(r.Context(), q, s.Box, p.ID, uuid.NullUUID{UUID: c.ID, Valid: true}, cur, accountTypeFor(cur, walletsEnabled(p))); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) deleteCustomer(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "customerId", ids.Customer, errCustomerNotFound)
	if err != nil {
		return err
	}
	pid := principalFrom(r.Context()).PlatformID
	c, err := s.q.CustomerMarkDeleted(r.Context(), db.CustomerMarkDeletedParams{PlatformID: pid, ID: id})
	if isNoRows(err) {
		if _, gerr := s.q.CustomerGet(r.Context(), db.CustomerGetParams{PlatformID: pid, ID: id}); gerr == nil {
			return &Error{Status: http.StatusGone, Code: "CUSTOMER_DELETED", Message: "the customer is already deleted"}
		} else if !isNoRows(gerr) {
			return gerr
		}
		return errCustomerNotFound
	}
	if err != nil {
		return fmt.Errorf("delete customer: %w", err)
	}
	writeJSON(w, http.StatusOK, customerOf(c))
	return nil
}
