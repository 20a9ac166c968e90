package view

import (
	"encoding/json"
	"time"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/ids"
	"paycore/internal/kyc"
)

var _ db.KycViews = Resources{}

// Customer renders a customer (the data of CUSTOMER_* webhooks).
func (Resources) Customer(c db.Customer) any { return CustomerOf(c) }

// Verification renders a verification (the data of VERIFICATION_* webhooks).
func (Resources) Verification(v db.Verification) any { return VerificationOf(v) }

// BeneficialOwner is a beneficial owner, director or officer of a business customer.
type BeneficialOwner struct {
	ID                  string                `json:"id"`
	CustomerID          string                `json:"customerId"`
	Roles               []string              `json:"roles"`
	OwnershipPercentage int32                 `json:"ownershipPercentage"`
	PersonalInfo        customer.PersonalInfo `json:"personalInfo"`
	KycStatus           catalog.KycStatus     `json:"kycStatus"`
	CreatedAt           time.Time             `json:"createdAt"`
	UpdatedAt           time.Time             `json:"updatedAt"`
}

// BeneficialOwnerOf renders a beneficial owner; personal information that does not decode
// (it is written only from checked documents) is left empty.
func BeneficialOwnerOf(o db.BeneficialOwner) BeneficialOwner {
	out := BeneficialOwner{ID: ids.Format(ids.BeneficialOwner, o.ID), CustomerID: ids.Format(ids.Customer, o.CustomerID), Roles: o.Roles,
		OwnershipPercentage: o.OwnershipPercentage, KycStatus: o.KycStatus, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
	_ = json.Unmarshal(o.PersonalInfo, &out.PersonalInfo)
	return out
}

// Verification is a KYC/KYB verification of a customer.
type Verification struct {
	ID                 string                     `json:"id"`
	CustomerID         string                     `json:"customerId"`
	VerificationStatus catalog.VerificationStatus `json:"verificationStatus"`
	Errors             []kyc.Error                `json:"errors"`
	CreatedAt          time.Time                  `json:"createdAt"`
	UpdatedAt          time.Time                  `json:"updatedAt"`
}

// VerificationOf renders a verification.
func VerificationOf(v db.Verification) Verification {
	out := Verification{ID: ids.Format(ids.Verification, v.ID), CustomerID: ids.Format(ids.Customer, v.CustomerID),
		VerificationStatus: v.Status, Errors: []kyc.Error{}, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
	_ = json.Unmarshal(v.Errors, &out.Errors)
	if out.Errors == nil {
		out.Errors = []kyc.Error{}
	}
	return out
}
