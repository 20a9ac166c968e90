package kyc

import (
	"fmt"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/ids"
	"paycore/internal/problem"
)

// SandboxOutcome is the sandbox's KYC or KYB result for a value by its last three
// characters: 001 PENDING (a manual review), 002 REJECTED, 003 HOLD (more information is
// asked for; see Decide), anything else APPROVED. The
// business's registrationNumber decides its KYB, an owner's lastName its KYC, and an
// individual's fullName its KYC.
func SandboxOutcome(v string) catalog.KycStatus {
	if len(v) >= 3 {
		switch v[len(v)-3:] {
		case "001":
			return catalog.KycPending
		case "002":
			return catalog.KycRejected
		case "003":
			return catalog.KycHold
		}
	}
	return catalog.KycApproved
}

// OwnerOutcome is the KYC result of a beneficial owner: in the sandbox by its last name;
// in production, where no automated provider is connected, a manual review (PENDING).
func OwnerOutcome(o customer.Owner, env catalog.Environment) catalog.KycStatus {
	if env != catalog.Sandbox {
		return catalog.KycPending
	}
	return SandboxOutcome(o.PersonalInfo.LastName)
}

// Decision is the outcome of a verification's review: its status, the customer's
// KYC/KYB status that follows, and the errors behind a rejection.
type Decision struct {
	Status   catalog.VerificationStatus
	Customer catalog.KycStatus
	Errors   []Error
}

// OwnersDecided reports whether every owner's KYC has decided, which a business's KYB
// waits for.
func OwnersDecided(owners []customer.Owner) bool {
	for _, o := range owners {
		if !o.KycDecided {
			return false
		}
	}
	return true
}

// Decide reviews a complete submission of customer c with its decided owners. A business
// with a rejected owner is rejected and one with an owner in manual review goes to manual
// review; otherwise the sandbox decides by the registration number (businesses) or the
// full name (individuals). In production a manual review decides.
func Decide(c customer.Record, owners []customer.Owner, env catalog.Environment) Decision {
	var rejected []Error
	review := false
	for _, o := range owners {
		switch o.KycStatus {
		case catalog.KycRejected:
			rejected = append(rejected, Error{ResourceID: ids.Format(ids.BeneficialOwner, o.ID), Type: ApplicantRejected,
				Reason: fmt.Sprintf("the KYC of beneficial owner %s %s was rejected", o.PersonalInfo.FirstName, o.PersonalInfo.LastName)})
		case catalog.KycPending, catalog.KycHold:
			review = true // an owner on hold is reviewed by hand with the business
		}
	}
	outcome := catalog.KycPending
	switch {
	case len(rejected) > 0:
		outcome = catalog.KycRejected
	case review || env != catalog.Sandbox:
	case c.Type == catalog.Business && c.BusinessInfo != nil && c.BusinessInfo.RegistrationNumber != nil:
		outcome = SandboxOutcome(*c.BusinessInfo.RegistrationNumber)
	case c.Type == catalog.Individual && c.FullName != nil:
		outcome = SandboxOutcome(*c.FullName)
	}
	if outcome == catalog.KycHold && DiligenceGiven(c) {
		outcome = catalog.KycApproved // what the hold asked for was given
	}
	d := Decision{Customer: outcome, Errors: rejected}
	switch outcome {
	case catalog.KycHold:
		d.Status = catalog.VerificationResolveErrors
		d.Errors = holdErrors(c)
	case catalog.KycApproved:
		d.Status = catalog.VerificationApproved
	case catalog.KycRejected:
		d.Status = catalog.VerificationRejected
		if len(d.Errors) == 0 {
			d.Errors = []Error{{ResourceID: ids.Format(ids.Customer, c.ID), Type: ApplicantRejected, Reason: "the verification was rejected"}}
		}
	default:
		d.Status = catalog.VerificationManualReview
	}
	return d
}

// holdErrors are what a customer on HOLD is asked for: an individual its enhanced due
// diligence (sources of funds and of wealth), a business its source of funds and an
// explanation of its activity, reviewed by hand once given.
func holdErrors(c customer.Record) []Error {
	cid := ids.Format(ids.Customer, c.ID)
	var fields []string
	if c.Type == catalog.Individual {
		fields = []string{"customer.sourceOfFundsCategories", "customer.sourceOfWealthCategories"}
	} else {
		fields = []string{"customer.businessInfo.sourceOfFunds"}
	}
	out := make([]Error, len(fields))
	for i, f := range fields {
		out[i] = Error{ResourceID: cid, Type: MissingField, Field: &f, Reason: "the customer is on hold: " + f + " is asked for before it can be approved"}
	}
	return out
}

// Ready refuses moving money for customer c unless its KYC/KYB status is APPROVED: a
// regulated platform attests the status, any other platform's customers are verified by
// the service first.
func Ready(c uuid.UUID, status catalog.KycStatus) error {
	if status == catalog.KycApproved {
		return nil
	}
	return problem.Refuse(catalog.UserNotReady, "customer %s cannot move money until its KYC/KYB status is APPROVED (it is %s): "+
		"submit POST /verifications or send a KYC link", ids.Format(ids.Customer, c), status).
		With(map[string]any{"customerId": ids.Format(ids.Customer, c), "kycStatus": string(status)})
}
