package kyc

import (
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/problem"
)

// ManualReview is an operator's decision on a verification waiting in
// PENDING_MANUAL_REVIEW (paycore verifications review): production verifications wait
// there, since no automated provider is connected. It reaches the customer's verification
// workflow as an update, so the workflow's history shows who decided and why.
type ManualReview struct {
	VerificationID uuid.UUID                  `json:"verificationId"`
	Status         catalog.VerificationStatus `json:"status"`
	Operator       string                     `json:"operator"`
	Reason         string                     `json:"reason,omitempty"`
}

// MaxReviewReasonLength bounds a manual review's reason, in characters.
const MaxReviewReasonLength = 500

// Check refuses a review that decides anything but APPROVED or REJECTED, does not say who
// decides, or rejects without a reason: an INVALID_INPUT refusal naming the field.
func (m ManualReview) Check() error {
	switch {
	case m.Status != catalog.VerificationApproved && m.Status != catalog.VerificationRejected:
		return problem.Field("status", "a manual review decides %s or %s, not %q", catalog.VerificationApproved, catalog.VerificationRejected, m.Status)
	case strings.TrimSpace(m.Operator) == "":
		return problem.Field("operator", "a manual review names the operator who decides")
	case m.Status == catalog.VerificationRejected && strings.TrimSpace(m.Reason) == "":
		return problem.Field("reason", "a rejection needs a reason")
	case !utf8.ValidString(m.Reason) || utf8.RuneCountInString(m.Reason) > MaxReviewReasonLength:
		return problem.Field("reason", "the reason must be at most %d characters", MaxReviewReasonLength)
	}
	return nil
}

// Decided is the decision a manual review makes of customer customerID's verification in
// PENDING_MANUAL_REVIEW (its status): the customer's KYC/KYB status follows, and a
// rejection carries the operator's reason.
func (m ManualReview) Decided(customerID uuid.UUID, status catalog.VerificationStatus) (Decision, error) {
	if status != catalog.VerificationManualReview {
		return Decision{}, problem.Refuse(catalog.Conflict, "the verification is %s, not waiting for a manual review", status).
			With(map[string]any{"verificationStatus": string(status)})
	}
	d := Decision{Status: m.Status, Customer: catalog.KycApproved}
	if m.Status == catalog.VerificationRejected {
		d.Customer = catalog.KycRejected
		d.Errors = []Error{{ResourceID: ids.Format(ids.Customer, customerID), Type: ApplicantRejected,
			Reason: "rejected in manual review: " + m.Reason}}
	}
	return d, nil
}
