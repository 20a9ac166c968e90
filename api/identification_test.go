package api_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"paycore/api"
	"paycore/internal/ids"
)

// errorFields lists the fields a 400 names in details.errors.
func errorFields(t *testing.T, r interface {
	JSON(testing.TB) map[string]any
}) []string {
	t.Helper()
	details, _ := r.JSON(t)["details"].(map[string]any)
	list, _ := details["errors"].([]any)
	var out []string
	for _, e := range list {
		out = append(out, e.(map[string]any)["field"].(string))
	}
	slices.Sort(out)
	return out
}

// An individual's tax identification: SSN or ITIN numbers that can be issued, US only,
// the identifier stored sealed and never shown; given to an approved customer, it sends
// the customer through verification again. Refusals name every field at once.
func TestIndividualIdentification(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	base := func(extra map[string]any) map[string]any {
		b := map[string]any{"customerType": "INDIVIDUAL", "region": "US", "fullName": "Ida Taxpayer"}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	for _, tc := range []struct {
		extra  map[string]any
		fields []string
	}{
		{map[string]any{"idType": "EIN", "identifier": "12-3456789"}, []string{"idType"}},
		{map[string]any{"idType": "SSN", "identifier": "000-12-3456"}, []string{"identifier"}},
		{map[string]any{"idType": "SSN", "identifier": "666-12-3456"}, []string{"identifier"}},
		{map[string]any{"idType": "SSN", "identifier": "123456789"}, []string{"identifier"}},
		{map[string]any{"idType": "ITIN", "identifier": "123-45-6789"}, []string{"identifier"}},
		{map[string]any{"idType": "ITIN", "identifier": "912-45-6789"}, []string{"identifier"}}, // group 45 is no ITIN's
		{map[string]any{"identifier": "123-45-6789"}, []string{"idType"}},
		{map[string]any{"idType": "SSN"}, []string{"identifier"}},
		{map[string]any{"idType": "SSN", "identifier": "123-45-6789", "countryOfIssuance": "CA"}, []string{"countryOfIssuance"}},
		{map[string]any{"idType": "NON_US_TAX_ID", "identifier": "X", "countryOfIssuance": "DE", "pepStatus": "MAYBE"},
			[]string{"countryOfIssuance", "idType", "pepStatus"}},
	} {
		r := c.Do("POST", "/customers", base(tc.extra))
		if r.Status != 400 || r.Code(t) != "INVALID_INPUT" || !slices.Equal(errorFields(t, r), tc.fields) {
			t.Fatalf("%v: %d %s", tc.extra, r.Status, r.Body)
		}
	}
	if r := c.Do("POST", "/customers", map[string]any{"customerType": "BUSINESS", "region": "US", "businessInfo": map[string]any{"legalName": "Acme"},
		"idType": "SSN", "identifier": "123-45-6789"}); r.Status != 400 || !slices.Equal(errorFields(t, r), []string{"idType", "identifier"}) {
		t.Fatalf("a business's idType: %d %s", r.Status, r.Body)
	}

	r := c.Do("POST", "/customers", base(map[string]any{"idType": "ITIN", "identifier": "912-70-1234", "kycStatus": "APPROVED"}))
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	r.Decode(t, &cust)
	if cust.IDType == nil || *cust.IDType != "ITIN" || cust.CountryOfIssuance == nil || *cust.CountryOfIssuance != "US" ||
		bytes.Contains(r.Body, []byte("912-70-1234")) || bytes.Contains(r.Body, []byte(`"identifier"`)) {
		t.Fatalf("the identification shown: %s", r.Body)
	}
	id, _ := ids.Parse(ids.Customer, cust.ID)
	var sealed []byte
	if err := e.pool.QueryRow(t.Context(), "SELECT id_number_sealed FROM customers WHERE id = $1", id).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if plain, err := e.box.Open("customer-identifier", sealed); err != nil || string(plain) != "912-70-1234" || bytes.Contains(sealed, []byte("912-70")) {
		t.Fatalf("stored identifier: %v %q", err, plain)
	}
	// Another name keeps it; a new identifier replaces it and asks for verification again.
	if r := c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "email": "ida@example.com"}); r.Status != 200 ||
		r.JSON(t)["kycStatus"] != "APPROVED" || r.JSON(t)["idType"] != "ITIN" {
		t.Fatalf("an update without identification: %d %s", r.Status, r.Body)
	}
	r = c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "idType": "SSN", "identifier": "123-45-6789"})
	if r.Status != 200 || r.JSON(t)["kycStatus"] != "PENDING" || r.JSON(t)["idType"] != "SSN" || bytes.Contains(r.Body, []byte("123-45-6789")) {
		t.Fatalf("a new identifier: %d %s", r.Status, r.Body)
	}
	if err := e.pool.QueryRow(t.Context(), "SELECT id_number_sealed FROM customers WHERE id = $1", id).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if plain, err := e.box.Open("customer-identifier", sealed); err != nil || string(plain) != "123-45-6789" {
		t.Fatalf("replaced identifier: %v %q", err, plain)
	}
}

// A business's newer due diligence: NAICS code, categorised sources of funds, the
// descriptions OTHER asks for, counterparty countries and its primary contact.
func TestBusinessDueDiligence(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	biz := func(info map[string]any) map[string]any {
		b := map[string]any{"legalName": "Acme GmbH"}
		for k, v := range info {
			b[k] = v
		}
		return map[string]any{"customerType": "BUSINESS", "region": "US", "businessInfo": b}
	}
	const p = "businessInfo."
	for _, tc := range []struct {
		info   map[string]any
		fields []string
	}{
		{map[string]any{"naicsCode": "54A"}, []string{p + "naicsCode"}},
		{map[string]any{"naicsCode": "5415111"}, []string{p + "naicsCode"}},
		{map[string]any{"sourceOfFundsCategories": []string{"SALARY"}}, []string{p + "sourceOfFundsCategories"}},
		{map[string]any{"sourceOfFundsCategories": []string{}}, []string{p + "sourceOfFundsCategories"}},
		{map[string]any{"sourceOfFundsCategories": []string{"OTHER"}}, []string{p + "sourceOfFundsOtherDescription"}},
		{map[string]any{"purposeOfAccount": "OTHER"}, []string{p + "purposeOfAccountOtherDescription"}},
		{map[string]any{"expectedCounterpartyCountries": []string{"US", "ZZ"}}, []string{p + "expectedCounterpartyCountries[1]"}},
		{map[string]any{"primaryContactFirstName": strings.Repeat("j", 251), "naicsCode": "1"},
			[]string{p + "naicsCode", p + "primaryContactFirstName"}},
	} {
		r := c.Do("POST", "/customers", biz(tc.info))
		if r.Status != 400 || !slices.Equal(errorFields(t, r), tc.fields) {
			t.Fatalf("%v: %d %s", tc.info, r.Status, r.Body)
		}
	}
	r := c.Do("POST", "/customers", biz(map[string]any{"naicsCode": "541511", "sourceOfFundsCategories": []string{"OPERATING_REVENUE", "OTHER"},
		"sourceOfFundsOtherDescription": "A settlement", "purposeOfAccount": "OTHER", "purposeOfAccountOtherDescription": "Escrow",
		"expectedCounterpartyCountries": []string{"DE", "FR"}, "primaryContactFirstName": "Jane", "primaryContactLastName": "Smith"}))
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	r.Decode(t, &cust)
	b := cust.BusinessInfo
	if b == nil || *b.NaicsCode != "541511" || !slices.Equal(b.SourceOfFundsCategories, []string{"OPERATING_REVENUE", "OTHER"}) ||
		*b.SourceOfFundsOtherDescription != "A settlement" || *b.PurposeOfAccountOtherDescription != "Escrow" ||
		!slices.Equal(b.ExpectedCounterpartyCountries, []string{"DE", "FR"}) || *b.PrimaryContactFirstName != "Jane" || *b.PrimaryContactLastName != "Smith" {
		t.Fatalf("shown: %s", r.Body)
	}
	// An update merges: the described OTHER stands, a new list replaces the old.
	r = c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "BUSINESS", "businessInfo": map[string]any{
		"sourceOfFundsCategories": []string{"LOANS", "OTHER"}, "naicsCode": "52"}})
	if r.Status != 200 {
		t.Fatalf("update: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &cust)
	if b := cust.BusinessInfo; *b.NaicsCode != "52" || !slices.Equal(b.SourceOfFundsCategories, []string{"LOANS", "OTHER"}) || *b.PrimaryContactFirstName != "Jane" {
		t.Fatalf("merged: %s", r.Body)
	}
}
