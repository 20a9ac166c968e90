package api_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"

	"paycore/internal/catalog"
)

// multiCurrency configures USD, EUR, MXN and USDC on a platform.
func multiCurrency(t testing.TB, c *apitest.Client, wallets bool) {
	t.Helper()
	item := func(code string) map[string]any {
		return map[string]any{"currencyCode": code, "minAmount": 1, "maxAmount": 1_000_000_00, "enabledTransactionTypes": []string{"INCOMING", "OUTGOING"}, "requiredCounterpartyFields": []any{}}
	}
	body := map[string]any{"supportedCurrencies": []any{item("USD"), item("EUR"), item("MXN"), item("USDC")}}
	if wallets {
		body["embeddedWalletConfig"] = map[string]any{"appName": "Wallet"}
	}
	if r := c.Do("PATCH", "/config", body); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
}

func TestCustomerLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, p := e.platform(true)
	multiCurrency(t, c, false)
	r := c.Do("POST", "/customers", map[string]any{
		"customerType": "INDIVIDUAL", "platformCustomerId": "user-42", "region": "MX", "email": "ana@example.com",
		"fullName": "Ana García", "birthDate": "1990-05-17", "nationality": "MX", "kycStatus": "APPROVED",
		"address": map[string]any{"line1": "Av. Reforma 1", "postalCode": "06600", "country": "MX", "city": "CDMX"},
	})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	r.Decode(t, &cust)
	// Currencies inferred from the region: the home currency and the platform's crypto.
	if strings.Join(cust.Currencies, ",") != "MXN,USDC" || cust.KycStatus == nil || *cust.KycStatus != "APPROVED" {
		t.Fatalf("customer %s", r.Body)
	}
	if !strings.HasPrefix(cust.UmaAddress, "$user-42.") || !strings.HasSuffix(cust.UmaAddress, "@"+p.UmaDomain) {
		t.Fatalf("generated umaAddress %q", cust.UmaAddress)
	}
	// One internal account per currency: fiat and crypto, each with unique instructions.
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	if accts.TotalCount != 2 {
		t.Fatalf("accounts: %+v", accts)
	}
	types := map[string]catalog.AccountType{}
	for _, a := range accts.Data {
		types[a.Balance.Currency.Code] = a.Type
		if a.Balance.Amount != 0 || a.Status != "ACTIVE" || len(a.FundingPaymentInstructions) < 3 {
			t.Fatalf("account %+v", a)
		}
	}
	if types["MXN"] != "INTERNAL_FIAT" || types["USDC"] != "INTERNAL_CRYPTO" {
		t.Fatalf("types %v", types)
	}
	// PATCH replaces currencies: USD added (new account), USDC removed (empty account closed).
	r = c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "currencies": []string{"MXN", "USD"}, "email": "ana@new.example"})
	if r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	got := map[string]bool{}
	for _, a := range accts.Data {
		got[a.Balance.Currency.Code] = true
	}
	if len(got) != 2 || !got["MXN"] || !got["USD"] {
		t.Fatalf("after patch: %v", got)
	}
	// A combination needing a separate customer is refused with the reason.
	r = c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "currencies": []string{"MXN", "EUR"}})
	m := expectError(t, r, 400, "INVALID_INPUT")
	if !strings.Contains(m["message"].(string), "separate customer") {
		t.Fatalf("message does not explain: %s", r.Body)
	}
	for _, body := range []map[string]any{
		{"currencies": []string{"MXN"}},                // customerType missing
		{"customerType": "BUSINESS"},                   // type change
		{"customerType": "INDIVIDUAL", "region": "US"}, // immutable
		{"customerType": "INDIVIDUAL", "businessInfo": map[string]any{"legalName": "x"}},
		{"customerType": "INDIVIDUAL", "currencies": []string{"GBP"}}, // not supported by the platform
		{"customerType": "INDIVIDUAL", "birthDate": "2999-01-01"},
	} {
		expectError(t, c.Do("PATCH", "/customers/"+cust.ID, body), 400, "INVALID_INPUT")
	}
	// Delete hides the customer from lists unless asked for.
	if r := c.Do("DELETE", "/customers/"+cust.ID, nil); r.Status != 200 || !r.JSON(t)["isDeleted"].(bool) {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	expectError(t, c.Do("DELETE", "/customers/"+cust.ID, nil), 410, "CUSTOMER_DELETED")
	expectError(t, c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL"}), 410, "CUSTOMER_DELETED")
	var list api.List[api.Customer]
	c.Do("GET", "/customers", nil).Decode(t, &list)
	if list.TotalCount != 0 {
		t.Fatalf("deleted customer listed: %+v", list)
	}
	c.Do("GET", "/customers?isIncludingDeleted=true", nil).Decode(t, &list)
	if list.TotalCount != 1 || !list.Data[0].IsDeleted {
		t.Fatalf("isIncludingDeleted: %+v", list)
	}
	if r := c.Do("GET", "/customers/"+cust.ID, nil); r.Status != 200 {
		t.Fatalf("get deleted: %d", r.Status)
	}
}

func TestBusinessCustomerAndWallets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, true)
	r := c.Do("POST", "/customers", map[string]any{
		"customerType": "BUSINESS", "region": "US", "currencies": []string{"USD", "USDC"}, "kybStatus": "PENDING",
		"businessInfo": map[string]any{"legalName": "Acme LLC", "registrationNumber": "REG-001", "entityType": "LLC",
			"countriesOfOperation": []string{"US", "MX"}, "incorporatedOn": "2015-03-01"},
	})
	if r.Status != 201 {
		t.Fatalf("create business: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	r.Decode(t, &cust)
	if cust.BusinessInfo == nil || *cust.BusinessInfo.RegistrationNumber != "REG-001" || cust.KybStatus == nil || cust.KycStatus != nil {
		t.Fatalf("business %s", r.Body)
	}
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID+"&type=EMBEDDED_WALLET", nil).Decode(t, &accts)
	if accts.TotalCount != 1 || accts.Data[0].Balance.Currency.Code != "USDC" || accts.Data[0].PrivateEnabled == nil {
		t.Fatalf("wallet account: %+v", accts)
	}
	// Wallet key material exists and is sealed at rest (never the raw 32 bytes).
	var sealedLen int
	if err := e.pool.QueryRow(t.Context(), "SELECT length(wallet_sealed) FROM internal_accounts WHERE type = 'EMBEDDED_WALLET'").Scan(&sealedLen); err != nil || sealedLen <= 32 {
		t.Fatalf("wallet key material: %d %v", sealedLen, err)
	}
	// PATCH on a wallet needs a wallet signature (202 challenge); on other accounts
	// privateEnabled is refused.
	if r := c.Do("PATCH", "/internal-accounts/"+accts.Data[0].ID, map[string]any{"privateEnabled": true}); r.Status != 202 {
		t.Fatalf("wallet PATCH: %d %s", r.Status, r.Body)
	}
	var fiat api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID+"&currency=USD", nil).Decode(t, &fiat)
	expectError(t, c.Do("PATCH", "/internal-accounts/"+fiat.Data[0].ID, map[string]any{"privateEnabled": true}), 400, "INVALID_INPUT")
	expectError(t, c.Do("PATCH", "/internal-accounts/"+fiat.Data[0].ID, map[string]any{}), 400, "INVALID_INPUT")
	// Business-only and individual-only fields stay apart.
	for _, body := range []map[string]any{
		{"customerType": "BUSINESS", "region": "US"},
		{"customerType": "BUSINESS", "region": "US", "businessInfo": map[string]any{"doingBusinessAs": "x"}},
		{"customerType": "BUSINESS", "region": "US", "fullName": "x", "businessInfo": map[string]any{"legalName": "x"}},
		{"customerType": "BUSINESS", "region": "US", "businessInfo": map[string]any{"legalName": "x", "entityType": "EMPIRE"}},
		{"customerType": "INDIVIDUAL", "region": "US", "kybStatus": "APPROVED"},
	} {
		expectError(t, c.Do("POST", "/customers", body), 400, "INVALID_INPUT")
	}
}

func TestCustomerValidationAndConflicts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, p := e.platform(true)
	cases := map[string]map[string]any{
		"no type":          {"region": "US"},
		"bad type":         {"customerType": "ROBOT", "region": "US"},
		"bad region":       {"customerType": "INDIVIDUAL", "region": "USA"},
		"no region":        {"customerType": "INDIVIDUAL"},
		"bad email":        {"customerType": "INDIVIDUAL", "region": "US", "email": "not-an-email"},
		"bad birthDate":    {"customerType": "INDIVIDUAL", "region": "US", "birthDate": "17/05/1990"},
		"bad nationality":  {"customerType": "INDIVIDUAL", "region": "US", "nationality": "Mexican"},
		"bad kyc":          {"customerType": "INDIVIDUAL", "region": "US", "kycStatus": "MAYBE"},
		"address no line1": {"customerType": "INDIVIDUAL", "region": "US", "address": map[string]any{"postalCode": "1", "country": "US"}},
		"address country":  {"customerType": "INDIVIDUAL", "region": "US", "address": map[string]any{"line1": "a", "postalCode": "1", "country": "ZZ"}},
		"unknown currency": {"customerType": "INDIVIDUAL", "region": "US", "currencies": []string{"XYZ"}},
		"unsupported":      {"customerType": "INDIVIDUAL", "region": "US", "currencies": []string{"EUR"}},
		"duplicate":        {"customerType": "INDIVIDUAL", "region": "US", "currencies": []string{"USD", "USD"}},
		"foreign uma":      {"customerType": "INDIVIDUAL", "region": "US", "umaAddress": "$ana@other.example"},
		"bad uma":          {"customerType": "INDIVIDUAL", "region": "US", "umaAddress": "ana@" + p.UmaDomain},
		"unknown field":    {"customerType": "INDIVIDUAL", "region": "US", "favouriteColour": "blue"},
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) { expectError(t, c.Do("POST", "/customers", body), 400, "INVALID_INPUT") })
	}
	// Every invalid member at once: details.errors lists them, details.field is the first.
	r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "email": "nope", "birthDate": "17/05/1990",
		"address": map[string]any{"line1": "a", "country": "ZZ"}, "currencies": []string{"EUR"}})
	expectError(t, r, 400, "INVALID_INPUT")
	var env struct {
		Details struct {
			Field  string `json:"field"`
			Errors []struct {
				Field, Message string
			} `json:"errors"`
		} `json:"details"`
	}
	r.Decode(t, &env)
	var fields []string
	for _, e := range env.Details.Errors {
		if e.Message == "" {
			t.Errorf("%s without a message", e.Field)
		}
		fields = append(fields, e.Field)
	}
	if want := []string{"email", "birthDate", "address.postalCode", "address.country", "currencies[0]"}; !slices.Equal(fields, want) || env.Details.Field != "email" {
		t.Fatalf("errors %v (field %q), want %v: %s", fields, env.Details.Field, want, r.Body)
	}
	ok := map[string]any{"customerType": "INDIVIDUAL", "region": "US", "umaAddress": "$ana@" + p.UmaDomain, "platformCustomerId": "p-1"}
	if r := c.Do("POST", "/customers", ok); r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	ok["platformCustomerId"] = "p-2"
	expectError(t, c.Do("POST", "/customers", ok), 409, "UMA_ADDRESS_EXISTS")
	ok["umaAddress"] = "$bob@" + p.UmaDomain
	ok["platformCustomerId"] = "p-1"
	expectError(t, c.Do("POST", "/customers", ok), 409, "PLATFORM_CUSTOMER_ID_EXISTS")
	var n int
	_ = e.pool.QueryRow(t.Context(), "SELECT count(*) FROM customers").Scan(&n)
	var accounts int
	_ = e.pool.QueryRow(t.Context(), "SELECT count(*) FROM internal_accounts WHERE customer_id IS NOT NULL").Scan(&accounts)
	if n != 1 || accounts != 1 {
		t.Fatalf("refused requests wrote rows: %d customers, %d accounts", n, accounts)
	}
}

func TestCustomerFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, false)
	mk := func(body map[string]any) api.Customer {
		var cust api.Customer
		r := c.Do("POST", "/customers", body)
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		r.Decode(t, &cust)
		return cust
	}
	a := mk(map[string]any{"customerType": "INDIVIDUAL", "region": "US", "platformCustomerId": "a"})
	mk(map[string]any{"customerType": "INDIVIDUAL", "region": "MX", "platformCustomerId": "b"})
	mk(map[string]any{"customerType": "BUSINESS", "region": "DE", "businessInfo": map[string]any{"legalName": "GmbH"}, "platformCustomerId": "c"})
	count := func(q string) int64 {
		var l api.List[api.Customer]
		r := c.Do("GET", "/customers?"+q, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", q, r.Status, r.Body)
		}
		r.Decode(t, &l)
		return l.TotalCount
	}
	for q, want := range map[string]int64{
		"": 3, "customerType=BUSINESS": 1, "region=MX": 1, "currency=EUR": 1, "currency=USD": 1, "platformCustomerId=a": 1,
		"umaAddress=" + url.QueryEscape(a.UmaAddress): 1, "createdAfter=2000-01-01T00:00:00Z": 3, "updatedBefore=2000-01-01T00:00:00Z": 0,
		"limit=1": 3,
	} {
		if got := count(q); got != want {
			t.Errorf("%q: %d, want %d", q, got, want)
		}
	}
	for _, q := range []string{"customerType=ROBOT", "region=XX", "isIncludingDeleted=yes", "createdAfter=now"} {
		expectError(t, c.Do("GET", "/customers?"+q, nil), 400, "INVALID_INPUT")
	}
}

// A path id means the same escaped or not: clients that escape the `:` of a typed id
// (openapi-fetch writes `Customer%3A…`) reach the same resource, in either case of hex.
func TestPathIDsEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	var cust api.Customer
	if r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED", "region": "US", "currencies": []string{"USD"}}); r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &cust)
	}
	for _, colon := range []string{"%3A", "%3a"} {
		escaped := strings.Replace(cust.ID, ":", colon, 1)
		var got api.Customer
		if r := c.Do("GET", "/customers/"+escaped, nil); r.Status != 200 {
			t.Fatalf("GET /customers/%s: %d %s", escaped, r.Status, r.Body)
		} else if r.Decode(t, &got); got.ID != cust.ID {
			t.Fatalf("GET /customers/%s answered %s", escaped, got.ID)
		}
	}
}
