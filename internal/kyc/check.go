// Package kyc holds the rules of customer verification (KYC of individuals, KYB of
// businesses and the KYC of their beneficial owners): what a submission must carry before
// it can be reviewed (the verification errors), how the sandbox decides, and whether a
// customer may move money. It is pure Go: db reads the submission, these rules decide.
package kyc

import (
	"slices"
	"strings"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/ids"
)

// Verification error types (VerificationErrorType).
const (
	MissingField                      = "MISSING_FIELD"
	MissingLegalPresenceDocument      = "MISSING_LEGAL_PRESENCE_DOCUMENT"
	MissingControlStructureDocument   = "MISSING_CONTROL_STRUCTURE_DOCUMENT"
	MissingOwnershipStructureDocument = "MISSING_OWNERSHIP_STRUCTURE_DOCUMENT"
	MissingProofOfAddressDocument     = "MISSING_PROOF_OF_ADDRESS_DOCUMENT"
	MissingIdentityDocument           = "MISSING_IDENTITY_DOCUMENT"
	MissingBeneficialOwner            = "MISSING_BENEFICIAL_OWNER"
	ApplicantRejected                 = "APPLICANT_REJECTED"
)

// Document groups: the document types that satisfy each MISSING_*_DOCUMENT error.
var (
	IdentityDocuments           = []string{"PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"}
	LegalPresenceDocuments      = []string{"CERTIFICATE_OF_INCORPORATION", "ARTICLES_OF_INCORPORATION", "ARTICLES_OF_ASSOCIATION", "STATE_REGISTRY_EXCERPT"}
	ControlStructureDocuments   = []string{"DIRECTOR_REGISTRY", "TRUST_AGREEMENT", "STATE_COMPANY_REGISTRY", "PARTNERSHIP_CONTROL_AGREEMENT"}
	OwnershipStructureDocuments = []string{"SHAREHOLDER_REGISTER", "TRUST_AGREEMENT", "PARTNERSHIP_AGREEMENT"}
	ProofOfAddressDocuments     = []string{"UTILITY_BILL", "RENT_OR_LEASE_AGREEMENT", "ELECTRICITY_BILL", "BANK_STATEMENT", "TAX_RETURN"}
)

// Error is one thing a submission lacks (VerificationError): on the customer, one of its
// beneficial owners or one of their documents (ResourceID).
type Error struct {
	ResourceID            string   `json:"resourceId"`
	Type                  string   `json:"type"`
	Field                 *string  `json:"field,omitempty"`
	AcceptedDocumentTypes []string `json:"acceptedDocumentTypes,omitempty"`
	Reason                string   `json:"reason"`
}

// Document is an uploaded document as a submission sees it.
type Document struct {
	ID uuid.UUID
	// Holder is the customer or beneficial owner the document belongs to.
	Holder uuid.UUID
	Type   string
}

// Submission is everything a verification reviews: the customer, its beneficial owners
// (businesses), the documents of both, and the customer fields the platform's provider
// requires for the customer's currencies (providerRequiredCustomerFields).
type Submission struct {
	Customer  customer.Record
	Owners    []customer.Owner
	Documents []Document
	Required  []string
}

// DiligenceRequired reports whether customer c owes enhanced due diligence: an individual
// who expects to move 100,000 or more a month or who is politically exposed (pepStatus other
// than NONE) gives its sources of funds and of wealth and its annual income; a business that
// expects to move 1,000,000 or more a month its source of funds.
func DiligenceRequired(c customer.Record) bool {
	if c.Type == catalog.Business {
		b := c.BusinessInfo
		return b != nil && b.ExpectedMonthlyTransactionVolume != nil &&
			slices.Contains([]string{"VOLUME_1M_TO_10M", "VOLUME_OVER_10M"}, *b.ExpectedMonthlyTransactionVolume)
	}
	d := c.DueDiligence
	if d == nil {
		return false
	}
	large := d.ExpectedMonthlyTransactionVolume != nil &&
		slices.Contains([]string{"VOLUME_100K_TO_1M", "VOLUME_1M_TO_10M", "VOLUME_OVER_10M"}, *d.ExpectedMonthlyTransactionVolume)
	exposed := d.PepStatus != nil && *d.PepStatus != "NONE"
	return large || exposed
}

// DiligenceGiven reports whether a customer gave what a customer on HOLD is asked for: an
// individual its sources of funds and of wealth, a business its source of funds.
func DiligenceGiven(c customer.Record) bool {
	if c.Type == catalog.Business {
		return c.BusinessInfo != nil && c.BusinessInfo.SourceOfFunds != nil
	}
	d := c.DueDiligence
	return d != nil && len(d.SourceOfFundsCategories) > 0 && len(d.SourceOfWealthCategories) > 0
}

// Check lists what s lacks before it can be reviewed, in a stable order: the customer's
// fields, the customer's documents, its owners, then each owner's documents. Empty means
// the submission is complete.
//
// Fields: an individual needs fullName, birthDate, nationality and an address; a business
// needs businessInfo.legalName, registrationNumber and country and an address; the
// provider's required fields add to these. Documents: an individual needs an identity
// document; a business a legal-presence document, and unless it is a sole
// proprietorship an ownership-structure document and an owner who is a UBO or control
// person, each owner an identity document; a partnership also a
// control-structure document. Outside the US, every customer also needs a proof of
// address. A customer owing enhanced due diligence (DiligenceRequired) needs it too.
func Check(s Submission) []Error {
	c := s.Customer
	cid := ids.Format(ids.Customer, c.ID)
	var out []Error
	for _, f := range missingFields(c, s.Required) {
		field := "customer." + f
		out = append(out, Error{ResourceID: cid, Type: MissingField, Field: &field, Reason: field + " is required for verification"})
	}
	has := func(holder uuid.UUID, group []string) bool {
		return slices.ContainsFunc(s.Documents, func(d Document) bool { return d.Holder == holder && slices.Contains(group, d.Type) })
	}
	need := func(holder uuid.UUID, resource, typ string, group []string, what string) {
		if !has(holder, group) {
			out = append(out, Error{ResourceID: resource, Type: typ, AcceptedDocumentTypes: group,
				Reason: what + " is required: upload one of " + strings.Join(group, ", ")})
		}
	}
	entity := ""
	if c.BusinessInfo != nil && c.BusinessInfo.EntityType != nil {
		entity = *c.BusinessInfo.EntityType
	}
	if c.Type == catalog.Individual {
		need(c.ID, cid, MissingIdentityDocument, IdentityDocuments, "an identity document")
	} else {
		need(c.ID, cid, MissingLegalPresenceDocument, LegalPresenceDocuments, "a legal-presence document")
		// A sole proprietor owns itself; a listed company's owners are public record.
		if entity != "SOLE_PROPRIETORSHIP" && entity != "PUBLICLY_LISTED_COMPANY" {
			need(c.ID, cid, MissingOwnershipStructureDocument, OwnershipStructureDocuments, "an ownership-structure document")
		}
		// Who controls a partnership, a trust, a foundation or a charity is in its governing
		// documents (the partnership or trust agreement, the statutes).
		if slices.Contains([]string{"PARTNERSHIP", "TRUST", "PRIVATE_FOUNDATION", "CHARITY"}, entity) {
			need(c.ID, cid, MissingControlStructureDocument, ControlStructureDocuments, "a control-structure document")
		}
	}
	if c.Region != "US" {
		need(c.ID, cid, MissingProofOfAddressDocument, ProofOfAddressDocuments, "a proof of address")
	}
	if c.Type == catalog.Business {
		controller := slices.ContainsFunc(s.Owners, func(o customer.Owner) bool {
			return slices.Contains(o.Roles, "UBO") || slices.Contains(o.Roles, "CONTROL_PERSON")
		})
		if !controller && entity != "SOLE_PROPRIETORSHIP" {
			out = append(out, Error{ResourceID: cid, Type: MissingBeneficialOwner,
				Reason: "a business needs at least one beneficial owner with role UBO or CONTROL_PERSON (POST /beneficial-owners)"})
		}
		for _, o := range s.Owners {
			need(o.ID, ids.Format(ids.BeneficialOwner, o.ID), MissingIdentityDocument, IdentityDocuments, "an identity document of the owner")
		}
	}
	return out
}

// missingFields are the dotted paths (below "customer.") of the fields c lacks.
func missingFields(c customer.Record, required []string) []string {
	present := map[string]bool{}
	var order []string
	want := func(path string, ok bool) {
		if _, seen := present[path]; !seen {
			order = append(order, path)
		}
		present[path] = present[path] || ok
	}
	address := func() {
		want("address.line1", c.Address != nil)
		want("address.postalCode", c.Address != nil)
		want("address.country", c.Address != nil)
	}
	if c.Type == catalog.Individual {
		for _, f := range append([]string{"FULL_NAME", "BIRTH_DATE", "NATIONALITY", "POSTAL_ADDRESS"}, required...) {
			switch f {
			case "FULL_NAME":
				want("fullName", c.FullName != nil)
			case "BIRTH_DATE":
				want("birthDate", c.BirthDate != nil)
			case "NATIONALITY":
				want("nationality", c.Nationality != nil)
			case "POSTAL_ADDRESS", "COUNTRY_OF_RESIDENCE":
				address()
			case "EMAIL":
				want("email", c.Email != nil)
			}
		}
		if DiligenceRequired(c) {
			d := c.DueDiligence
			if d == nil {
				d = &customer.DueDiligence{}
			}
			want("sourceOfFundsCategories", len(d.SourceOfFundsCategories) > 0)
			want("sourceOfWealthCategories", len(d.SourceOfWealthCategories) > 0)
			want("annualIncomeRange", d.AnnualIncomeRange != nil)
		}
	} else {
		b := c.BusinessInfo
		if b == nil {
			b = &customer.BusinessInfo{}
		}
		for _, f := range append([]string{"COMPANY_LEGAL_NAME", "REGISTRATION_NUMBER", "COUNTRY", "POSTAL_ADDRESS"}, required...) {
			switch f {
			case "FULL_NAME", "COMPANY_LEGAL_NAME":
				want("businessInfo.legalName", b.LegalName != "")
			case "REGISTRATION_NUMBER":
				want("businessInfo.registrationNumber", b.RegistrationNumber != nil)
			case "COUNTRY":
				want("businessInfo.country", b.Country != nil)
			case "TAX_ID":
				want("businessInfo.taxId", b.TaxID != nil)
			case "BUSINESS_TYPE":
				want("businessInfo.businessType", b.BusinessType != nil)
			case "POSTAL_ADDRESS", "COUNTRY_OF_RESIDENCE":
				address()
			case "EMAIL":
				want("email", c.Email != nil)
			}
		}
		if DiligenceRequired(c) {
			want("businessInfo.sourceOfFunds", b.SourceOfFunds != nil)
		}
	}
	var out []string
	for _, p := range order {
		if !present[p] {
			out = append(out, p)
		}
	}
	return out
}
