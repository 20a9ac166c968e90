package kyc

import (
	"testing"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func TestManualReview(t *testing.T) {
	ok := ManualReview{Status: catalog.VerificationApproved, Operator: "dora"}
	for _, tc := range []struct {
		m  ManualReview
		ok bool
	}{
		{ok, true},
		{ManualReview{Status: catalog.VerificationRejected, Operator: "dora", Reason: "forged"}, true},
		{ManualReview{Status: catalog.VerificationRejected, Operator: "dora"}, false},
		{ManualReview{Status: catalog.VerificationApproved}, false},
		{ManualReview{Status: catalog.VerificationInProgress, Operator: "dora"}, false},
	} {
		err := tc.m.Check()
		if (err == nil) != tc.ok {
			t.Errorf("%+v: %v", tc.m, err)
		}
		if w, coded := problem.ToWire(err); err != nil && (!coded || w.Code != catalog.InvalidInput || w.Field == "") {
			t.Errorf("%+v: the refusal %v is not an INVALID_INPUT naming its field", tc.m, err)
		}
	}
	cust := uuid.New()
	d, err := ok.Decided(cust, catalog.VerificationManualReview)
	if err != nil || d.Status != catalog.VerificationApproved || d.Customer != catalog.KycApproved || len(d.Errors) != 0 {
		t.Fatalf("approved: %+v %v", d, err)
	}
	rej := ManualReview{Status: catalog.VerificationRejected, Operator: "dora", Reason: "forged"}
	d, err = rej.Decided(cust, catalog.VerificationManualReview)
	if err != nil || d.Customer != catalog.KycRejected || len(d.Errors) != 1 || d.Errors[0].Type != ApplicantRejected {
		t.Fatalf("rejected: %+v %v", d, err)
	}
	if _, err := ok.Decided(cust, catalog.VerificationApproved); err == nil {
		t.Fatal("a decided verification was reviewed")
	} else if w, _ := problem.ToWire(err); w.Code != catalog.Conflict {
		t.Fatalf("refusal %v", err)
	}
}
