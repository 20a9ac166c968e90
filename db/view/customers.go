package view

import (
	"time"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/ids"
)

// Customer is an individual or business customer of a platform.
type Customer struct {
	ID                 string                 `json:"id"`
	PlatformCustomerID string                 `json:"platformCustomerId"`
	CustomerType       catalog.CustomerType   `json:"customerType"`
	Region             string                 `json:"region"`
	Currencies         []string               `json:"currencies"`
	Email              *string                `json:"email,omitempty"`
	UmaAddress         string                 `json:"umaAddress"`
	CreatedAt          time.Time              `json:"createdAt"`
	UpdatedAt          time.Time              `json:"updatedAt"`
	IsDeleted          bool                   `json:"isDeleted"`
	KycStatus          *catalog.KycStatus     `json:"kycStatus,omitempty"`
	KybStatus          *catalog.KycStatus     `json:"kybStatus,omitempty"`
	FullName           *string                `json:"fullName,omitempty"`
	BirthDate          *string                `json:"birthDate,omitempty"`
	Nationality        *string                `json:"nationality,omitempty"`
	Address            *customer.Address      `json:"address,omitempty"`
	BusinessInfo       *customer.BusinessInfo `json:"businessInfo,omitempty"`
	BeneficialOwners   []BeneficialOwner      `json:"beneficialOwners,omitempty"`
	// EndUserTermsConsent is the customer's recorded acceptance of the End User Terms;
	// omitted until one is recorded.
	EndUserTermsConsent *customer.TermsConsent `json:"endUserTermsConsent,omitempty"`
	// IDType and CountryOfIssuance are an individual's tax identification; its identifier
	// is write-only and never shown.
	IDType            *string `json:"idType,omitempty"`
	CountryOfIssuance *string `json:"countryOfIssuance,omitempty"`
	// DueDiligence is an individual's enhanced due diligence, its members at the top level
	// (sourceOfFundsCategories, pepStatus …), each omitted until given.
	*customer.DueDiligence
}

// BusinessOf renders a business customer with its beneficial owners.
func BusinessOf(c db.Customer, owners []db.BeneficialOwner) Customer {
	out := CustomerOf(c)
	out.BeneficialOwners = make([]BeneficialOwner, len(owners))
	for i, o := range owners {
		out.BeneficialOwners[i] = BeneficialOwnerOf(o)
	}
	return out
}

// CustomerOf renders a customer: a business shows its verification status as kybStatus,
// an individual as kycStatus. The stored address and business information are written
// only from checked documents; one that does not decode is left out.
func CustomerOf(c db.Customer) Customer {
	out := Customer{ID: ids.Format(ids.Customer, c.ID), PlatformCustomerID: c.PlatformCustomerID, CustomerType: c.CustomerType,
		Region: c.Region, Currencies: c.Currencies, Email: c.Email, UmaAddress: c.UmaAddress, CreatedAt: c.CreatedAt,
		UpdatedAt: c.UpdatedAt, IsDeleted: c.IsDeleted, FullName: c.FullName, Nationality: c.Nationality}
	status := c.KycStatus
	if c.CustomerType == catalog.Business {
		out.KybStatus = &status
	} else {
		out.KycStatus = &status
	}
	if c.BirthDate != nil {
		d := c.BirthDate.Format(time.DateOnly)
		out.BirthDate = &d
	}
	out.Address, _ = customer.DecodeAddress(c.Address)
	out.BusinessInfo, _ = customer.DecodeBusinessInfo(c.BusinessInfo)
	out.EndUserTermsConsent, _ = customer.DecodeTermsConsent(c.EndUserTermsConsent)
	out.DueDiligence, _ = customer.DecodeDueDiligence(c.DueDiligence)
	out.IDType, out.CountryOfIssuance = c.IDType, c.IDCountry
	return out
}
