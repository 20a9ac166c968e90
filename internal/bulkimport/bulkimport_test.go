package bulkimport

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

var settings = platformconfig.Settings{UmaDomain: "pay.example",
	Currencies: platformconfig.Currencies{{CurrencyCode: "USD"}, {CurrencyCode: "EUR"}}}

var header = Header{ColCustomerType, ColPlatformCustomerID, ColUmaAddress, ColFullName, ColBirthDate, ColEmail, ColAddressLine1,
	ColAddressLine2, ColCity, ColState, ColPostalCode, ColCountry, ColBusinessLegalName, ColBusinessRegistrationNumber,
	ColBusinessTaxID, ColPlatformAccountID, ColDescription}

// row builds a row of header from column values.
func row(n int, values map[string]string) Row {
	f := make([]string, len(header))
	for i, c := range header {
		f[i] = values[c]
	}
	return Row{Number: n, Fields: f}
}

func person(tweak map[string]string) map[string]string {
	v := map[string]string{ColCustomerType: "INDIVIDUAL", ColPlatformCustomerID: "p-1", ColUmaAddress: "$ana@pay.example",
		ColFullName: "Ana Lima", ColBirthDate: "1990-04-01", ColAddressLine1: "1 Main St", ColCity: "Springfield", ColState: "IL",
		ColPostalCode: "62701", ColCountry: "US", ColPlatformAccountID: "acct-9", ColDescription: "imported"}
	for k, x := range tweak {
		v[k] = x
	}
	return v
}

func company(tweak map[string]string) map[string]string {
	v := map[string]string{ColCustomerType: "BUSINESS", ColPlatformCustomerID: "b-1", ColUmaAddress: "$acme@pay.example",
		ColBusinessLegalName: "Acme GmbH", ColBusinessTaxID: "DE123", ColAddressLine1: "Hauptstr. 1", ColCity: "Berlin",
		ColState: "BE", ColPostalCode: "10115", ColCountry: "DE"}
	for k, x := range tweak {
		v[k] = x
	}
	return v
}

func TestCheckHeader(t *testing.T) {
	h, err := CheckHeader([]string{"\uFEFFumaAddress", " platformCustomerId ", "customerType", "city"})
	if err != nil || !slices.Equal(h, Header{ColUmaAddress, ColPlatformCustomerID, ColCustomerType, ColCity}) {
		t.Fatalf("header %v, %v", h, err)
	}
	for name, tc := range map[string]struct {
		record []string
		want   string
	}{
		"unknown column":  {[]string{"umaAddress", "platformCustomerId", "customerType", "kycStatus"}, `unknown column "kycStatus"`},
		"repeated column": {[]string{"umaAddress", "platformCustomerId", "customerType", "city", "city"}, "city twice"},
		"unnamed column":  {[]string{"umaAddress", "platformCustomerId", "customerType", " "}, "column 4 has no name"},
		"missing columns": {[]string{"umaAddress", "fullName"}, "platformCustomerId, customerType"},
	} {
		_, err := CheckHeader(tc.record)
		var fe *problem.FieldError
		if !errors.As(err, &fe) || fe.Field != "file" || !strings.Contains(fe.Message, tc.want) {
			t.Errorf("%s: %v, want a refusal of the file mentioning %q", name, err, tc.want)
		}
	}
}

// A row becomes the customer POST /customers would make of the same values, with the id
// of its job and row.
func TestDecideMakesTheCustomer(t *testing.T) {
	job := ids.New()
	r := NewReader(header)
	n, err := r.Decide(job, settings, row(7, person(map[string]string{ColEmail: " ana@example.com "})))
	if err != nil {
		t.Fatal(err)
	}
	rec := n.Record
	if rec.ID != CustomerID(job, 7) || rec.PlatformCustomerID != "p-1" || rec.UmaAddress != "$ana@pay.example" || rec.Type != catalog.Individual ||
		rec.Region != "US" || !slices.Equal(rec.Currencies, []string{"USD"}) || rec.KycStatus != catalog.KycUnverified ||
		*rec.FullName != "Ana Lima" || rec.BirthDate.Format("2006-01-02") != "1990-04-01" || *rec.Email != "ana@example.com" ||
		rec.Address.Line1 != "1 Main St" || *rec.Address.City != "Springfield" || rec.Address.PostalCode != "62701" || rec.Address.Line2 != nil {
		t.Fatalf("record %+v", rec)
	}
	if len(n.Accounts) != 1 || n.Accounts[0].Currency != "USD" {
		t.Fatalf("accounts %+v", n.Accounts)
	}
	b, err := r.Decide(job, settings, row(8, company(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if b.Record.Type != catalog.Business || b.Record.BusinessInfo.LegalName != "Acme GmbH" || *b.Record.BusinessInfo.TaxID != "DE123" ||
		b.Record.BusinessInfo.RegistrationNumber != nil || b.Record.Region != "DE" || !slices.Equal(b.Record.Currencies, []string{"EUR"}) {
		t.Fatalf("business %+v %+v", b.Record, b.Record.BusinessInfo)
	}
}

// Refused rows are reported with the column at fault, under the file's column names.
func TestRefusedRows(t *testing.T) {
	r := NewReader(header)
	for name, tc := range map[string]struct {
		row          Row
		code         catalog.Code
		field, msg   string
		correlatesBy string
	}{
		"no type":             {row(2, person(map[string]string{ColCustomerType: ""})), catalog.InvalidInput, ColCustomerType, "customerType is required", "p-1"},
		"unknown type":        {row(2, person(map[string]string{ColCustomerType: "ROBOT"})), catalog.InvalidInput, ColCustomerType, "INDIVIDUAL or BUSINESS", "p-1"},
		"individual no name":  {row(3, person(map[string]string{ColFullName: "  "})), catalog.InvalidInput, ColFullName, "fullName is required for INDIVIDUAL rows", "p-1"},
		"business no state":   {row(3, company(map[string]string{ColState: ""})), catalog.InvalidInput, ColState, "state is required for BUSINESS rows", "b-1"},
		"business birth date": {row(4, company(map[string]string{ColBirthDate: "1990-01-01"})), catalog.InvalidInput, ColBirthDate, "applies to INDIVIDUAL rows", "b-1"},
		"individual tax id":   {row(4, person(map[string]string{ColBusinessTaxID: "X"})), catalog.InvalidInput, ColBusinessTaxID, "applies to BUSINESS rows", "p-1"},
		"bad date":            {row(5, person(map[string]string{ColBirthDate: "01/04/1990"})), catalog.InvalidInput, ColBirthDate, "YYYY-MM-DD", "p-1"},
		"bad country":         {row(5, person(map[string]string{ColCountry: "XX"})), catalog.InvalidInput, ColCountry, "country must be an ISO 3166-1", "p-1"},
		"long postal code":    {row(5, person(map[string]string{ColPostalCode: strings.Repeat("9", 21)})), catalog.InvalidInput, ColPostalCode, "postalCode must be at most 20", "p-1"},
		"bad e-mail":          {row(6, person(map[string]string{ColEmail: "not-an-address"})), catalog.InvalidInput, ColEmail, "plain e-mail", "p-1"},
		"other domain":        {row(6, person(map[string]string{ColUmaAddress: "$ana@elsewhere.example"})), catalog.InvalidInput, ColUmaAddress, "UMA domain", "p-1"},
		"no platform id":      {row(9, person(map[string]string{ColPlatformCustomerID: ""})), catalog.InvalidInput, ColPlatformCustomerID, "platformCustomerId is required", "9"},
		"short row":           {Row{Number: 10, Fields: []string{"INDIVIDUAL", "p-7"}}, catalog.InvalidInput, "", "the row has 2 fields; the header has 17 columns", "p-7"},
	} {
		_, err := r.Decide(uuid.Nil, settings, tc.row)
		e, ok := r.EntryOf(tc.row, err)
		if !ok {
			t.Errorf("%s: %v is not a refusal", name, err)
			continue
		}
		if e.Row != tc.row.Number || e.Code != tc.code || e.Field != tc.field || !strings.Contains(e.Message, tc.msg) || e.CorrelationID != tc.correlatesBy {
			t.Errorf("%s: %+v, want %s on %q with %q, correlation %s", name, e, tc.code, tc.field, tc.msg, tc.correlatesBy)
		}
		if strings.Contains(e.Message, "address.") || strings.Contains(e.Message, "businessInfo.") {
			t.Errorf("%s: the message names a request member, not the column: %s", name, e.Message)
		}
	}
	// A customer rule on the members a row fills from its country.
	euroOnly := platformconfig.Settings{UmaDomain: "pay.example", Currencies: platformconfig.Currencies{{CurrencyCode: "EUR"}}}
	_, err := r.Decide(uuid.Nil, euroOnly, row(11, person(nil)))
	if e, ok := r.EntryOf(row(11, person(nil)), err); !ok || e.Field != ColCountry || !strings.Contains(e.Message, "no supported currency") {
		t.Errorf("unsupported currency: %+v (%v)", e, err)
	}
	if _, ok := r.EntryOf(row(2, nil), errors.New("connection reset")); ok {
		t.Fatal("an error that is not the row's counted as a refused row")
	}
}

func TestCustomerIDsPerJobAndRow(t *testing.T) {
	a, b := ids.New(), ids.New()
	seen := map[uuid.UUID]bool{}
	for _, job := range []uuid.UUID{a, b} {
		for _, n := range []int{2, 3, 1_000_001} {
			id := CustomerID(job, n)
			if seen[id] {
				t.Fatalf("id %s twice", id)
			}
			seen[id] = true
			if got, ok := RowOf(job, id); !ok || got != n {
				t.Fatalf("RowOf(%s) = %d %v, want %d", id, got, ok, n)
			}
		}
	}
	if _, ok := RowOf(a, CustomerID(b, 2)); ok {
		t.Fatal("another job's customer read as this job's")
	}
	if again := CustomerID(a, 2); !seen[again] {
		t.Fatal("not deterministic")
	}
}

func TestOutcomeAndCounts(t *testing.T) {
	if Outcome(1) != catalog.BulkCompleted || Outcome(0) != catalog.BulkFailed {
		t.Fatal("outcome")
	}
	if CheckCount(0) == nil || CheckCount(MaxRows+1) == nil || CheckCount(1) != nil || CheckCount(MaxRows) != nil {
		t.Fatal("counts")
	}
}
