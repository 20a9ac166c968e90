package account

import (
	"reflect"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func TestTypeFor(t *testing.T) {
	for _, tc := range []struct {
		currency string
		wallets  bool
		want     catalog.AccountType
	}{
		{"USD", false, catalog.InternalFiat},
		{"USD", true, catalog.InternalFiat},
		{"BTC", false, catalog.InternalCrypto},
		{"BTC", true, catalog.EmbeddedWallet},
	} {
		if got := TypeFor(tc.currency, tc.wallets); got != tc.want {
			t.Errorf("%s wallets=%v: %s, want %s", tc.currency, tc.wallets, got, tc.want)
		}
	}
	got := ForCustomer([]string{"EUR", "USDC"}, true)
	want := []Opening{{"EUR", catalog.InternalFiat}, {"USDC", catalog.EmbeddedWallet}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ForCustomer %+v", got)
	}
	if got := ForCustomer([]string{}, false); got == nil || len(got) != 0 {
		t.Fatalf("no currencies: %#v, want an empty list", got)
	}
}

func TestForPlatform(t *testing.T) {
	if got := ForPlatform("BTC"); got.Type != catalog.InternalCrypto {
		t.Fatalf("platform BTC account %s", got.Type)
	}
	if got := ForPlatform("MXN"); got != (Opening{"MXN", catalog.InternalFiat}) {
		t.Fatalf("platform MXN account %+v", got)
	}
}

func TestCheckPrivatePatch(t *testing.T) {
	yes := true
	if err := CheckPrivatePatch(catalog.EmbeddedWallet, nil); problem.CodeOf(err) != catalog.InvalidInput {
		t.Fatalf("empty patch: %v", err)
	}
	fe := &problem.FieldError{}
	if err := CheckPrivatePatch(catalog.InternalFiat, &yes); err == nil || !asField(err, &fe) || fe.Field != "privateEnabled" {
		t.Fatalf("fiat account: %v", err)
	}
	if err := CheckPrivatePatch(catalog.EmbeddedWallet, &yes); err != nil {
		t.Fatal(err)
	}
}

func asField(err error, fe **problem.FieldError) bool {
	f, ok := err.(*problem.FieldError)
	*fe = f
	return ok
}
