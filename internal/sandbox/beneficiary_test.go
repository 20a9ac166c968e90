package sandbox

import (
	"testing"

	"paycore/internal/catalog"
)

func TestBeneficiaryCheck(t *testing.T) {
	for id, want := range map[string]catalog.BeneficiaryStatus{
		"000123456102": catalog.BeneficiaryNotMatched,
		"000123456103": catalog.BeneficiaryPartialMatch,
		"000123456104": catalog.BeneficiaryPending,
		"000123456106": catalog.BeneficiaryUnsupported,
		"000123456107": catalog.BeneficiaryCheckedByBank,
		"000123456789": catalog.BeneficiaryMatched,
	} {
		if got, invalid := BeneficiaryCheck(id); got != want || invalid {
			t.Errorf("%s: %s (invalid %v), want %s", id, got, invalid, want)
		}
	}
	if _, invalid := BeneficiaryCheck("000123456105"); !invalid {
		t.Error("105 is not reported as an invalid account")
	}
}
