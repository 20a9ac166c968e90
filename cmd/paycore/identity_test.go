package main

import (
	"slices"
	"strings"
	"testing"

	"paycore/api"
	"paycore/db/view"
)

// A change to the identity of a verified customer (an individual's name, birth date,
// nationality or address; a business's registration data) sends it back through
// verification: its status leaves APPROVED, it cannot move money meanwhile, and a
// regulated platform must attest the new identity in a request of its own. Re-sending the
// same identity changes nothing.
func TestIdentityChangeSendsBackThroughVerification(t *testing.T) {
	t.Parallel()
	s := newStack(t, kycFast)
	c, _ := s.platform(true) // the test platforms are regulated
	if r := c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD"), currencyItem("EUR")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	for _, tc := range []struct {
		typ, statusField string
		create           map[string]any
		same, changed    map[string]any
	}{
		{"INDIVIDUAL", "kycStatus",
			map[string]any{"fullName": "Ana García", "birthDate": "1990-05-17", "nationality": "US",
				"address": map[string]any{"line1": "1 Main St", "postalCode": "94105", "country": "US"}},
			map[string]any{"fullName": "Ana García", "birthDate": "1990-05-17", "email": "ana@new.example",
				"address": map[string]any{"line1": "1 Main St", "postalCode": "94105", "country": "US"}},
			map[string]any{"fullName": "Mallory Other", "birthDate": "1970-01-01"}},
		{"BUSINESS", "kybStatus",
			map[string]any{"address": map[string]any{"line1": "1 Market St", "postalCode": "94105", "country": "US"},
				"businessInfo": map[string]any{"legalName": "Acme Inc", "registrationNumber": "R-1", "country": "US"}},
			map[string]any{"businessInfo": map[string]any{"legalName": "Acme Inc", "registrationNumber": "R-1", "purposeOfAccount": "SUPPLIER_PAYMENTS"}},
			map[string]any{"businessInfo": map[string]any{"legalName": "Other Corp", "registrationNumber": "R-2"}}},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			body := func(m map[string]any) map[string]any {
				out := map[string]any{"customerType": tc.typ}
				for k, v := range m {
					out[k] = v
				}
				return out
			}
			create := body(tc.create)
			create["region"], create["currencies"], create[tc.statusField] = "US", []string{"USD"}, "APPROVED"
			var cust api.Customer
			if r := c.Do("POST", "/customers", create); r.Status != 201 {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			} else {
				r.Decode(t, &cust)
			}
			w := &world{t: t, s: s, c: c, customer: cust.ID}
			var accts api.List[view.InternalAccount]
			c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
			w.account = accts.Data[0].ID
			w.fund(1_000)
			ext := w.external("001")
			patch := func(m map[string]any) map[string]any {
				r := c.Do("PATCH", "/customers/"+cust.ID, body(m))
				if r.Status != 200 {
					t.Fatalf("patch %v: %d %s", m, r.Status, r.Body)
				}
				return r.JSON(t)
			}
			if got := patch(tc.same)[tc.statusField]; got != "APPROVED" {
				t.Fatalf("re-sending the same identity: %s %v", tc.statusField, got)
			}
			if r := w.transferOut(ext, 100); r.Status != 201 {
				t.Fatalf("an APPROVED customer's transfer: %d %s", r.Status, r.Body)
			}
			quoteBody := map[string]any{"source": map[string]any{"sourceType": "ACCOUNT", "accountId": w.account},
				"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": w.euroAccount("000")}, "lockedCurrencySide": "SENDING", "lockedCurrencyAmount": 100}
			r := c.Do("POST", "/quotes", quoteBody)
			if r.Status != 201 {
				t.Fatalf("an APPROVED customer's quote: %d %s", r.Status, r.Body)
			}
			earlier := r.JSON(t)["id"].(string)
			if got := patch(tc.changed)[tc.statusField]; got != "PENDING" {
				t.Fatalf("after an identity change: %s %v, want PENDING", tc.statusField, got)
			}
			if r := w.transferOut(ext, 100); r.Status != 403 || r.Code(t) != "USER_NOT_READY" {
				t.Fatalf("a transfer after an identity change: %d %s", r.Status, r.Body)
			}
			if r := c.Do("POST", "/quotes", quoteBody); r.Status != 403 || r.Code(t) != "USER_NOT_READY" {
				t.Fatalf("a quote after an identity change: %d %s", r.Status, r.Body)
			}
			// A quote made for the old identity is not executed for the new one.
			if r := c.Do("POST", "/quotes/"+earlier+"/execute", nil); r.Status != 403 || r.Code(t) != "USER_NOT_READY" {
				t.Fatalf("executing a quote made before the identity change: %d %s", r.Status, r.Body)
			}
			// The customer as it was read, APPROVED included, with one more identity change:
			// the old attestation does not cover the new identity.
			again := map[string]any{tc.statusField: "APPROVED"}
			for k, v := range tc.same {
				again[k] = v
			}
			patch(map[string]any{tc.statusField: "APPROVED"}) // renewed attestation
			if got := patch(again)[tc.statusField]; got != "PENDING" {
				t.Fatalf("an identity change re-sending APPROVED: %s %v, want PENDING", tc.statusField, got)
			}
			if got := patch(map[string]any{tc.statusField: "APPROVED"})[tc.statusField]; got != "APPROVED" {
				t.Fatalf("a renewed attestation: %s %v", tc.statusField, got)
			}
			if r := w.transferOut(ext, 100); r.Status != 201 {
				t.Fatalf("a transfer after the renewed attestation: %d %s", r.Status, r.Body)
			}
		})
	}
}

// On a platform whose customers the service verifies, a verified individual whose name
// changes is PENDING (with its CUSTOMER_KYC_PENDING webhook), cannot move money, cannot be
// attested back to APPROVED by the platform, and is approved again by a new verification.
func TestIdentityChangeVerifiedAgain(t *testing.T) {
	t.Parallel()
	s := newStack(t, kycFast)
	c, _ := s.unregulatedPlatform()
	var cust api.Customer
	c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "fullName": "Ana García",
		"birthDate": "1990-05-17", "nationality": "US", "currencies": []string{"USD"},
		"address": map[string]any{"line1": "1 Main St", "postalCode": "94105", "country": "US"}}).Decode(t, &cust)
	upload(t, c, cust.ID, "PASSPORT")
	var first view.Verification
	c.Do("POST", "/verifications", map[string]any{"customerId": cust.ID}).Decode(t, &first)
	if v := waitVerification(t, c, first.ID); v.VerificationStatus != "APPROVED" {
		t.Fatalf("first verification: %+v", v)
	}
	w := &world{t: t, s: s, c: c, customer: cust.ID}
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	w.account = accts.Data[0].ID
	w.fund(1_000)
	ext := w.external("001")
	if r := w.transferOut(ext, 100); r.Status != 201 {
		t.Fatalf("a verified customer's transfer: %d %s", r.Status, r.Body)
	}
	before := len(kycEvents(t, s, cust.ID))
	r := c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "fullName": "Ana Other", "nationality": "MX"})
	if r.Status != 200 || r.JSON(t)["kycStatus"] != "PENDING" {
		t.Fatalf("identity change: %d %s", r.Status, r.Body)
	}
	if got := kycEvents(t, s, cust.ID)[before:]; !slices.Equal(got, []string{"CUSTOMER_KYC_PENDING"}) {
		t.Fatalf("events of the identity change: %v", got)
	}
	if r := w.transferOut(ext, 100); r.Status != 403 || r.Code(t) != "USER_NOT_READY" {
		t.Fatalf("a transfer after the identity change: %d %s", r.Status, r.Body)
	}
	if r := c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED"}); r.Status != 400 {
		t.Fatalf("an unregulated platform attesting the new identity: %d %s", r.Status, r.Body)
	}
	var second view.Verification
	c.Do("POST", "/verifications", map[string]any{"customerId": cust.ID}).Decode(t, &second)
	if second.ID == first.ID {
		t.Fatalf("the identity change was answered with the old verification %s", first.ID)
	}
	if v := waitVerification(t, c, second.ID); v.VerificationStatus != "APPROVED" {
		t.Fatalf("second verification: %+v", v)
	}
	if r := w.transferOut(ext, 100); r.Status != 201 {
		t.Fatalf("a transfer after the new verification: %d %s", r.Status, r.Body)
	}

	// The hosted KYC page verifies a changed identity again too: the approved verification
	// of the old identity does not count as the new one's submission.
	if r := c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "fullName": "Ana Third"}); r.Status != 200 || r.JSON(t)["kycStatus"] != "PENDING" {
		t.Fatalf("second identity change: %d %s", r.Status, r.Body)
	}
	page := kycLink(t, s, c, cust.ID, map[string]any{})
	if status, html := get(t, page); status != 200 || !strings.Contains(html, "<form") {
		t.Fatalf("the KYC page of a changed identity: %d %s", status, html)
	}
	resp, body := postKycPassport(t, page, map[string]string{"fullName": "Ana Third", "doc0.holder": cust.ID, "doc0.type": "PASSPORT"})
	if resp.StatusCode != 200 && resp.StatusCode != 303 {
		t.Fatalf("the KYC page's submission: %d %s", resp.StatusCode, body)
	}
	var vs api.List[view.Verification]
	c.Do("GET", "/verifications?customerId="+cust.ID, nil).Decode(t, &vs)
	if len(vs.Data) != 3 || vs.Data[0].ID == second.ID {
		t.Fatalf("the page's submission opened no new verification: %+v", vs.Data)
	}
	if v := waitVerification(t, c, vs.Data[0].ID); v.VerificationStatus != "APPROVED" {
		t.Fatalf("third verification: %+v", v)
	}
	if r := w.transferOut(ext, 100); r.Status != 201 {
		t.Fatalf("a transfer after the page's verification: %d %s", r.Status, r.Body)
	}
}
