package main

import (
	"testing"

	"paycore/api"
	"paycore/db/view"
)

// A platform that requires it moves its customers' money only once their acceptance of the
// End User Terms is recorded: before, transfers and quotes are refused 403
// END_USER_TERMS_NOT_ACCEPTED; a consent to another version is refused 400
// END_USER_TERMS_VERSION_NOT_FOUND; the recorded consent is shown on the customer.
func TestEndUserTerms(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := fxWorld(t, s)
	w.fund(10_000)
	var terms api.EndUserTerms
	if r := w.c.Do("GET", "/customers/end-user-terms", nil); r.Status != 200 {
		t.Fatalf("terms: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &terms)
	}
	if terms.Version != s.cfg.EndUserTermsVersion || terms.URL == "" {
		t.Fatalf("terms %+v", terms)
	}
	ext := w.external("001")
	// Not required (the default): the customer moves money without a consent.
	if r := w.transferOut(ext, 100); r.Status != 201 {
		t.Fatalf("transfer without the requirement: %d %s", r.Status, r.Body)
	}
	if r := w.c.Do("PATCH", "/config", map[string]any{"endUserTermsConsentRequired": true}); r.Status != 200 || r.JSON(t)["endUserTermsConsentRequired"] != true {
		t.Fatalf("require consent: %d %s", r.Status, r.Body)
	}
	for what, r := range map[string]int{
		"transfer out": w.transferOut(ext, 100).Status,
		"quote":        w.quote(w.euroAccount("001"), "SENDING", 1_000).Status,
	} {
		if r != 403 {
			t.Fatalf("%s without consent: %d", what, r)
		}
	}
	if r := w.transferOut(ext, 100); r.Code(t) != "END_USER_TERMS_NOT_ACCEPTED" {
		t.Fatalf("refusal code %s", r.Body)
	}
	consent := func(version, ip string) map[string]any {
		return map[string]any{"customerType": "INDIVIDUAL", "endUserTermsConsent": map[string]any{"acceptedAt": "2026-11-27T10:00:00Z",
			"ipAddress": ip, "termsVersion": version, "acceptanceMethod": "CHECKBOX"}}
	}
	if r := w.c.Do("PATCH", "/customers/"+w.customer, consent("V0", "203.0.113.42")); r.Status != 400 || r.Code(t) != "END_USER_TERMS_VERSION_NOT_FOUND" {
		t.Fatalf("another version: %d %s", r.Status, r.Body)
	}
	if r := w.c.Do("PATCH", "/customers/"+w.customer, consent(terms.Version, "not-an-ip")); r.Status != 400 || r.Code(t) != "INVALID_INPUT" {
		t.Fatalf("a bad address: %d %s", r.Status, r.Body)
	}
	r := w.c.Do("PATCH", "/customers/"+w.customer, consent(terms.Version, "2001:db8::1"))
	var c view.Customer
	if r.Status != 200 {
		t.Fatalf("record consent: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &c)
	if c.EndUserTermsConsent == nil || c.EndUserTermsConsent.TermsVersion != terms.Version || c.EndUserTermsConsent.IPAddress != "2001:db8::1" ||
		c.EndUserTermsConsent.AcceptanceMethod != "CHECKBOX" {
		t.Fatalf("customer %s", r.Body)
	}
	if r := w.transferOut(ext, 100); r.Status != 201 {
		t.Fatalf("transfer with consent: %d %s", r.Status, r.Body)
	}
	// A customer created with its consent moves money at once.
	body := consent(terms.Version, "198.51.100.24")
	body["kycStatus"], body["region"], body["fullName"], body["currencies"] = "APPROVED", "US", "Grace Hopper", []string{"USD"}
	if r := w.c.Do("POST", "/customers", body); r.Status != 201 || r.JSON(t)["endUserTermsConsent"] == nil {
		t.Fatalf("create with consent: %d %s", r.Status, r.Body)
	}
}
