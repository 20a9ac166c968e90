package banking

import (
	"testing"

	"paycore/internal/country"
	"paycore/internal/money"
)

func TestInstitutions(t *testing.T) {
	all := Institutions("", "")
	if len(all) != len(institutions) {
		t.Fatalf("%d of %d without filters", len(all), len(institutions))
	}
	for _, in := range all {
		if !country.Valid(in.Country) || !money.IsFiat(in.Currency) || in.BankName == "" || in.DisplayName == "" {
			t.Errorf("bad institution %+v", in)
		}
	}
	if got := Institutions("MX", ""); len(got) != 3 || got[0].DisplayName != "BBVA México" {
		t.Fatalf("MX: %+v", got)
	}
	if got := Institutions("", "EUR"); len(got) != 3 {
		t.Fatalf("EUR: %+v", got)
	}
	if got := Institutions("MX", "USD"); len(got) != 0 {
		t.Fatalf("MX in USD: %+v", got)
	}
}
