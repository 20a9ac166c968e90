package customer

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// A consent names every member, an RFC 3339 time, an IP address, a known method and the
// published version; the stored address is canonical.
func TestCheckConsent(t *testing.T) {
	s := func(v string) *string { return &v }
	valid := func() *TermsConsentInput {
		return &TermsConsentInput{AcceptedAt: s("2026-11-27T10:00:00+01:00"), IPAddress: s("2001:DB8::1"), TermsVersion: s("V2"), AcceptanceMethod: s("CLICK_TO_ACCEPT")}
	}
	got, err := checkConsent(valid(), "V2")
	if err != nil || got.IPAddress != "2001:db8::1" || got.AcceptedAt.Hour() != 9 || got.TermsVersion != "V2" {
		t.Fatalf("%+v %v", got, err)
	}
	for name, tc := range map[string]struct {
		change func(*TermsConsentInput)
		code   catalog.Code
		field  string
	}{
		"no time":         {func(in *TermsConsentInput) { in.AcceptedAt = nil }, catalog.InvalidInput, "endUserTermsConsent.acceptedAt"},
		"a date only":     {func(in *TermsConsentInput) { in.AcceptedAt = s("2026-11-27") }, catalog.InvalidInput, "endUserTermsConsent.acceptedAt"},
		"no address":      {func(in *TermsConsentInput) { in.IPAddress = nil }, catalog.InvalidInput, "endUserTermsConsent.ipAddress"},
		"a host name":     {func(in *TermsConsentInput) { in.IPAddress = s("example.com") }, catalog.InvalidInput, "endUserTermsConsent.ipAddress"},
		"a zone":          {func(in *TermsConsentInput) { in.IPAddress = s("fe80::1%eth0") }, catalog.InvalidInput, "endUserTermsConsent.ipAddress"},
		"another method":  {func(in *TermsConsentInput) { in.AcceptanceMethod = s("SIGNATURE") }, catalog.InvalidInput, "endUserTermsConsent.acceptanceMethod"},
		"no version":      {func(in *TermsConsentInput) { in.TermsVersion = nil }, catalog.InvalidInput, "endUserTermsConsent.termsVersion"},
		"another version": {func(in *TermsConsentInput) { in.TermsVersion = s("V1") }, catalog.EndUserTermsVersionNotFound, "endUserTermsConsent.termsVersion"},
	} {
		in := valid()
		tc.change(in)
		_, err := checkConsent(in, "V2")
		w, _ := problem.ToWire(err)
		if w.Code != tc.code || w.Field != tc.field {
			t.Errorf("%s: %+v", name, w)
		}
	}
	if err := TermsNotAccepted(); problem.CodeOf(err) != catalog.EndUserTermsNotAccepted {
		t.Fatalf("missing consent: %v", err)
	}
}
