package extaccount

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func ptr[T any](v T) *T { return &v }

const (
	customerID = "Customer:0190a000-0000-7000-8000-000000000001"
	usdInfo    = `{"accountType":"USD_ACCOUNT","accountNumber":"%s","routingNumber":"021000021","beneficiary":{"beneficiaryType":"INDIVIDUAL","fullName":"Grace Brewster Hopper"}}`
)

func usdRequest(number string) Request {
	return Request{CustomerID: ptr(customerID), Currency: ptr("USD"), AccountInfo: json.RawMessage(strings.Replace(usdInfo, "%s", number, 1))}
}

func TestRequestCheckRefusals(t *testing.T) {
	cases := map[string]struct {
		req            Request
		platformOwned  bool
		field, message string
	}{
		"customer on platform route": {usdRequest("123456789001"), true, "customerId", "platform external accounts have no customerId"},
		"default on platform route":  {Request{DefaultUmaDepositAccount: ptr(true)}, true, "defaultUmaDepositAccount", "applies to customer external accounts"},
		"default without customer":   {Request{DefaultUmaDepositAccount: ptr(false)}, false, "defaultUmaDepositAccount", "(give customerId)"},
		"no currency":                {Request{AccountInfo: json.RawMessage(`{}`)}, false, "currency", "currency is required"},
		"no account info":            {Request{Currency: ptr("USD"), AccountInfo: json.RawMessage(`null`)}, false, "accountInfo", "accountInfo is required"},
		"blank platform account id":  {func() Request { r := usdRequest("123456789001"); r.PlatformAccountID = ptr(" "); return r }(), false, "platformAccountId", "platformAccountId must be 1 to 255 characters"},
		"bad account info":           {Request{Currency: ptr("USD"), AccountInfo: json.RawMessage(`{"accountType":"MOON_ACCOUNT"}`)}, false, "accountInfo.accountType", `accountInfo.accountType: unknown account type "MOON_ACCOUNT"`},
		"bad customer id":            {func() Request { r := usdRequest("123456789001"); r.CustomerID = ptr("Platform:x"); return r }(), false, "customerId", "customerId must be a Customer id (Customer:<uuid>)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := tc.req.Check(tc.platformOwned)
			var fe *problem.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Message, tc.message) {
				t.Fatalf("err = %v, want %s: %q", err, tc.field, tc.message)
			}
		})
	}
}

func TestRequestCheck(t *testing.T) {
	r := usdRequest("123456789001")
	r.DefaultUmaDepositAccount = ptr(true)
	n, err := r.Check(false)
	if err != nil {
		t.Fatal(err)
	}
	if !n.CustomerID.Valid || n.CustomerID.UUID.String() != strings.TrimPrefix(customerID, "Customer:") || !n.Default || n.Info.AccountType != "USD_ACCOUNT" {
		t.Fatalf("checked %+v", n)
	}
	// Without customerId the customer route registers a platform account.
	r.CustomerID, r.DefaultUmaDepositAccount = nil, nil
	if n, err := r.Check(false); err != nil || n.CustomerID.Valid || n.Default {
		t.Fatalf("platform account %+v %v", n, err)
	}
}

func TestVerify(t *testing.T) {
	for suffix, want := range map[string][2]string{
		"001": {"MATCHED", "Grace Brewster Hopper"}, "102": {"NOT_MATCHED", ""}, "103": {"PARTIAL_MATCH", "G. B. Hopper"},
		"104": {"PENDING", ""}, "106": {"UNSUPPORTED", ""}, "107": {"CHECKED_BY_RECEIVING_FI", ""},
	} {
		n, err := usdRequest("5550000" + suffix).Check(false)
		if err != nil {
			t.Fatal(err)
		}
		if n, err = n.Verify(true); err != nil {
			t.Fatal(err)
		}
		name := ""
		if n.VerifiedName != nil {
			name = *n.VerifiedName
		}
		if *n.VerificationStatus != want[0] || name != want[1] {
			t.Errorf("suffix %s: %s %q, want %v", suffix, *n.VerificationStatus, name, want)
		}
	}
	n, _ := usdRequest("5550000105").Check(false)
	if _, err := n.Verify(true); problem.CodeOf(err) != catalog.InvalidBankAcct {
		t.Fatalf("suffix 105: %v", err)
	}
	if v, err := n.Verify(false); err != nil || *v.VerificationStatus != "CHECKED_BY_RECEIVING_FI" || v.VerifiedName != nil {
		t.Fatalf("production: %+v %v", v, err)
	}
	w := New{Info: Info{IsWallet: true, Identifier: "x105"}}
	if v, err := w.Verify(true); err != nil || v.VerificationStatus != nil {
		t.Fatalf("wallet: %+v %v", v, err)
	}
}

// A partial match's initials are whole characters: "Élodie Durand" is "É. Durand", valid
// UTF-8 (Postgres refuses anything else), not half of the É's two bytes.
func TestPartialNameUTF8(t *testing.T) {
	for name, want := range map[string]string{
		"Élodie Durand": "É. Durand", "Łukasz Ørsted Åberg": "Ł. Ø. Åberg", "李 小龙": "李. 小龙",
		"Grace Brewster Hopper": "G. B. Hopper", "Cher": "Cher",
	} {
		if got := partialName(name); got != want || !utf8.ValidString(got) {
			t.Errorf("partialName(%q) = %q, want %q", name, got, want)
		}
	}
	r := usdRequest("5550000103")
	r.AccountInfo = json.RawMessage(strings.Replace(string(r.AccountInfo), "Grace Brewster Hopper", "Élodie Durand", 1))
	n, err := r.Check(false)
	if err != nil {
		t.Fatal(err)
	}
	if n, err = n.Verify(true); err != nil || n.VerifiedName == nil || *n.VerifiedName != "É. Durand" {
		t.Fatalf("verified %+v %v", n.VerifiedName, err)
	}
}

func TestCheckForCustomer(t *testing.T) {
	own := uuid.MustParse(strings.TrimPrefix(customerID, "Customer:"))
	for name, id := range map[string]*string{"omitted": nil, "own": ptr(customerID)} {
		r := usdRequest("123456789001")
		r.CustomerID = id
		n, err := r.CheckForCustomer(own)
		if err != nil || !n.CustomerID.Valid || n.CustomerID.UUID != own {
			t.Fatalf("%s: %+v %v", name, n.CustomerID, err)
		}
	}
	for _, other := range []string{"Customer:0190a000-0000-7000-8000-000000000002", "Platform:0190a000-0000-7000-8000-000000000001", "x"} {
		r := usdRequest("123456789001")
		r.CustomerID = ptr(other)
		var fe *problem.FieldError
		if _, err := r.CheckForCustomer(own); !errors.As(err, &fe) || fe.Field != "customerId" {
			t.Fatalf("%s: %v", other, err)
		}
	}
	// The platform's own decisions are not the agent's.
	for field, tweak := range map[string]func(*Request){
		"defaultUmaDepositAccount": func(r *Request) { r.DefaultUmaDepositAccount = ptr(true) },
		"platformAccountId":        func(r *Request) { r.PlatformAccountID = ptr("p-1") },
	} {
		r := usdRequest("123456789001")
		tweak(&r)
		var fe *problem.FieldError
		if _, err := r.CheckForCustomer(own); !errors.As(err, &fe) || fe.Field != field {
			t.Fatalf("%s: %v", field, err)
		}
	}
	// The customer route's rules still apply.
	if _, err := (Request{Currency: ptr("USD")}).CheckForCustomer(own); err == nil {
		t.Fatal("no accountInfo accepted")
	}
}
