package config

import (
	"testing"
	"time"
)

// The document caps and the KYC link's submission limit: defaults, overrides, and what is
// refused.
func TestDocumentLimitSettings(t *testing.T) {
	d := Defaults()
	if d.DocumentsPerCustomer != 30 || d.KycLinkDocuments != 12 || d.KycLinkSubmissions != 5 || d.KycLinkSubmissionWindow != time.Hour {
		t.Fatalf("defaults %+v", d)
	}
	env := map[string]string{
		"PAYCORE_DOCUMENTS_PER_CUSTOMER":     "50",
		"PAYCORE_KYC_LINK_DOCUMENTS":         "6",
		"PAYCORE_KYC_LINK_SUBMISSIONS":       "3",
		"PAYCORE_KYC_LINK_SUBMISSION_WINDOW": "10m",
	}
	c, err := LoadFrom(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.DocumentsPerCustomer != 50 || c.KycLinkDocuments != 6 || c.KycLinkSubmissions != 3 || c.KycLinkSubmissionWindow != 10*time.Minute {
		t.Fatalf("overrides %+v", c)
	}
	for k, v := range map[string]string{
		"PAYCORE_DOCUMENTS_PER_CUSTOMER":     "0",
		"PAYCORE_KYC_LINK_DOCUMENTS":         "-1",
		"PAYCORE_KYC_LINK_SUBMISSIONS":       "lots",
		"PAYCORE_KYC_LINK_SUBMISSION_WINDOW": "0s",
	} {
		if loadWith(k, v) == nil {
			t.Errorf("%s=%q accepted", k, v)
		}
	}
}
