package customer

import (
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

func ptr[T any](v T) *T { return &v }

func settings(wallets bool, codes ...string) platformconfig.Settings {
	s := platformconfig.Settings{UmaDomain: "pay.example"}
	for _, c := range codes {
		s.Currencies = append(s.Currencies, platformconfig.Currency{CurrencyCode: c})
	}
	if wallets {
		s.Wallet = &platformconfig.Wallet{}
	}
	return s
}

// wantField checks that err is a field error on field whose message contains msg.
func wantField(t *testing.T, err error, field, msg string) {
	t.Helper()
	var fe *problem.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a field error on %s", err, field)
	}
	if fe.Field != field || fe.Code != catalog.InvalidInput || !strings.Contains(fe.Message, msg) {
		t.Fatalf("got %s %q, want %s containing %q", fe.Field, fe.Message, field, msg)
	}
}

func individual(tweak func(*Input)) Input {
	in := Input{CustomerType: ptr("INDIVIDUAL"), Region: ptr("US")}
	if tweak != nil {
		tweak(&in)
	}
	return in
}

func business(tweak func(*Input)) Input {
	in := Input{CustomerType: ptr("BUSINESS"), Region: ptr("US"), BusinessInfo: &BusinessInfoInput{LegalName: ptr("Acme Inc.")}}
	if tweak != nil {
		tweak(&in)
	}
	return in
}

func TestCreateRefusals(t *testing.T) {
	p := settings(false, "USD", "BTC", "MXN")
	cases := map[string]struct {
		in             Input
		field, message string
	}{
		"no type":            {Input{Region: ptr("US")}, "customerType", "customerType is required (INDIVIDUAL or BUSINESS)"},
		"bad type":           {Input{CustomerType: ptr("ROBOT")}, "customerType", "must be INDIVIDUAL or BUSINESS"},
		"kyb of individual":  {individual(func(in *Input) { in.KybStatus = ptr("APPROVED") }), "kybStatus", "applies to BUSINESS customers"},
		"business info":      {individual(func(in *Input) { in.BusinessInfo = &BusinessInfoInput{} }), "businessInfo", "applies to BUSINESS customers"},
		"name of business":   {business(func(in *Input) { in.FullName = ptr("Ada") }), "fullName", "applies to INDIVIDUAL customers"},
		"kyc of business":    {business(func(in *Input) { in.KycStatus = ptr("APPROVED") }), "kycStatus", "applies to INDIVIDUAL customers"},
		"bad email":          {individual(func(in *Input) { in.Email = ptr("Ana <ana@example.com>") }), "email", "plain e-mail address"},
		"blank name":         {individual(func(in *Input) { in.FullName = ptr("  ") }), "fullName", "fullName must be 1 to 255 characters"},
		"bad nationality":    {individual(func(in *Input) { in.Nationality = ptr("Mexican") }), "nationality", "ISO 3166-1 alpha-2"},
		"bad kyc":            {individual(func(in *Input) { in.KycStatus = ptr("MAYBE") }), "kycStatus", "kycStatus must be one of UNVERIFIED, PENDING, APPROVED, REJECTED"},
		"bad birth date":     {individual(func(in *Input) { in.BirthDate = ptr("17/05/1990") }), "birthDate", "YYYY-MM-DD"},
		"future birth date":  {individual(func(in *Input) { in.BirthDate = ptr("2999-01-01") }), "birthDate", "between 1900 and today"},
		"address no line1":   {individual(func(in *Input) { in.Address = &AddressInput{PostalCode: ptr("1"), Country: ptr("US")} }), "address.line1", "address.line1 is required"},
		"address no postal":  {individual(func(in *Input) { in.Address = &AddressInput{Line1: ptr("a"), Country: ptr("US")} }), "address.postalCode", "is required"},
		"address no country": {individual(func(in *Input) { in.Address = &AddressInput{Line1: ptr("a"), PostalCode: ptr("1")} }), "address.country", "is required"},
		"address blank city": {individual(func(in *Input) {
			in.Address = &AddressInput{Line1: ptr("a"), City: ptr(" "), PostalCode: ptr("1"), Country: ptr("US")}
		}), "address.city", "1 to 255"},
		"address long code": {individual(func(in *Input) {
			in.Address = &AddressInput{Line1: ptr("a"), PostalCode: ptr(strings.Repeat("1", 21)), Country: ptr("US")}
		}), "address.postalCode", "at most 20"},
		"address country ZZ": {individual(func(in *Input) { in.Address = &AddressInput{Line1: ptr("a"), PostalCode: ptr("1"), Country: ptr("ZZ")} }), "address.country", "ISO 3166-1"},
		"no business info":   {business(func(in *Input) { in.BusinessInfo = nil }), "businessInfo", "businessInfo (with legalName) is required"},
		"no legal name":      {business(func(in *Input) { in.BusinessInfo.LegalName = nil }), "businessInfo.legalName", "is required"},
		"bad entity type":    {business(func(in *Input) { in.BusinessInfo.EntityType = ptr("GUILD") }), "businessInfo.entityType", "must be one of SOLE_PROPRIETORSHIP"},
		"bad volume":         {business(func(in *Input) { in.BusinessInfo.ExpectedMonthlyTransactionVolume = ptr("LOTS") }), "businessInfo.expectedMonthlyTransactionVolume", "must be one of"},
		"bad incorporation":  {business(func(in *Input) { in.BusinessInfo.IncorporatedOn = ptr("1800-01-01") }), "businessInfo.incorporatedOn", "between 1900 and today"},
		"bad jurisdiction":   {business(func(in *Input) { in.BusinessInfo.ExpectedRecipientJurisdictions = []string{"US", "XX"} }), "businessInfo.expectedRecipientJurisdictions[1]", "alpha-2"},
		"long tax id":        {business(func(in *Input) { in.BusinessInfo.TaxID = ptr(strings.Repeat("1", 256)) }), "businessInfo.taxId", "1 to 255"},
		"blank customer id":  {individual(func(in *Input) { in.PlatformCustomerID = ptr(" ") }), "platformCustomerId", "1 to 255"},
		"bad region":         {individual(func(in *Input) { in.Region = ptr("USA") }), "region", "region must be an ISO 3166-1 alpha-2"},
		"no region":          {individual(func(in *Input) { in.Region = nil }), "region", "region is required when there is no address"},
		"unknown currency":   {individual(func(in *Input) { in.Currencies = &[]string{"XYZ"} }), "currencies[0]", `"XYZ" is not a known currency code`},
		"currency twice":     {individual(func(in *Input) { in.Currencies = &[]string{"USD", "USD"} }), "currencies[1]", "currency USD is listed twice"},
		"unsupported":        {individual(func(in *Input) { in.Currencies = &[]string{"EUR"} }), "currencies[0]", "the platform does not support EUR (supported: USD, BTC, MXN)"},
		"foreign fiat":       {individual(func(in *Input) { in.Currencies = &[]string{"USD", "MXN"} }), "currencies[1]", "a customer in region US can hold USD and crypto currencies; MXN accounts need a separate customer"},
		"bad uma":            {individual(func(in *Input) { in.UmaAddress = ptr("ana@pay.example") }), "umaAddress", "umaAddress must look like $name@pay.example"},
		"foreign uma":        {individual(func(in *Input) { in.UmaAddress = ptr("$ana@other.example") }), "umaAddress", "must be on the platform's UMA domain pay.example"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Create(tc.in, p)
			wantField(t, err, tc.field, tc.message)
		})
	}
	_, err := Create(individual(func(in *Input) { in.Region = ptr("DE") }), settings(false, "MXN"))
	wantField(t, err, "currencies", "no supported currency fits region DE; pass currencies explicitly")
}

// regulated is s of a platform that attests its customers' KYC status.
func regulated(s platformconfig.Settings) platformconfig.Settings {
	s.Regulated = true
	return s
}

func TestCreate(t *testing.T) {
	p := regulated(settings(true, "USD", "BTC", "MXN"))
	n, err := Create(individual(func(in *Input) { in.Region = nil; in.Nationality = ptr("MX"); in.KycStatus = ptr("APPROVED") }), p)
	if err != nil {
		t.Fatal(err)
	}
	r := n.Record
	if r.Region != "MX" || r.KycStatus != catalog.KycApproved || r.PlatformCustomerID != r.ID.String() || r.ID == uuid.Nil {
		t.Fatalf("record %+v", r)
	}
	if !reflect.DeepEqual(r.Currencies, []string{"MXN", "BTC"}) {
		t.Fatalf("inferred currencies %v", r.Currencies)
	}
	if want := []account.Opening{{Currency: "MXN", Type: catalog.InternalFiat}, {Currency: "BTC", Type: catalog.EmbeddedWallet}}; !reflect.DeepEqual(n.Accounts, want) {
		t.Fatalf("accounts %+v", n.Accounts)
	}
	if !regexp.MustCompile(`^\$[0-9a-f-]{1,40}\.[0-9a-f]{6}@pay\.example$`).MatchString(r.UmaAddress) {
		t.Fatalf("generated UMA address %s", r.UmaAddress)
	}

	// Region from the address, then USD when the home currency is not supported.
	n, err = Create(individual(func(in *Input) {
		in.Region = nil
		in.PlatformCustomerID = ptr("Ana Lúcia #7")
		in.Address = &AddressInput{Line1: ptr("Rua 1"), PostalCode: ptr("01000"), Country: ptr("BR")}
	}), settings(false, "USD", "BTC"))
	if err != nil {
		t.Fatal(err)
	}
	if n.Record.Region != "BR" || !reflect.DeepEqual(n.Record.Currencies, []string{"USD", "BTC"}) || n.Record.Address.Country != "BR" ||
		!strings.HasPrefix(n.Record.UmaAddress, "$analcia7.") || n.Accounts[1].Type != catalog.InternalCrypto {
		t.Fatalf("customer %+v accounts %+v", n.Record, n.Accounts)
	}

	// A business: region from the business country; kybStatus sets the status.
	n, err = Create(business(func(in *Input) {
		in.Region = nil
		in.KybStatus = ptr("PENDING")
		in.BusinessInfo.Country = ptr("US")
		in.UmaAddress = ptr("$acme@pay.example")
		in.Currencies = &[]string{}
	}), p)
	if err != nil {
		t.Fatal(err)
	}
	if n.Record.Region != "US" || n.Record.KycStatus != catalog.KycPending || n.Record.BusinessInfo.LegalName != "Acme Inc." ||
		n.Record.UmaAddress != "$acme@pay.example" || len(n.Accounts) != 0 {
		t.Fatalf("business %+v", n.Record)
	}
}

// An unregulated platform's customers are verified by the service: a request may repeat
// the status it has, never set another.
func TestAttestationNeedsARegulatedPlatform(t *testing.T) {
	p := settings(false, "USD", "BTC")
	_, err := Create(individual(func(in *Input) { in.KycStatus = ptr("APPROVED") }), p)
	wantField(t, err, "kycStatus", "kycStatus is set by the service's verification")
	if n, err := Create(individual(func(in *Input) { in.KycStatus = ptr("UNVERIFIED") }), p); err != nil || n.Record.KycStatus != catalog.KycUnverified {
		t.Fatalf("the default status repeated: %+v %v", n.Record, err)
	}
	_, err = Patch(stored(), business(func(in *Input) { in.Region = nil; in.KybStatus = ptr("APPROVED") }), p)
	wantField(t, err, "kybStatus", "kybStatus is set by the service's verification")
	if _, err := Patch(stored(), business(func(in *Input) { in.Region = nil; in.KybStatus = ptr("PENDING") }), p); err != nil {
		t.Fatalf("the stored status repeated: %v", err)
	}
}

func stored() Record {
	return Record{ID: uuid.New(), PlatformCustomerID: "c-1", Type: catalog.Business, Region: "US", Currencies: []string{"USD"},
		UmaAddress: "$acme@pay.example", KycStatus: catalog.KycPending,
		BusinessInfo: &BusinessInfo{LegalName: "Acme Inc.", TaxID: ptr("12-3456789")}}
}

func TestPatchRefusals(t *testing.T) {
	p := settings(false, "USD", "BTC")
	deleted := stored()
	deleted.IsDeleted = true
	cases := map[string]struct {
		cur            Record
		in             Input
		field, message string
	}{
		"platform id":       {stored(), business(func(in *Input) { in.Region = nil; in.PlatformCustomerID = ptr("c-2") }), "platformCustomerId", "cannot be changed"},
		"region":            {stored(), business(nil), "region", "region is immutable"},
		"no type":           {stored(), Input{}, "customerType", "customerType is required (BUSINESS)"},
		"type change":       {stored(), individual(func(in *Input) { in.Region = nil }), "customerType", "cannot change from BUSINESS to INDIVIDUAL"},
		"individual member": {stored(), business(func(in *Input) { in.Region = nil; in.BirthDate = ptr("1990-01-01") }), "birthDate", "applies to INDIVIDUAL"},
		"bad email":         {stored(), business(func(in *Input) { in.Region = nil; in.Email = ptr("x") }), "email", "plain e-mail"},
		"blank legal name":  {stored(), business(func(in *Input) { in.Region = nil; in.BusinessInfo.LegalName = ptr("") }), "businessInfo.legalName", "1 to 255"},
		"bad uma":           {stored(), business(func(in *Input) { in.Region = nil; in.UmaAddress = ptr("$acme@elsewhere.example") }), "umaAddress", "UMA domain pay.example"},
		"foreign currency":  {stored(), business(func(in *Input) { in.Region = nil; in.Currencies = &[]string{"EUR"} }), "currencies[0]", "does not support EUR"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Patch(tc.cur, tc.in, p)
			wantField(t, err, tc.field, tc.message)
		})
	}
	_, err := Patch(deleted, business(func(in *Input) { in.Region = nil }), p)
	var r *problem.Refusal
	if !errors.As(err, &r) || r.Code != catalog.CustomerDeleted || r.Message != "the customer is deleted" {
		t.Fatalf("deleted customer: %v", err)
	}
}

func TestPatch(t *testing.T) {
	cur := stored()
	in := Input{CustomerType: ptr("BUSINESS"), KybStatus: ptr("APPROVED"), Email: ptr("ops@acme.example"),
		BusinessInfo: &BusinessInfoInput{DoingBusinessAs: ptr("Acme"), CountriesOfOperation: []string{"US", "CA"}}}
	ch, err := Patch(cur, in, regulated(settings(false, "USD", "BTC")))
	if err != nil {
		t.Fatal(err)
	}
	got := ch.Record
	if got.KycStatus != catalog.KycApproved || *got.Email != "ops@acme.example" || got.UmaAddress != cur.UmaAddress || ch.ReplacesCurrencies {
		t.Fatalf("patched %+v", got)
	}
	bi := got.BusinessInfo
	if bi.LegalName != "Acme Inc." || *bi.TaxID != "12-3456789" || *bi.DoingBusinessAs != "Acme" || len(bi.CountriesOfOperation) != 2 {
		t.Fatalf("business info not merged over the stored one: %+v", bi)
	}
	if cur.BusinessInfo.DoingBusinessAs != nil || cur.Email != nil {
		t.Fatal("the stored record was modified")
	}
	if !in.ChangesEmail(cur) || in.ChangesEmail(got) || (Input{}).ChangesEmail(cur) {
		t.Fatal("ChangesEmail")
	}

	ch, err = Patch(cur, Input{CustomerType: ptr("BUSINESS"), Currencies: &[]string{"BTC"}, UmaAddress: ptr("$acme.new@pay.example")}, settings(true, "USD", "BTC"))
	if err != nil {
		t.Fatal(err)
	}
	if !ch.ReplacesCurrencies || !reflect.DeepEqual(ch.Record.Currencies, []string{"BTC"}) || ch.Record.UmaAddress != "$acme.new@pay.example" ||
		!reflect.DeepEqual(ch.Accounts, []account.Opening{{Currency: "BTC", Type: catalog.EmbeddedWallet}}) {
		t.Fatalf("currency change %+v", ch)
	}
}

func TestInferCurrencies(t *testing.T) {
	for _, tc := range []struct {
		region    string
		supported []string
		want      []string
	}{
		{"MX", []string{"USD", "BTC", "MXN", "USDC"}, []string{"MXN", "BTC", "USDC"}},
		{"BR", []string{"USD", "BTC"}, []string{"USD", "BTC"}},
		{"US", []string{"USD"}, []string{"USD"}},
		{"DE", []string{"USD"}, []string{"USD"}},
		{"DE", []string{"MXN"}, nil},
	} {
		if got := InferCurrencies(tc.region, settings(false, tc.supported...).Currencies); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v: %v, want %v", tc.region, tc.supported, got, tc.want)
		}
	}
}

func TestDecodeDocuments(t *testing.T) {
	a, err := DecodeAddress([]byte(`{"line1":"a","postalCode":"1","country":"US"}`))
	if err != nil || a.Country != "US" {
		t.Fatalf("address %+v %v", a, err)
	}
	if a, err := DecodeAddress(nil); a != nil || err != nil {
		t.Fatalf("no address: %+v %v", a, err)
	}
	if _, err := DecodeBusinessInfo([]byte(`{"legalName":5}`)); err == nil {
		t.Fatal("undecodable business info accepted")
	}
}

// fieldsOf lists the fields a collected refusal names, in order.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var fe *problem.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a field error", err)
	}
	var out []string
	for _, e := range problem.Entries(fe) {
		out = append(out, e.Field)
	}
	return out
}

// One refusal names every invalid field of a creation or an update, the first one being
// the envelope's details.field.
func TestEveryInvalidFieldAtOnce(t *testing.T) {
	p := settings(false, "USD")
	_, err := Create(individual(func(in *Input) {
		in.Email, in.Nationality, in.BirthDate = ptr("nope"), ptr("XX"), ptr("31-12-1990")
		in.Address = &AddressInput{Line1: ptr(" "), Country: ptr("ZZ")}
		in.UmaAddress = ptr("$a@elsewhere.example")
		in.KybStatus = ptr("APPROVED")
	}), p)
	want := []string{"kybStatus", "email", "nationality", "birthDate", "address.line1", "address.postalCode", "address.country", "umaAddress"}
	if got := fieldsOf(t, err); !slices.Equal(got, want) {
		t.Fatalf("create: %v, want %v", got, want)
	}
	wantField(t, err, "kybStatus", "applies to BUSINESS")
	_, err = Patch(stored(), business(func(in *Input) {
		in.PlatformCustomerID = ptr("c-2")
		in.BusinessInfo.LegalName, in.BusinessInfo.Country, in.BusinessInfo.EntityType = ptr(""), ptr("ZZ"), ptr("GUILD")
		in.Currencies = &[]string{"EUR"}
	}), p)
	want = []string{"platformCustomerId", "region", "businessInfo.legalName", "businessInfo.country", "businessInfo.entityType", "currencies[0]"}
	if got := fieldsOf(t, err); !slices.Equal(got, want) {
		t.Fatalf("patch: %v, want %v", got, want)
	}
	// A refusal of one field stays one.
	_, err = Create(individual(func(in *Input) { in.Email = ptr("nope") }), p)
	if got := fieldsOf(t, err); !slices.Equal(got, []string{"email"}) {
		t.Fatalf("one field: %v", got)
	}
}

// An individual's due diligence: validated member by member (a description wherever OTHER
// is chosen), stored, merged by an update; a business gives none at the top level.
func TestDueDiligence(t *testing.T) {
	p := settings(false, "USD")
	n, err := Create(individual(func(in *Input) {
		in.SourceOfFundsCategories = &[]string{"SALARY", "OTHER"}
		in.SourceOfFundsOtherDescription = ptr("Prize money")
		in.PepStatus = ptr("NONE")
	}), p)
	if err != nil || n.Record.DueDiligence == nil || *n.Record.DueDiligence.PepStatus != "NONE" || len(n.Record.DueDiligence.SourceOfFundsCategories) != 2 {
		t.Fatalf("%+v %v", n.Record.DueDiligence, err)
	}
	_, err = Create(individual(func(in *Input) {
		in.SourceOfFundsCategories = &[]string{"SALARY", "SALARY", "LOTTERY"}
		in.SourceOfWealthCategories = &[]string{"OTHER"}
		in.NetWorthRange = ptr("A_LOT")
		in.PurposeOfAccount = ptr("OTHER")
	}), p)
	want := []string{"sourceOfFundsCategories", "sourceOfFundsCategories", "netWorthRange", "sourceOfWealthOtherDescription", "purposeOfAccountOtherDescription"}
	if got := fieldsOf(t, err); !slices.Equal(got, want) {
		t.Fatalf("refusals %v, want %v", got, want)
	}
	cur := n.Record
	ch, err := Patch(cur, Input{CustomerType: ptr("INDIVIDUAL"), AnnualIncomeRange: ptr("OVER_1M")}, p)
	if err != nil || *ch.Record.DueDiligence.AnnualIncomeRange != "OVER_1M" || *ch.Record.DueDiligence.PepStatus != "NONE" {
		t.Fatalf("merged %+v %v", ch.Record.DueDiligence, err)
	}
	_, err = Create(business(func(in *Input) { in.PepStatus = ptr("NONE") }), p)
	wantField(t, err, "pepStatus", "applies to INDIVIDUAL")
}
