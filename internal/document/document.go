// Package document holds the rules of KYC/KYB documents: the document types and their
// groups, the sides, who may hold a document, the one check of an upload's or a
// replacement's form fields, and the check of the file itself (PDF, JPEG or PNG by its
// content, agreeing with its name and declared type, at most MaxFileBytes).
package document

import (
	"slices"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/problem"
)

// Type is a DocumentType.
type Type string

// Document types.
const (
	Passport                    Type = "PASSPORT"
	DriversLicense              Type = "DRIVERS_LICENSE"
	NationalID                  Type = "NATIONAL_ID"
	ProofOfAddress              Type = "PROOF_OF_ADDRESS"
	BankStatement               Type = "BANK_STATEMENT"
	TaxReturn                   Type = "TAX_RETURN"
	CertificateOfIncorporation  Type = "CERTIFICATE_OF_INCORPORATION"
	ArticlesOfIncorporation     Type = "ARTICLES_OF_INCORPORATION"
	ArticlesOfAssociation       Type = "ARTICLES_OF_ASSOCIATION"
	StateRegistryExcerpt        Type = "STATE_REGISTRY_EXCERPT"
	GoodStandingCertificate     Type = "GOOD_STANDING_CERTIFICATE"
	InformationStatement        Type = "INFORMATION_STATEMENT"
	IncumbencyCertificate       Type = "INCUMBENCY_CERTIFICATE"
	BusinessLicense             Type = "BUSINESS_LICENSE"
	ShareholderRegister         Type = "SHAREHOLDER_REGISTER"
	PowerOfAttorney             Type = "POWER_OF_ATTORNEY"
	UtilityBill                 Type = "UTILITY_BILL"
	ElectricityBill             Type = "ELECTRICITY_BILL"
	RentOrLeaseAgreement        Type = "RENT_OR_LEASE_AGREEMENT"
	DirectorRegistry            Type = "DIRECTOR_REGISTRY"
	TrustAgreement              Type = "TRUST_AGREEMENT"
	StateCompanyRegistry        Type = "STATE_COMPANY_REGISTRY"
	PartnershipControlAgreement Type = "PARTNERSHIP_CONTROL_AGREEMENT"
	PartnershipAgreement        Type = "PARTNERSHIP_AGREEMENT"
	Selfie                      Type = "SELFIE"
	Other                       Type = "OTHER"
)

// Types are every document type, in the catalogue's order.
var Types = []Type{Passport, DriversLicense, NationalID, ProofOfAddress, BankStatement, TaxReturn,
	CertificateOfIncorporation, ArticlesOfIncorporation, ArticlesOfAssociation, StateRegistryExcerpt,
	GoodStandingCertificate, InformationStatement, IncumbencyCertificate, BusinessLicense, ShareholderRegister,
	PowerOfAttorney, UtilityBill, ElectricityBill, RentOrLeaseAgreement, DirectorRegistry, TrustAgreement,
	StateCompanyRegistry, PartnershipControlAgreement, PartnershipAgreement, Selfie, Other}

// The groups of document types a verification asks for (acceptedDocumentTypes of its
// MISSING_*_DOCUMENT errors). A type may be in more than one group (TRUST_AGREEMENT).
var (
	IdentityGroup         = []Type{Passport, DriversLicense, NationalID}
	LegalPresenceGroup    = []Type{CertificateOfIncorporation, ArticlesOfIncorporation, ArticlesOfAssociation, StateRegistryExcerpt}
	ControlStructureGroup = []Type{DirectorRegistry, TrustAgreement, StateCompanyRegistry, PartnershipControlAgreement}
	OwnershipGroup        = []Type{ShareholderRegister, TrustAgreement, PartnershipAgreement}
	ProofOfAddressGroup   = []Type{UtilityBill, RentOrLeaseAgreement, ElectricityBill, BankStatement, TaxReturn}
)

// ValidType reports whether s is a document type.
func ValidType(s string) bool { return slices.Contains(Types, Type(s)) }

// Side is the side of a two-sided document.
type Side string

// Sides.
const (
	Front Side = "FRONT"
	Back  Side = "BACK"
)

// HolderKind is what holds a document: a customer or one of a business customer's
// beneficial owners. Its value is the id prefix.
type HolderKind string

// Holder kinds.
const (
	HolderCustomer        HolderKind = ids.Customer
	HolderBeneficialOwner HolderKind = ids.BeneficialOwner
)

// Holder is the customer or beneficial owner a document belongs to.
type Holder struct {
	Kind HolderKind
	ID   uuid.UUID
}

// String is the holder's id, e.g. "Customer:<uuid>".
func (h Holder) String() string { return ids.Format(string(h.Kind), h.ID) }

// ParseHolder reads a documentHolder: a Customer or a BeneficialOwner id. field names the
// input in the error.
func ParseHolder(field, s string) (Holder, error) {
	for _, k := range []HolderKind{HolderCustomer, HolderBeneficialOwner} {
		if id, err := ids.Parse(string(k), s); err == nil {
			return Holder{Kind: k, ID: id}, nil
		}
	}
	return Holder{}, problem.Field(field, "%s must be a Customer or BeneficialOwner id (Customer:<uuid> or BeneficialOwner:<uuid>, lower case)", field)
}

// HolderNotFound is the refusal of a documentHolder that does not exist on the platform.
func HolderNotFound(h Holder) error {
	return problem.Refuse(catalog.ReferenceNotFound, "documentHolder %s not found", h).With(map[string]any{"field": "documentHolder"})
}

// NotFound is the refusal of an unknown (or another platform's) document.
func NotFound() error { return problem.NotFound(catalog.DocumentNotFound, "document") }

// Submitted is the refusal to change or delete a document that was submitted for
// verification.
func Submitted() error {
	return problem.Refuse(catalog.DocumentSubmitted,
		"the document was submitted for verification and can no longer be replaced or deleted; upload a new document instead")
}

// CheckCustomerCount refuses a write after which a customer and its beneficial owners would
// hold n documents, over max (PAYCORE_DOCUMENTS_PER_CUSTOMER).
func CheckCustomerCount(n, max int) error {
	if n > max {
		return problem.Refuse(catalog.DocumentLimitReached,
			"a customer and its beneficial owners hold at most %d documents; delete one that was not submitted, or replace it, before adding another", max)
	}
	return nil
}

// CheckLinkCount refuses a KYC page submission after which its link would have stored n
// files, over max (PAYCORE_KYC_LINK_DOCUMENTS): a link takes a bounded number of files over
// all its submissions, replaced ones included.
func CheckLinkCount(n, max int) error {
	if n > max {
		return problem.Refuse(catalog.DocumentLimitReached,
			"this verification link has taken its %d files; ask for a new link to send more", max)
	}
	return nil
}

// CheckHolder decides whether a document may be stored for a holder as resolved: the
// customer it is verified with must not be deleted (410 CUSTOMER_DELETED). A deleted
// customer's documents can still be read and deleted.
func CheckHolder(customerDeleted bool) error {
	if customerDeleted {
		return problem.Refuse(catalog.CustomerDeleted, "the documentHolder's customer is deleted; its documents can be read and deleted but not added or replaced")
	}
	return nil
}

// CheckReplace decides whether a replacement may be stored over a document held by
// current: the document must not have been submitted for verification (409), and a
// documentHolder the replacement names must be the document's own (a document never
// moves to another holder).
func CheckReplace(current Holder, submitted bool, f Fields) error {
	if submitted {
		return Submitted()
	}
	if f.Holder != nil && *f.Holder != current {
		return problem.Field(FieldDocumentHolder, "documentHolder %s is not the document's holder (%s); a document cannot move to another holder, upload a new one instead",
			f.Holder, current)
	}
	return nil
}
