// Package customer holds the rules of a platform's customers, individuals and businesses:
// what a create or update may carry, how the region and currencies of a new customer are
// found, which currencies a customer may hold, and the stored documents (address,
// business information) with their one decoder each. It is pure Go: the API decodes the
// request into an Input, these rules decide, and db stores what they return.
package customer

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// Address is a postal address as stored and shown.
type Address struct {
	Line1      string  `json:"line1"`
	Line2      *string `json:"line2,omitempty"`
	City       *string `json:"city,omitempty"`
	State      *string `json:"state,omitempty"`
	PostalCode string  `json:"postalCode"`
	Country    string  `json:"country"`
}

// BusinessInfo describes a business customer, as stored and shown.
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
	// The newer peer document's business due diligence.
	NaicsCode                        *string  `json:"naicsCode,omitempty"`
	SourceOfFundsCategories          []string `json:"sourceOfFundsCategories,omitempty"`
	SourceOfFundsOtherDescription    *string  `json:"sourceOfFundsOtherDescription,omitempty"`
	PurposeOfAccountOtherDescription *string  `json:"purposeOfAccountOtherDescription,omitempty"`
	ExpectedCounterpartyCountries    []string `json:"expectedCounterpartyCountries,omitempty"`
	PrimaryContactFirstName          *string  `json:"primaryContactFirstName,omitempty"`
	PrimaryContactLastName           *string  `json:"primaryContactLastName,omitempty"`
}

// AddressInput is an address in a request (pointers tell absent from empty).
type AddressInput struct {
	Line1      *string `json:"line1"`
	Line2      *string `json:"line2"`
	City       *string `json:"city"`
	State      *string `json:"state"`
	PostalCode *string `json:"postalCode"`
	Country    *string `json:"country"`
}

// BusinessInfoInput is the business information in a request; in an update, the members
// given replace the stored ones.
type BusinessInfoInput struct {
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
	NaicsCode                        *string  `json:"naicsCode"`
	SourceOfFundsCategories          []string `json:"sourceOfFundsCategories"`
	SourceOfFundsOtherDescription    *string  `json:"sourceOfFundsOtherDescription"`
	PurposeOfAccountOtherDescription *string  `json:"purposeOfAccountOtherDescription"`
	ExpectedCounterpartyCountries    []string `json:"expectedCounterpartyCountries"`
	PrimaryContactFirstName          *string  `json:"primaryContactFirstName"`
	PrimaryContactLastName           *string  `json:"primaryContactLastName"`
}

// Input is the create and update body of both customer types.
type Input struct {
	PlatformCustomerID *string            `json:"platformCustomerId"`
	CustomerType       *string            `json:"customerType"`
	Region             *string            `json:"region"`
	Currencies         *[]string          `json:"currencies"`
	Email              *string            `json:"email"`
	UmaAddress         *string            `json:"umaAddress"`
	KycStatus          *string            `json:"kycStatus"`
	KybStatus          *string            `json:"kybStatus"`
	FullName           *string            `json:"fullName"`
	BirthDate          *string            `json:"birthDate"`
	Nationality        *string            `json:"nationality"`
	Address            *AddressInput      `json:"address"`
	BusinessInfo       *BusinessInfoInput `json:"businessInfo"`
	// The individual's enhanced due diligence (DueDiligence); in an update, the members
	// given replace the stored ones.
	SourceOfFundsCategories          *[]string `json:"sourceOfFundsCategories"`
	SourceOfFundsOtherDescription    *string   `json:"sourceOfFundsOtherDescription"`
	SourceOfWealthCategories         *[]string `json:"sourceOfWealthCategories"`
	SourceOfWealthOtherDescription   *string   `json:"sourceOfWealthOtherDescription"`
	PurposeOfAccount                 *string   `json:"purposeOfAccount"`
	PurposeOfAccountOtherDescription *string   `json:"purposeOfAccountOtherDescription"`
	ExpectedMonthlyTransactionCount  *string   `json:"expectedMonthlyTransactionCount"`
	ExpectedMonthlyTransactionVolume *string   `json:"expectedMonthlyTransactionVolume"`
	AnnualIncomeRange                *string   `json:"annualIncomeRange"`
	NetWorthRange                    *string   `json:"netWorthRange"`
	PepStatus                        *string   `json:"pepStatus"`
	// An individual's tax identification (Identification); identifier is write-only.
	IDType            *string `json:"idType"`
	Identifier        *string `json:"identifier"`
	CountryOfIssuance *string `json:"countryOfIssuance"`
	// EndUserTermsConsent records the customer's acceptance of the End User Terms (on
	// creation or in a later update, which replaces it).
	EndUserTermsConsent *TermsConsentInput `json:"endUserTermsConsent"`
}

// Record is a customer as stored. KycStatus is the KYC status of an individual and the
// KYB status of a business.
type Record struct {
	ID                 uuid.UUID
	PlatformCustomerID string
	Type               catalog.CustomerType
	Region             string
	Currencies         []string
	Email              *string
	UmaAddress         string
	KycStatus          catalog.KycStatus
	FullName           *string
	BirthDate          *time.Time
	Nationality        *string
	Address            *Address
	BusinessInfo       *BusinessInfo
	DueDiligence       *DueDiligence
	Identification     *Identification
	TermsConsent       *TermsConsent
	IsDeleted          bool
}

// DecodeAddress is the one decoder of a stored address; nil when there is none.
func DecodeAddress(raw json.RawMessage) (*Address, error) {
	return decode[Address](raw, "address")
}

// DecodeBusinessInfo is the one decoder of stored business information; nil when there
// is none.
func DecodeBusinessInfo(raw json.RawMessage) (*BusinessInfo, error) {
	return decode[BusinessInfo](raw, "business info")
}

func decode[T any](raw json.RawMessage, what string) (*T, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("decode customer %s: %w", what, err)
	}
	return &v, nil
}

// NotFound is the refusal of an unknown customer (or another platform's).
func NotFound() error { return problem.NotFound(catalog.UserNotFound, "customer") }

// CheckNotDeleted refuses changes to a deleted customer.
func (r Record) CheckNotDeleted() error {
	if r.IsDeleted {
		return problem.Refuse(catalog.CustomerDeleted, "the customer is deleted")
	}
	return nil
}

// AlreadyDeleted is the refusal of deleting a deleted customer again.
func AlreadyDeleted() error {
	return problem.Refuse(catalog.CustomerDeleted, "the customer is already deleted")
}
