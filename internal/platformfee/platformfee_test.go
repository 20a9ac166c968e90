package platformfee

import (
	"errors"
	"testing"

	"github.com/shopspring/decimal"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func ptr[T any](v T) *T { return &v }

func input(feeType, currency string, bps, fixed int64, fixedCurrency string) ConfigInput {
	return ConfigInput{FeeType: &feeType, SourceCurrency: &currency, VariableFeeBps: &bps, FixedFee: &FixedFeeInput{Amount: &fixed, Currency: &fixedCurrency}}
}

// fieldOf is the field and code a refusal names.
func fieldOf(err error) (string, catalog.Code) {
	var fe *problem.FieldError
	if !errors.As(err, &fe) {
		return "", ""
	}
	return fe.Field, fe.Code
}

// or is the code a refusal without its own has.
func or(c catalog.Code) catalog.Code {
	if c == "" {
		return catalog.InvalidInput
	}
	return c
}

func TestCheckConfigs(t *testing.T) {
	got, err := CheckConfigs([]ConfigInput{input(CrossCurrency, "USD", 30, 50, "USD")}, "feeConfigs")
	if err != nil || len(got) != 1 || got[0] != (Config{FeeType: CrossCurrency, SourceCurrency: "USD", VariableFeeBps: 30, FixedFee: FixedFee{Amount: 50, Currency: "USD"}}) {
		t.Fatalf("%+v %v", got, err)
	}
	for name, c := range map[string]struct {
		in    []ConfigInput
		field string
		code  catalog.Code
	}{
		"unknown type":        {[]ConfigInput{input("RAIL", "USD", 1, 0, "USD")}, "feeConfigs[0].feeType", ""},
		"EUR not yet":         {[]ConfigInput{input(CrossCurrency, "EUR", 1, 0, "EUR")}, "feeConfigs[0].sourceCurrency", catalog.NotImplemented},
		"unknown currency":    {[]ConfigInput{input(CrossCurrency, "XXX", 1, 0, "XXX")}, "feeConfigs[0].sourceCurrency", catalog.InvalidCurrency},
		"bps above 10000":     {[]ConfigInput{input(CrossCurrency, "USD", 10001, 0, "USD")}, "feeConfigs[0].variableFeeBps", ""},
		"negative bps":        {[]ConfigInput{input(CrossCurrency, "USD", -1, 0, "USD")}, "feeConfigs[0].variableFeeBps", ""},
		"negative fixed":      {[]ConfigInput{input(CrossCurrency, "USD", 1, -1, "USD")}, "feeConfigs[0].fixedFee.amount", ""},
		"fixed in EUR":        {[]ConfigInput{input(CrossCurrency, "USD", 1, 1, "EUR")}, "feeConfigs[0].fixedFee.currency", ""},
		"twice":               {[]ConfigInput{input(CrossCurrency, "USD", 1, 1, "USD"), input(CrossCurrency, "USD", 2, 1, "USD")}, "feeConfigs[1].sourceCurrency", ""},
		"no type":             {[]ConfigInput{{SourceCurrency: ptr("USD"), VariableFeeBps: ptr(int64(1)), FixedFee: &FixedFeeInput{Amount: ptr(int64(0)), Currency: ptr("USD")}}}, "feeConfigs[0].feeType", ""},
		"no fixed fee":        {[]ConfigInput{{FeeType: ptr(CrossCurrency), SourceCurrency: ptr("USD"), VariableFeeBps: ptr(int64(1))}}, "feeConfigs[0].fixedFee", ""},
		"no variable fee":     {[]ConfigInput{{FeeType: ptr(CrossCurrency), SourceCurrency: ptr("USD"), FixedFee: &FixedFeeInput{Amount: ptr(int64(0)), Currency: ptr("USD")}}}, "feeConfigs[0].variableFeeBps", ""},
		"no source currency":  {[]ConfigInput{{FeeType: ptr(CrossCurrency), VariableFeeBps: ptr(int64(1))}}, "feeConfigs[0].sourceCurrency", ""},
		"no fixed fee amount": {[]ConfigInput{{FeeType: ptr(CrossCurrency), SourceCurrency: ptr("USD"), VariableFeeBps: ptr(int64(1)), FixedFee: &FixedFeeInput{Currency: ptr("USD")}}}, "feeConfigs[0].fixedFee.amount", ""},
	} {
		_, err := CheckConfigs(c.in, "feeConfigs")
		if f, code := fieldOf(err); f != c.field || code != or(c.code) {
			t.Errorf("%s: %v (field %q, code %q)", name, err, f, code)
		}
	}
}

func TestCheckOverride(t *testing.T) {
	if o, err := CheckOverride(nil, "platformFeeOverride"); o != nil || err != nil {
		t.Fatal(o, err)
	}
	o, err := CheckOverride(&OverrideInput{PlatformFixedFee: &FixedFeeInput{Amount: ptr(int64(50)), Currency: ptr("USD")}, PlatformVariableFeeBps: ptr(int64(30))}, "platformFeeOverride")
	if err != nil || *o != (Override{PlatformFixedFee: FixedFee{Amount: 50, Currency: "USD"}, PlatformVariableFeeBps: 30}) {
		t.Fatal(o, err)
	}
	for name, c := range map[string]struct {
		in    OverrideInput
		field string
		code  catalog.Code
	}{
		"no bps":   {OverrideInput{PlatformFixedFee: &FixedFeeInput{Amount: ptr(int64(1)), Currency: ptr("USD")}}, "platformFeeOverride.platformVariableFeeBps", ""},
		"no fixed": {OverrideInput{PlatformVariableFeeBps: ptr(int64(1))}, "platformFeeOverride.platformFixedFee", ""},
		"in EUR":   {OverrideInput{PlatformFixedFee: &FixedFeeInput{Amount: ptr(int64(1)), Currency: ptr("EUR")}, PlatformVariableFeeBps: ptr(int64(1))}, "platformFeeOverride.platformFixedFee.currency", catalog.NotImplemented},
		"too high": {OverrideInput{PlatformFixedFee: &FixedFeeInput{Amount: ptr(int64(1)), Currency: ptr("USD")}, PlatformVariableFeeBps: ptr(int64(20000))}, "platformFeeOverride.platformVariableFeeBps", ""},
	} {
		_, err := CheckOverride(&c.in, "platformFeeOverride")
		if f, code := fieldOf(err); f != c.field || code != or(c.code) {
			t.Errorf("%s: %v (field %q, code %q)", name, err, f, code)
		}
	}
}

// Merge upserts by key, removes a key set to zero, leaves other keys alone and orders the
// result.
func TestMerge(t *testing.T) {
	usd := Config{FeeType: CrossCurrency, SourceCurrency: "USD", VariableFeeBps: 30, FixedFee: FixedFee{Amount: 50, Currency: "USD"}}
	other := Config{FeeType: "ZZZ_LATER", SourceCurrency: "USD", VariableFeeBps: 1, FixedFee: FixedFee{Currency: "USD"}}
	got := Merge(nil, []Config{usd})
	if len(got) != 1 || got[0] != usd {
		t.Fatal(got)
	}
	changed := usd
	changed.VariableFeeBps = 10
	if got = Merge(Configs{other, usd}, []Config{changed}); len(got) != 2 || got[0] != changed || got[1] != other {
		t.Fatal(got)
	}
	off := usd
	off.VariableFeeBps, off.FixedFee.Amount = 0, 0
	if got = Merge(Configs{usd, other}, []Config{off}); len(got) != 1 || got[0] != other {
		t.Fatal(got)
	}
	if got = Merge(Configs{}, []Config{off}); got == nil || len(got) != 0 {
		t.Fatalf("turning off a fee never set: %#v", got)
	}
}

func TestFee(t *testing.T) {
	cs := Configs{{FeeType: CrossCurrency, SourceCurrency: "USD", VariableFeeBps: 30, FixedFee: FixedFee{Amount: 50, Currency: "USD"}}}
	if f, err := Fee(nil, cs, "USD", "EUR"); err != nil || f.Fixed != 50 || !f.VariableRate.Equal(decimal.RequireFromString("0.003")) {
		t.Fatal(f, err)
	}
	if f, err := Fee(nil, cs, "EUR", "USD"); err != nil || !f.IsZero() {
		t.Fatal(f, err)
	}
	if f, _ := Fee(nil, cs, "USD", "USD"); f != (Charge{}) {
		t.Fatal(f)
	}
	o := &Override{PlatformFixedFee: FixedFee{Amount: 1, Currency: "USD"}}
	if f, err := Fee(o, cs, "USD", "EUR"); err != nil || f.Fixed != 1 || !f.VariableRate.IsZero() {
		t.Fatal(f, err)
	}
}
