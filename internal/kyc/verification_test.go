package kyc

import (
	"testing"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/problem"
)

// Submitting from every standing: a verification under review (or ready for it) answers
// the submission as it is; the last verification of an APPROVED customer without an open
// one answers it too; anything else (none, RESOLVE_ERRORS, a decided one of a customer not
// approved) is checked again.
func TestSubmitAnswer(t *testing.T) {
	const none = catalog.VerificationStatus("")
	for _, tc := range []struct {
		s    Standing
		want Answer
	}{
		{Standing{Open: none, Customer: catalog.KycUnverified}, CheckSubmission},
		{Standing{Open: none, Customer: catalog.KycUnverified, Latest: catalog.VerificationRejected}, CheckSubmission},
		{Standing{Open: none, Customer: catalog.KycRejected, Latest: catalog.VerificationRejected}, CheckSubmission},
		{Standing{Open: none, Customer: catalog.KycApproved, Latest: catalog.VerificationApproved}, AnswerLatest},
		{Standing{Open: none, Customer: catalog.KycApproved}, CheckSubmission},
		{Standing{Open: none, Customer: catalog.KycApproved, Latest: catalog.VerificationRejected}, CheckSubmission},
		{Standing{Open: none, Customer: catalog.KycPending, Latest: catalog.VerificationApproved}, CheckSubmission},
		{Standing{Open: catalog.VerificationResolveErrors, Customer: catalog.KycUnverified}, CheckSubmission},
		{Standing{Open: catalog.VerificationResolveErrors, Customer: catalog.KycApproved, Latest: catalog.VerificationResolveErrors}, CheckSubmission},
		{Standing{Open: catalog.VerificationInProgress, Customer: catalog.KycPending}, AnswerOpen},
		{Standing{Open: catalog.VerificationManualReview, Customer: catalog.KycPending}, AnswerOpen},
		{Standing{Open: catalog.VerificationReady, Customer: catalog.KycUnverified}, AnswerOpen},
	} {
		if got := tc.s.Answer(); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.s, got, tc.want)
		}
	}
	// An answered IN_PROGRESS verification still waits for its review.
	if !(Standing{Open: catalog.VerificationInProgress}).AwaitsReview() || (Standing{Open: catalog.VerificationManualReview}).AwaitsReview() {
		t.Error("only IN_PROGRESS awaits the provider's review")
	}
}

// A checked submission: complete, it is IN_PROGRESS and the customer PENDING; lacking
// anything, RESOLVE_ERRORS and the customer as it is.
func TestSubmitted(t *testing.T) {
	if o := Submitted(nil); o.Status != catalog.VerificationInProgress || !o.InProgress || o.Customer != catalog.KycPending {
		t.Errorf("complete: %+v", o)
	}
	if o := Submitted([]Error{{Type: MissingField}}); o.Status != catalog.VerificationResolveErrors || o.InProgress || o.Customer != "" {
		t.Errorf("incomplete: %+v", o)
	}
}

// The provider reviews an IN_PROGRESS verification only, and only once every owner's KYC
// has decided; an operator decides one in PENDING_MANUAL_REVIEW only (409 CONFLICT for
// any other status).
func TestReviewTransitions(t *testing.T) {
	cust := uuid.New()
	m := ManualReview{Status: catalog.VerificationApproved, Operator: "dora"}
	for _, st := range catalog.VerificationStatuses {
		if got, want := Reviewable(st), st == catalog.VerificationInProgress; got != want {
			t.Errorf("reviewable %s: %v", st, got)
		}
		_, err := m.Decided(cust, st)
		if st == catalog.VerificationManualReview {
			if err != nil {
				t.Errorf("manual review of %s: %v", st, err)
			}
		} else if problem.CodeOf(err) != catalog.Conflict {
			t.Errorf("manual review of %s: %v, want CONFLICT", st, err)
		}
	}
	a, b := uuid.New(), uuid.New()
	owners := []customer.Owner{{ID: a, KycDecided: true}, {ID: b}}
	if got := Undecided(owners); len(got) != 1 || got[0] != b {
		t.Errorf("undecided %v", got)
	}
	if got := Undecided(owners[:1]); len(got) != 0 {
		t.Errorf("all decided: %v", got)
	}
}
