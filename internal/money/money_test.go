package money

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestLookupKnown(t *testing.T) {
	tests := []struct {
		code     string
		name     string
		decimals int
		kind     Kind
	}{
		{"USD", "US Dollar", 2, Fiat},
		{"EUR", "Euro", 2, Fiat},
		{"JPY", "Japanese Yen", 0, Fiat},
		{"KRW", "South Korean Won", 0, Fiat},
		{"KWD", "Kuwaiti Dinar", 3, Fiat},
		{"BHD", "Bahraini Dinar", 3, Fiat},
		{"XOF", "West African CFA Franc", 0, Fiat},
		{"VES", "Venezuelan Sovereign Bolívar", 2, Fiat},
		{"ZWG", "Zimbabwe Gold", 2, Fiat},
		{"BTC", "Bitcoin", 8, Crypto},
		{"USDC", "USD Coin", 6, Crypto},
		{"USDT", "Tether USD", 6, Crypto},
		{"USDB", "USDB", 6, Crypto},
		{"SOL", "Solana", 9, Crypto},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			c, ok := Lookup(tt.code)
			if !ok {
				t.Fatalf("Lookup(%q): not found", tt.code)
			}
			if c.Code != tt.code || c.Name != tt.name || c.Decimals != tt.decimals || c.Kind != tt.kind {
				t.Errorf("Lookup(%q) = %+v, want code %q name %q decimals %d kind %d",
					tt.code, c, tt.code, tt.name, tt.decimals, tt.kind)
			}
			if got, want := IsFiat(tt.code), tt.kind == Fiat; got != want {
				t.Errorf("IsFiat(%q) = %v, want %v", tt.code, got, want)
			}
			if got, want := IsCrypto(tt.code), tt.kind == Crypto; got != want {
				t.Errorf("IsCrypto(%q) = %v, want %v", tt.code, got, want)
			}
		})
	}
}

func TestLookupUnknown(t *testing.T) {
	tests := []string{
		"XYZ", "usd", "Usd", "", "USDUSD", " USD", "USD ",
		"ETH", "SLV", "XAU", "XTS", "XXX", "XDR", "ZWL", "HRK",
	}
	for _, code := range tests {
		t.Run(code, func(t *testing.T) {
			if c, ok := Lookup(code); ok {
				t.Errorf("Lookup(%q) = %+v, want not found", code, c)
			}
			if IsFiat(code) {
				t.Errorf("IsFiat(%q) = true, want false", code)
			}
			if IsCrypto(code) {
				t.Errorf("IsCrypto(%q) = true, want false", code)
			}
		})
	}
}

func TestNoDuplicateCodes(t *testing.T) {
	seen := make(map[string]bool, len(table))
	for _, c := range table {
		if seen[c.Code] {
			t.Errorf("duplicate code %q", c.Code)
		}
		seen[c.Code] = true
	}
	if len(byCode) != len(table) {
		t.Errorf("index has %d entries, table has %d", len(byCode), len(table))
	}
}

func isUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

func TestEntriesWellFormed(t *testing.T) {
	for _, c := range table {
		t.Run(c.Code, func(t *testing.T) {
			switch c.Kind {
			case Fiat:
				if len(c.Code) != 3 || !isUpperASCII(c.Code) {
					t.Errorf("fiat code %q: want 3 upper-case ASCII letters", c.Code)
				}
			case Crypto:
				if len(c.Code) < 3 || len(c.Code) > 5 || !isUpperASCII(c.Code) {
					t.Errorf("crypto code %q: want 3-5 upper-case ASCII letters", c.Code)
				}
			default:
				t.Errorf("%q: invalid kind %d", c.Code, c.Kind)
			}
			if strings.TrimSpace(c.Name) == "" {
				t.Errorf("%q: empty name", c.Code)
			}
			if strings.TrimSpace(c.Symbol) == "" {
				t.Errorf("%q: empty symbol", c.Code)
			}
			if c.Decimals < 0 || c.Decimals > 9 {
				t.Errorf("%q: decimals %d outside [0, 9]", c.Code, c.Decimals)
			}
		})
	}
}

func TestAll(t *testing.T) {
	all := All()
	if len(all) < 150 {
		t.Errorf("All() has %d entries, want at least 150", len(all))
	}
	if len(all) != len(table) {
		t.Errorf("All() has %d entries, table has %d", len(all), len(table))
	}
	if !slices.IsSortedFunc(all, func(a, b Currency) int { return strings.Compare(a.Code, b.Code) }) {
		t.Error("All() is not sorted by code")
	}
	for _, c := range all {
		if got, ok := Lookup(c.Code); !ok || got != c {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v, true", c.Code, got, ok, c)
		}
	}
}

func TestAllReturnsFreshSlice(t *testing.T) {
	first := All()
	want := slices.Clone(first)
	for i := range first {
		first[i] = Currency{Code: "ZZZ"}
	}
	_ = append(first[:0], Currency{Code: "AAA"})

	if got := All(); !slices.Equal(got, want) {
		t.Error("mutating the slice returned by All() changed a later result")
	}
	if c, ok := Lookup("USD"); !ok || c.Code != "USD" || c.Decimals != 2 {
		t.Errorf("Lookup(USD) after mutation = %+v, %v", c, ok)
	}
}

func TestJSON(t *testing.T) {
	c, _ := Lookup("USD")
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"code":"USD","name":"US Dollar","symbol":"$","decimals":2}`
	if string(b) != want {
		t.Errorf("json.Marshal(USD) = %s, want %s", b, want)
	}
}

func TestHomeCurrency(t *testing.T) {
	for country, want := range map[string]string{"US": "USD", "DE": "EUR", "MX": "MXN", "SN": "XOF", "GB": "GBP"} {
		if got, ok := HomeCurrency(country); !ok || got != want {
			t.Errorf("HomeCurrency(%s) = %s, %v", country, got, ok)
		}
	}
	for country, code := range homeCurrency {
		if !IsFiat(code) {
			t.Errorf("%s maps to %s, which is not a known fiat currency", country, code)
		}
	}
	if _, ok := HomeCurrency("XX"); ok {
		t.Error("unknown country has a home currency")
	}
}

func TestFormat(t *testing.T) {
	usd, _ := Lookup("USD")
	btc, _ := Lookup("BTC")
	jpy := Currency{Code: "JPY", Decimals: 0}
	for _, tc := range []struct {
		c    Currency
		v    int64
		want string
	}{{usd, 1250, "12.50 USD"}, {usd, 5, "0.05 USD"}, {usd, 0, "0.00 USD"}, {usd, -1250, "-12.50 USD"}, {jpy, 1250, "1250 JPY"},
		{btc, 1, "0." + strings.Repeat("0", btc.Decimals-1) + "1 BTC"}} {
		if got := tc.c.Format(tc.v); got != tc.want {
			t.Errorf("%d %s: %q, want %q", tc.v, tc.c.Code, got, tc.want)
		}
	}
}
