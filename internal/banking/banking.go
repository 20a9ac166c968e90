// Package banking checks and builds bank identifiers: IBANs (ISO 13616,
// mod-97 check digits), Mexican CLABE numbers (18 digits with a weighted
// control digit) and US ABA routing numbers (9 digits with a weighted check
// digit). It also extracts the sandbox "magic" suffix of an account
// identifier.
//
// The checks never alter their input: identifiers must already be in their
// canonical form (upper case, no spaces or separators). All functions are
// pure and safe for concurrent use.
package banking

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ibanLengths is the total IBAN length per country, from the SWIFT IBAN
// registry. Every entry is covered by a registry example IBAN in the tests.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
	"BH": 22, "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24,
	"DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
	"FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27,
	"GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27,
	"JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
	"LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20, "MR": 27,
	"MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28,
	"PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31,
	"SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

// IBANLength returns the IBAN length of a country (e.g. 22 for "DE") and
// whether the country is known to use IBANs.
func IBANLength(country string) (int, bool) {
	n, ok := ibanLengths[country]
	return n, ok
}

// IBANValid reports why iban is not a valid IBAN, or nil when it is. The
// IBAN must be in electronic form: upper-case letters and digits only, no
// spaces. It must start with a two-letter country code whose IBAN length is
// known (see IBANLength), followed by two check digits in 02..98, have that
// country's length, and satisfy the ISO 7064 mod-97 check (remainder 1).
func IBANValid(iban string) error {
	if iban == "" {
		return errors.New("IBAN is empty")
	}
	for i := 0; i < len(iban); i++ {
		c := iban[i]
		switch {
		case c == ' ':
			return errors.New("IBAN must not contain spaces")
		case c >= 'a' && c <= 'z':
			return errors.New("IBAN must be upper case")
		case !isUpper(c) && !isDigit(c):
			return errors.New("IBAN must contain only letters and digits")
		}
	}
	if len(iban) < 4 {
		return errors.New("IBAN is too short")
	}
	if !isUpper(iban[0]) || !isUpper(iban[1]) {
		return errors.New("IBAN must start with a two-letter country code")
	}
	if !isDigit(iban[2]) || !isDigit(iban[3]) {
		return errors.New("IBAN check digits (characters 3 and 4) must be digits")
	}
	cc := iban[:2]
	want, ok := ibanLengths[cc]
	if !ok {
		return fmt.Errorf("IBAN country code %s is unknown or does not use IBANs", cc)
	}
	if len(iban) != want {
		return fmt.Errorf("%s IBANs are %d characters long, this one has %d", cc, want, len(iban))
	}
	if cd := iban[2:4]; cd == "00" || cd == "01" || cd == "99" {
		return errors.New("IBAN check digits must be between 02 and 98")
	}
	if mod97(iban[4:], iban[:4]) != 1 {
		return errors.New("IBAN check digits do not match")
	}
	return nil
}

// MakeIBAN returns the IBAN made of country, the two check digits computed
// for it, and bban. Letters count case-insensitively in the computation, but
// the result is only valid (see IBANValid) for an upper-case country code and
// an upper-case alphanumeric bban of the right length.
func MakeIBAN(country, bban string) string {
	check := 98 - mod97(bban, country+"00")
	return country + fmt.Sprintf("%02d", check) + bban
}

// mod97 returns the ISO 7064 MOD 97-10 remainder of the number formed by
// a followed by b, letters counting as two digits (A=10 … Z=35).
// Characters that are neither letters nor digits are ignored.
func mod97(a, b string) int {
	r := 0
	for _, s := range [2]string{a, b} {
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case isDigit(c):
				r = (r*10 + int(c-'0')) % 97
			case isUpper(c):
				r = (r*100 + int(c-'A') + 10) % 97
			case c >= 'a' && c <= 'z':
				r = (r*100 + int(c-'a') + 10) % 97
			}
		}
	}
	return r
}

// CLABEValid reports why clabe is not a valid Mexican CLABE, or nil when it
// is: exactly 18 digits whose last digit is the control digit of the first
// 17 (see MakeCLABE).
func CLABEValid(clabe string) error {
	if !allDigits(clabe) {
		return errors.New("CLABE must contain only digits")
	}
	if len(clabe) != 18 {
		return fmt.Errorf("CLABE must be 18 digits, this one has %d", len(clabe))
	}
	if clabe[17]-'0' != clabeControl(clabe[:17]) {
		return errors.New("CLABE control digit is wrong")
	}
	return nil
}

// MakeCLABE returns first17 followed by its CLABE control digit: with weights
// 3, 7, 1 repeating over the 17 digits, the control digit is
// (10 - (Σ (digit×weight mod 10)) mod 10) mod 10. The result is only a valid
// CLABE when first17 is exactly 17 ASCII digits.
func MakeCLABE(first17 string) string {
	return first17 + strconv.Itoa(int(clabeControl(first17)))
}

func clabeControl(digits string) byte {
	weights := [3]int{3, 7, 1}
	sum := 0
	for i := 0; i < len(digits); i++ {
		d := int(digits[i]-'0') % 10
		sum += d * weights[i%3] % 10
	}
	return byte((10 - sum%10) % 10)
}

// ABAValid reports why routing is not a valid US ABA routing number, or nil
// when it is: exactly 9 digits d1…d9 with
// 3(d1+d4+d7) + 7(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10).
func ABAValid(routing string) error {
	if !allDigits(routing) {
		return errors.New("routing number must contain only digits")
	}
	if len(routing) != 9 {
		return fmt.Errorf("routing number must be 9 digits, this one has %d", len(routing))
	}
	if routing[8]-'0' != abaCheck(routing[:8]) {
		return errors.New("routing number check digit is wrong")
	}
	return nil
}

// MakeABA returns first8 followed by the ABA check digit that makes it a
// valid routing number. The result is only valid when first8 is exactly 8
// ASCII digits.
func MakeABA(first8 string) string {
	return first8 + strconv.Itoa(int(abaCheck(first8)))
}

func abaCheck(digits string) byte {
	weights := [3]int{3, 7, 1}
	sum := 0
	for i := 0; i < len(digits); i++ {
		d := int(digits[i]-'0') % 10
		sum += d * weights[i%3]
	}
	return byte((10 - sum%10) % 10)
}

// SandboxSuffix returns the last 3 characters of identifier that select a
// sandbox scenario (e.g. "002" for insufficient funds). For an identifier
// with a domain part (it contains '@', like the UPI VPA "name123@bank" or
// the lightning address "alice005@ln.example") it is the last 3 characters
// of the part before the last '@'; otherwise the last 3 characters of the
// whole identifier. It returns "" when that part has fewer than 3
// characters. Characters are Unicode code points.
func SandboxSuffix(identifier string) string {
	if at := strings.LastIndexByte(identifier, '@'); at >= 0 {
		identifier = identifier[:at]
	}
	r := []rune(identifier)
	if len(r) < 3 {
		return ""
	}
	return string(r[len(r)-3:])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
