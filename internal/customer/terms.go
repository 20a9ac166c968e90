package customer

import (
	"net/netip"
	"slices"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// Ways a customer accepts the End User Terms (acceptanceMethod).
var termsAcceptanceMethods = []string{"CHECKBOX", "CLICK_TO_ACCEPT"}

// maxIPAddressLength bounds ipAddress, in characters (an IPv6 address with an IPv4 tail).
const maxIPAddressLength = 45

// TermsConsent is a customer's recorded acceptance of the End User Terms
// (endUserTermsConsent): when, from which address, which version, and how.
type TermsConsent struct {
	AcceptedAt       time.Time `json:"acceptedAt"`
	IPAddress        string    `json:"ipAddress"`
	TermsVersion     string    `json:"termsVersion"`
	AcceptanceMethod string    `json:"acceptanceMethod"`
}

// TermsConsentInput is endUserTermsConsent as a request gives it.
type TermsConsentInput struct {
	AcceptedAt       *string `json:"acceptedAt"`
	IPAddress        *string `json:"ipAddress"`
	TermsVersion     *string `json:"termsVersion"`
	AcceptanceMethod *string `json:"acceptanceMethod"`
}

// checkConsent is the consent in records, every member required: acceptedAt an RFC 3339
// time, ipAddress an IPv4 or IPv6 address, acceptanceMethod CHECKBOX or CLICK_TO_ACCEPT,
// and termsVersion the version the deployment publishes (current), else
// END_USER_TERMS_VERSION_NOT_FOUND.
func checkConsent(in *TermsConsentInput, current string) (*TermsConsent, error) {
	const f = "endUserTermsConsent."
	switch {
	case in.AcceptedAt == nil:
		return nil, problem.Field(f+"acceptedAt", "endUserTermsConsent.acceptedAt is required")
	case in.IPAddress == nil:
		return nil, problem.Field(f+"ipAddress", "endUserTermsConsent.ipAddress is required")
	case in.TermsVersion == nil:
		return nil, problem.Field(f+"termsVersion", "endUserTermsConsent.termsVersion is required")
	case in.AcceptanceMethod == nil:
		return nil, problem.Field(f+"acceptanceMethod", "endUserTermsConsent.acceptanceMethod is required")
	}
	at, err := time.Parse(time.RFC3339, *in.AcceptedAt)
	if err != nil {
		return nil, problem.Field(f+"acceptedAt", "endUserTermsConsent.acceptedAt must be an RFC 3339 date-time")
	}
	ip, err := netip.ParseAddr(*in.IPAddress)
	if err != nil || len(*in.IPAddress) > maxIPAddressLength || ip.Zone() != "" {
		return nil, problem.Field(f+"ipAddress", "endUserTermsConsent.ipAddress must be an IPv4 or IPv6 address")
	}
	if !slices.Contains(termsAcceptanceMethods, *in.AcceptanceMethod) {
		return nil, problem.Field(f+"acceptanceMethod", "endUserTermsConsent.acceptanceMethod must be CHECKBOX or CLICK_TO_ACCEPT")
	}
	if *in.TermsVersion != current {
		return nil, problem.FieldCode(catalog.EndUserTermsVersionNotFound, f+"termsVersion",
			"End User Terms version %q is not supported; the current version is %q (GET /customers/end-user-terms)", *in.TermsVersion, current)
	}
	return &TermsConsent{AcceptedAt: at.UTC(), IPAddress: ip.String(), TermsVersion: current, AcceptanceMethod: *in.AcceptanceMethod}, nil
}

// TermsNotAccepted refuses moving money for a customer whose platform requires a recorded
// acceptance of the End User Terms it does not have: 403 END_USER_TERMS_NOT_ACCEPTED.
func TermsNotAccepted() error {
	return problem.Refuse(catalog.EndUserTermsNotAccepted,
		"the customer has not accepted the End User Terms; record the acceptance (endUserTermsConsent) with PATCH /customers/{customerId}")
}

// DecodeTermsConsent is the one decoder of a stored consent; nil when there is none.
func DecodeTermsConsent(raw []byte) (*TermsConsent, error) {
	return decode[TermsConsent](raw, "End User Terms consent")
}
