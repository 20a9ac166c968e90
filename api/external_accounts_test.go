package api_test

import (
	"testing"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/internal/banking"
)

func newCustomer(t *testing.T, c *apitest.Client, region string, currencies ...string) api.Customer {
	t.Helper()
	var cust api.Customer
	r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": region, "currencies": currencies, "fullName": "Grace Hopper"})
	if r.Status != 201 {
		t.Fatalf("create customer: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &cust)
	return cust
}

func usdAccount(number string) map[string]any {
	return map[string]any{"accountType": "USD_ACCOUNT", "accountNumber": number, "routingNumber": banking.MakeABA("02100002"),
		"beneficiary": map[string]any{"beneficiaryType": "INDIVIDUAL", "fullName": "Grace Brewster Hopper"}}
}

func TestExternalAccounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, false)
	cust := newCustomer(t, c, "US", "USD")
	create := func(body map[string]any) *apitest.Response { return c.Do("POST", "/customers/external-accounts", body) }

	r := create(map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("123456789001"), "defaultUmaDepositAccount": true, "platformAccountId": "ext-1"})
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var acct api.ExternalAccount
	r.Decode(t, &acct)
	info := r.JSON(t)["accountInfo"].(map[string]any)
	if acct.Status != "ACTIVE" || acct.CustomerID != cust.ID || info["paymentRails"] == nil || *acct.BeneficiaryVerificationStatus != "MATCHED" ||
		acct.BeneficiaryVerifiedData.FullName != "Grace Brewster Hopper" || !*acct.DefaultUmaDepositAccount {
		t.Fatalf("account %s", r.Body)
	}
	expectError(t, create(map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("123456789001")}), 409, "EXTERNAL_ACCOUNT_EXISTS")

	// Beneficiary name verification in sandbox, by suffix.
	for suffix, want := range map[string]string{"102": "NOT_MATCHED", "103": "PARTIAL_MATCH", "104": "PENDING", "106": "UNSUPPORTED", "107": "CHECKED_BY_RECEIVING_FI"} {
		var a api.ExternalAccount
		r := create(map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("5550000" + suffix)})
		r.Decode(t, &a)
		if r.Status != 201 || *a.BeneficiaryVerificationStatus != want {
			t.Fatalf("suffix %s: %d %s", suffix, r.Status, r.Body)
		}
		if want == "PARTIAL_MATCH" && a.BeneficiaryVerifiedData.FullName != "G. B. Hopper" {
			t.Fatalf("partial match data %+v", a.BeneficiaryVerifiedData)
		}
	}
	expectError(t, create(map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("5550000105")}), 400, "INVALID_BANK_ACCOUNT")

	// Other account types validate their identifiers.
	eur := map[string]any{"accountType": "EUR_ACCOUNT", "iban": "DE89370400440532013000",
		"beneficiary": map[string]any{"beneficiaryType": "BUSINESS", "legalName": "Hopper GmbH"}}
	if r := create(map[string]any{"customerId": cust.ID, "currency": "EUR", "accountInfo": eur}); r.Status != 201 {
		t.Fatalf("EUR: %d %s", r.Status, r.Body)
	}
	badIBAN := map[string]any{"accountType": "EUR_ACCOUNT", "iban": "DE89370400440532013001",
		"beneficiary": map[string]any{"beneficiaryType": "BUSINESS", "legalName": "Hopper GmbH"}}
	m := expectError(t, create(map[string]any{"customerId": cust.ID, "currency": "EUR", "accountInfo": badIBAN}), 400, "INVALID_INPUT")
	if m["details"].(map[string]any)["field"] != "accountInfo.iban" {
		t.Fatalf("field %v", m["details"])
	}
	clabe := map[string]any{"accountType": "MXN_ACCOUNT", "clabeNumber": "032180000118359719",
		"beneficiary": map[string]any{"beneficiaryType": "INDIVIDUAL", "fullName": "Ana"}}
	if r := create(map[string]any{"customerId": cust.ID, "currency": "MXN", "accountInfo": clabe}); r.Status != 201 {
		t.Fatalf("MXN: %d %s", r.Status, r.Body)
	}
	wallet := map[string]any{"accountType": "SOLANA_WALLET", "address": "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"}
	if r := create(map[string]any{"customerId": cust.ID, "currency": "USDC", "accountInfo": wallet}); r.Status != 201 || r.JSON(t)["beneficiaryVerificationStatus"] != nil {
		t.Fatalf("wallet: %d %s", r.Status, r.Body)
	}
	for name, body := range map[string]map[string]any{
		"no customer":       {"currency": "USD", "accountInfo": usdAccount("1")},
		"no currency":       {"customerId": cust.ID, "accountInfo": usdAccount("1")},
		"no info":           {"customerId": cust.ID, "currency": "USD"},
		"currency mismatch": {"customerId": cust.ID, "currency": "EUR", "accountInfo": usdAccount("1")},
		"bad routing":       {"customerId": cust.ID, "currency": "USD", "accountInfo": map[string]any{"accountType": "USD_ACCOUNT", "accountNumber": "1", "routingNumber": "123456789", "beneficiary": map[string]any{"beneficiaryType": "INDIVIDUAL", "fullName": "x"}}},
		"bad clabe":         {"customerId": cust.ID, "currency": "MXN", "accountInfo": map[string]any{"accountType": "MXN_ACCOUNT", "clabeNumber": "032180000118359710", "beneficiary": map[string]any{"beneficiaryType": "INDIVIDUAL", "fullName": "x"}}},
		"no beneficiary":    {"customerId": cust.ID, "currency": "USD", "accountInfo": map[string]any{"accountType": "USD_ACCOUNT", "accountNumber": "1", "routingNumber": banking.MakeABA("02100002")}},
		"unknown type":      {"customerId": cust.ID, "currency": "USD", "accountInfo": map[string]any{"accountType": "PIGGY_BANK"}},
		"bad customer id":   {"customerId": "Customer:nope", "currency": "USD", "accountInfo": usdAccount("1")},
	} {
		t.Run(name, func(t *testing.T) { expectError(t, create(body), 400, "INVALID_INPUT") })
	}
	expectError(t, create(map[string]any{"customerId": "Customer:0190a000-0000-7000-8000-000000000001", "currency": "USD", "accountInfo": usdAccount("77001")}), 404, "USER_NOT_FOUND")

	// Lists, reads, deletes; the platform family is separate.
	var list api.List[api.ExternalAccount]
	c.Do("GET", "/customers/external-accounts?customerId="+cust.ID+"&currency=USD", nil).Decode(t, &list)
	if list.TotalCount != 6 {
		t.Fatalf("USD accounts: %d", list.TotalCount)
	}
	if r := c.Do("GET", "/customers/external-accounts/"+acct.ID, nil); r.Status != 200 {
		t.Fatalf("get: %d", r.Status)
	}
	expectError(t, c.Do("GET", "/platform/external-accounts/"+acct.ID, nil), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
	p := c.Do("POST", "/platform/external-accounts", map[string]any{"currency": "USD", "accountInfo": usdAccount("999000001")})
	if p.Status != 201 || p.JSON(t)["customerId"] != nil {
		t.Fatalf("platform account: %d %s", p.Status, p.Body)
	}
	expectError(t, c.Do("POST", "/platform/external-accounts", map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("2")}), 400, "INVALID_INPUT")
	var plist api.List[api.ExternalAccount]
	c.Do("GET", "/platform/external-accounts", nil).Decode(t, &plist)
	if plist.TotalCount != 1 {
		t.Fatalf("platform list %d", plist.TotalCount)
	}
	if r := c.Do("DELETE", "/customers/external-accounts/"+acct.ID, nil); r.Status != 204 {
		t.Fatalf("delete: %d", r.Status)
	}
	expectError(t, c.Do("GET", "/customers/external-accounts/"+acct.ID, nil), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
	expectError(t, c.Do("DELETE", "/customers/external-accounts/"+acct.ID, nil), 404, "EXTERNAL_ACCOUNT_NOT_FOUND")
	// Deleting frees the identifier for a new registration.
	if r := create(map[string]any{"customerId": cust.ID, "currency": "USD", "accountInfo": usdAccount("123456789001")}); r.Status != 201 {
		t.Fatalf("re-create after delete: %d %s", r.Status, r.Body)
	}
}
