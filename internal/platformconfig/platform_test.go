package platformconfig

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func TestProvision(t *testing.T) {
	p, err := Provision(PlatformParams{Name: "  Acme Pay ", Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Acme Pay" || p.Environment != catalog.Sandbox || !regexp.MustCompile(`^acme-pay-[0-9a-f]{6}\.uma\.example$`).MatchString(p.UmaDomain) {
		t.Fatalf("provisioning %+v", p)
	}
	if len(p.Currencies) != 1 || p.Currencies[0].CurrencyCode != "USD" || len(p.Currencies[0].EnabledTransactionTypes) != 2 ||
		p.Currencies[0].RequiredCounterpartyFields == nil {
		t.Fatalf("default currencies %+v", p.Currencies)
	}
	p, err = Provision(PlatformParams{Name: "Bank", IsRegulated: true, UmaDomain: "pay.bank.example"})
	if err != nil || p.Environment != catalog.Production || !p.IsRegulated || p.UmaDomain != "pay.bank.example" {
		t.Fatalf("production platform %+v %v", p, err)
	}
	for _, tc := range []struct {
		params  PlatformParams
		message string
	}{
		{PlatformParams{Name: "   "}, "platform name must be 1 to 255 characters"},
		{PlatformParams{Name: strings.Repeat("a", 256)}, "platform name must be 1 to 255 characters"},
		{PlatformParams{Name: "Acme", UmaDomain: "acme"}, "umaDomain must be a fully qualified domain name"},
		{PlatformParams{Name: "Ünïcode"}, "umaDomain must be a lower-case domain name"},
		{PlatformParams{Name: "Acme", UmaDomain: "sandbox.uma.paycore.dev"}, "UMA_DOMAIN_TAKEN: umaDomain sandbox.uma.paycore.dev is reserved"},
	} {
		if _, err := Provision(tc.params); err == nil || !strings.HasPrefix(err.Error(), tc.message) {
			t.Errorf("%+v: %v, want %q", tc.params, err, tc.message)
		}
	}
}

// Two platforms of one name get different placeholder domains.
func TestProvisionPlaceholderDomainsDiffer(t *testing.T) {
	a, err := Provision(PlatformParams{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Provision(PlatformParams{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	if a.UmaDomain == b.UmaDomain {
		t.Fatalf("both got %s", a.UmaDomain)
	}
}

// A domain is claimed only when no other platform holds it, by its umaDomain or by its
// customers' addresses.
func TestCheckDomainClaim(t *testing.T) {
	for h, want := range map[DomainHolders]catalog.Code{{}: "", {Platform: true}: catalog.UmaDomainTaken,
		{Customers: true}: catalog.UmaDomainTaken, {Platform: true, Customers: true}: catalog.UmaDomainTaken} {
		if got := problem.CodeOf(CheckDomainClaim("pay.example.com", h)); got != want {
			t.Errorf("%+v: %q, want %q", h, got, want)
		}
	}
	if err := CheckUmaDomain("SANDBOX.uma.paycore.dev"); err == nil {
		t.Error("an upper-case domain was accepted")
	}
	if got := problem.CodeOf(CheckUmaDomain("sandbox.uma.paycore.dev")); got != catalog.UmaDomainTaken {
		t.Errorf("the sandbox's domain: %q", got)
	}
}

func TestCheckDomain(t *testing.T) {
	for d, ok := range map[string]bool{"pay.example.com": true, "a.b": true, "": false, "localhost": false, "-a.example": false,
		"a..example": false, "UPPER.example": false, strings.Repeat("a", 250) + ".com": false} {
		if err := CheckDomain(d); (err == nil) != ok {
			t.Errorf("%q: %v", d, err)
		}
	}
}

func TestWithProviderFields(t *testing.T) {
	got := Currencies{{CurrencyCode: "BTC"}, {CurrencyCode: "INR"}, {CurrencyCode: "MXN"}, {CurrencyCode: "USD"}}.WithProviderFields()
	want := [][2][]string{
		{{"FULL_NAME", "COUNTRY_OF_RESIDENCE"}, {"FULL_NAME"}},
		{{"FULL_NAME", "BIRTH_DATE", "NATIONALITY", "POSTAL_ADDRESS"}, {"FULL_NAME", "PURPOSE_OF_PAYMENT"}},
		{{"FULL_NAME", "BIRTH_DATE", "NATIONALITY", "POSTAL_ADDRESS"}, {"FULL_NAME", "TAX_ID"}},
		{{"FULL_NAME", "BIRTH_DATE", "NATIONALITY", "POSTAL_ADDRESS"}, {"FULL_NAME"}},
	}
	for i, c := range got {
		if !reflect.DeepEqual(c.ProviderRequiredCustomerFields, want[i][0]) || !reflect.DeepEqual(c.ProviderRequiredCounterpartyCustomerFields, want[i][1]) {
			t.Errorf("%s: %v %v", c.CurrencyCode, c.ProviderRequiredCustomerFields, c.ProviderRequiredCounterpartyCustomerFields)
		}
	}
}

func TestDecode(t *testing.T) {
	s, err := Decode("pay.example.com", json.RawMessage(`[{"currencyCode":"USD","minAmount":1,"maxAmount":5}]`), nil)
	if err != nil || s.EmbeddedWallets() || s.UmaDomain != "pay.example.com" || len(s.Currencies) != 1 {
		t.Fatalf("settings %+v %v", s, err)
	}
	if s, err := Decode("d.example", json.RawMessage(`[]`), json.RawMessage(`{}`)); err != nil || !s.EmbeddedWallets() {
		t.Fatalf("an empty wallet config enables wallets: %+v %v", s, err)
	}
	if _, err := Decode("d.example", json.RawMessage(`{"not":"a list"}`), nil); err == nil {
		t.Fatal("undecodable currencies were accepted")
	}
	if _, err := Decode("d.example", json.RawMessage(`[]`), json.RawMessage(`{"otpLength":"six"}`)); err == nil {
		t.Fatal("an undecodable wallet config was accepted")
	}
}
