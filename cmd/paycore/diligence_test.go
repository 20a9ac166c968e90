package main

import (
	"slices"
	"testing"

	"paycore/api"
	"paycore/db/view"
)

// Enhanced due diligence and HOLD: an individual gives its due diligence at the top level
// of the customer (validated, shown, merged by an update); one expecting large volumes is
// asked for it by its verification; the sandbox's 003 puts a customer on HOLD, announced,
// with what it is asked for, and once given a new submission approves it.
func TestDueDiligenceAndHold(t *testing.T) {
	t.Parallel()
	s := newStack(t, kycFast)
	c, _ := s.unregulatedPlatform()

	for _, bad := range []map[string]any{
		{"sourceOfFundsCategories": []string{"LOTTERY"}},
		{"sourceOfFundsCategories": []string{"OTHER"}},
		{"purposeOfAccount": "OTHER"},
		{"pepStatus": "MAYBE"},
	} {
		body := map[string]any{"customerType": "INDIVIDUAL", "region": "US", "fullName": "Bo Example"}
		for k, v := range bad {
			body[k] = v
		}
		if r := c.Do("POST", "/customers", body); r.Status != 400 {
			t.Fatalf("%v: %d %s", bad, r.Status, r.Body)
		}
	}
	if r := c.Do("POST", "/customers", map[string]any{"customerType": "BUSINESS", "region": "US", "businessInfo": map[string]any{"legalName": "Acme"},
		"pepStatus": "NONE"}); r.Status != 400 || r.Field(t) != "pepStatus" {
		t.Fatalf("a business's top-level due diligence: %d %s", r.Status, r.Body)
	}

	// Large volumes: the verification asks for the due diligence; 003 holds the customer.
	var cust api.Customer
	r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "fullName": "Ana Held 003", "birthDate": "1990-05-17",
		"nationality": "US", "address": map[string]any{"line1": "1 Main St", "postalCode": "94105", "country": "US"},
		"expectedMonthlyTransactionVolume": "VOLUME_100K_TO_1M", "pepStatus": "NONE", "purposeOfAccount": "OTHER", "purposeOfAccountOtherDescription": "Family support"})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &cust)
	if cust.DueDiligence == nil || cust.ExpectedMonthlyTransactionVolume == nil || *cust.PurposeOfAccountOtherDescription != "Family support" {
		t.Fatalf("due diligence shown: %s", r.Body)
	}
	upload(t, c, cust.ID, "PASSPORT")
	fields := func(v view.Verification) []string {
		var out []string
		for _, e := range v.Errors {
			if e.Field != nil {
				out = append(out, *e.Field)
			}
		}
		return out
	}
	var v view.Verification
	c.Do("POST", "/verifications", map[string]any{"customerId": cust.ID}).Decode(t, &v)
	if want := []string{"customer.sourceOfFundsCategories", "customer.sourceOfWealthCategories", "customer.annualIncomeRange"}; v.VerificationStatus != "RESOLVE_ERRORS" || !slices.Equal(fields(v), want) {
		t.Fatalf("large volumes: %s %v", v.VerificationStatus, fields(v))
	}
	// Given only the income, submitted: 003 puts it on HOLD, asking for its sources.
	c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "annualIncomeRange": "RANGE_100K_250K",
		"sourceOfFundsCategories": []string{"SALARY"}})
	c.Do("POST", "/verifications", map[string]any{"customerId": cust.ID}).Decode(t, &v)
	if v.VerificationStatus != "RESOLVE_ERRORS" || !slices.Equal(fields(v), []string{"customer.sourceOfWealthCategories"}) {
		t.Fatalf("still missing the wealth: %s %v", v.VerificationStatus, fields(v))
	}
	// A customer without large volumes goes through, and is held.
	c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "expectedMonthlyTransactionVolume": "VOLUME_UNDER_10K",
		"sourceOfFundsCategories": []string{"SALARY"}})
	var held view.Verification
	c.Do("POST", "/verifications", map[string]any{"customerId": cust.ID}).Decode(t, &held)
	held = waitVerification(t, c, held.ID)
	var after api.Customer
	c.Do("GET", "/customers/"+cust.ID, nil).Decode(t, &after)
	if held.VerificationStatus != "RESOLVE_ERRORS" || !slices.Contains(fields(held), "customer.sourceOfWealthCategories") || after.KycStatus == nil || *after.KycStatus != "HOLD" {
		t.Fatalf("held: %+v, customer %v", held, after.KycStatus)
	}
	if !slices.Contains(kycEvents(t, s, cust.ID), "CUSTOMER_KYC_HOLD") {
		t.Fatalf("events %v", kycEvents(t, s, cust.ID))
	}
	// Given, and submitted again: approved.
	c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "sourceOfWealthCategories": []string{"SAVINGS", "INVESTMENTS"}})
	var again view.Verification
	c.Do("POST", "/verifications", map[string]any{"customerId": cust.ID}).Decode(t, &again)
	if again = waitVerification(t, c, again.ID); again.VerificationStatus != "APPROVED" {
		t.Fatalf("after the due diligence: %+v", again)
	}
	c.Do("GET", "/customers/"+cust.ID, nil).Decode(t, &after)
	if *after.KycStatus != "APPROVED" || !slices.Equal(after.SourceOfWealthCategories, []string{"SAVINGS", "INVESTMENTS"}) {
		t.Fatalf("customer %+v", after)
	}
}
