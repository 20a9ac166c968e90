package kyc

import (
	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/problem"
)

// The state machine of a verification (one customer's KYC or KYB):
//
//	(none) or RESOLVE_ERRORS --Submit, incomplete--> RESOLVE_ERRORS
//	(none) or RESOLVE_ERRORS --Submit, complete--> IN_PROGRESS          (customer PENDING)
//	IN_PROGRESS --Review (every owner decided)--> APPROVED, REJECTED or PENDING_MANUAL_REVIEW (Decide)
//	PENDING_MANUAL_REVIEW --ManualReview.Decided--> APPROVED or REJECTED
//
// A submission while one is under review (IN_PROGRESS, PENDING_MANUAL_REVIEW,
// READY_FOR_VERIFICATION), or of an APPROVED customer whose last verification APPROVED, is
// answered with that verification and changes nothing. The customer's KYC/KYB status
// follows each decision. db reads the standing under the customer's lock and applies what
// these functions decide.

// Standing is what submitting a customer reads: its open verification's status ("" when
// none is open), its KYC/KYB status, and its latest verification's status ("" when none).
type Standing struct {
	Open     catalog.VerificationStatus
	Customer catalog.KycStatus
	Latest   catalog.VerificationStatus
}

// Answer is what a submission does first.
type Answer int

// The answers: CheckSubmission checks the submission (and write its verification), or answer with the
// open verification or the latest one, as they are.
const (
	CheckSubmission Answer = iota
	AnswerOpen
	AnswerLatest
)

// Answer decides whether a submission is checked, or answered with the verification under
// review, or with the last verification of a customer already APPROVED.
func (s Standing) Answer() Answer {
	switch {
	case s.Open != "" && s.Open != catalog.VerificationResolveErrors:
		return AnswerOpen
	case s.Open == "" && s.Customer == catalog.KycApproved && s.Latest == catalog.VerificationApproved:
		return AnswerLatest
	}
	return CheckSubmission
}

// AwaitsReview reports whether the open verification a submission is answered with still
// waits for the provider's review (IN_PROGRESS): a retried step that committed before must
// still have it reviewed.
func (s Standing) AwaitsReview() bool { return s.Open == catalog.VerificationInProgress }

// Outcome is what a checked submission makes of the verification: its status, whether it
// now waits for its review, and the customer's status that follows ("" unchanged).
type Outcome struct {
	Status     catalog.VerificationStatus
	InProgress bool
	Customer   catalog.KycStatus
}

// Submitted is the outcome of a submission that Check found to lack problems: with any,
// RESOLVE_ERRORS; complete, IN_PROGRESS and the customer PENDING.
func Submitted(problems []Error) Outcome {
	if len(problems) > 0 {
		return Outcome{Status: catalog.VerificationResolveErrors}
	}
	return Outcome{Status: catalog.VerificationInProgress, InProgress: true, Customer: catalog.KycPending}
}

// Reviewable reports whether the provider's review decides a verification in status: only
// IN_PROGRESS; any other is left as it is.
func Reviewable(status catalog.VerificationStatus) bool {
	return status == catalog.VerificationInProgress
}

// Undecided lists the owners whose KYC is still under review: a business's review waits
// for them (none: Decide decides).
func Undecided(owners []customer.Owner) []uuid.UUID {
	var out []uuid.UUID
	for _, o := range owners {
		if !o.KycDecided {
			out = append(out, o.ID)
		}
	}
	return out
}

// VerificationNotFound is the refusal of a verification the caller's platform does not
// have: 404 NOT_FOUND.
func VerificationNotFound() error { return problem.NotFound(catalog.NotFound, "verification") }
