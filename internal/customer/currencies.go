package customer

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"paycore/internal/money"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

// CheckCurrencies checks a customer's currency list against the platform's supported
// currencies and the customer's region: a customer holds its region's home currency, USD
// and crypto; other fiat currencies belong to customers of a region that uses them.
func CheckCurrencies(list []string, region string, supported platformconfig.Currencies) error {
	home, _ := money.HomeCurrency(region)
	seen := map[string]bool{}
	for i, c := range list {
		field := fmt.Sprintf("currencies[%d]", i)
		if _, ok := money.Lookup(c); !ok {
			return problem.Field(field, "%q is not a known currency code", c)
		}
		if seen[c] {
			return problem.Field(field, "currency %s is listed twice", c)
		}
		seen[c] = true
		if _, ok := supported.Find(c); !ok {
			return problem.Field(field, "the platform does not support %s (supported: %s); add it with PATCH /config first",
				c, strings.Join(supported.Codes(), ", "))
		}
		if money.IsFiat(c) && c != home && c != "USD" {
			return problem.Field(field, "a customer in region %s can hold %s and crypto currencies; %s accounts need a separate customer in a region that uses %s",
				region, fiatAllowed(home), c, c)
		}
	}
	return nil
}

// fiatAllowed words the fiat currencies a customer whose region uses home may hold: home
// and USD.
func fiatAllowed(home string) string {
	if home == "" || home == "USD" {
		return "USD"
	}
	return home + ", USD"
}

// InferCurrencies are the currencies of a customer created without a list: the region's
// home currency, or USD when the platform does not support the home one, followed by the
// platform's crypto currencies.
func InferCurrencies(region string, supported platformconfig.Currencies) []string {
	home, _ := money.HomeCurrency(region)
	var out []string
	hasHome, hasUSD := false, false
	for _, c := range supported {
		switch {
		case c.CurrencyCode == home:
			hasHome = true
		case c.CurrencyCode == "USD":
			hasUSD = true
		case money.IsCrypto(c.CurrencyCode):
			out = append(out, c.CurrencyCode)
		}
	}
	switch {
	case hasHome:
		out = append([]string{home}, out...)
	case hasUSD:
		out = append([]string{"USD"}, out...)
	}
	return out
}

var (
	umaAddressRe = regexp.MustCompile(`^\$([a-z0-9._-]{1,64})@([a-z0-9.-]+)$`)
	handleStrip  = regexp.MustCompile(`[^a-z0-9._-]+`)
)

// SplitUmaAddress splits a UMA address, $name@domain (lower-case letters, digits, '.',
// '_' or '-' in a name of at most 64 characters), into its name and domain; ok is false
// when addr is not one.
func SplitUmaAddress(addr string) (name, domain string, ok bool) {
	m := umaAddressRe.FindStringSubmatch(addr)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// checkUmaAddress accepts $name@domain on the platform's UMA domain.
func checkUmaAddress(addr, domain string) error {
	_, d, ok := SplitUmaAddress(addr)
	if !ok {
		return problem.Field("umaAddress", "umaAddress must look like $name@%s (lower-case letters, digits, '.', '_' or '-')", domain)
	}
	if d != domain {
		return problem.Field("umaAddress", "umaAddress must be on the platform's UMA domain %s", domain)
	}
	return nil
}

// generateUmaAddress derives $<handle>@<domain> from the platform customer id, with a
// random tail so it is unique.
func generateUmaAddress(platformCustomerID, domain string) string {
	h := handleStrip.ReplaceAllString(strings.ToLower(platformCustomerID), "")
	if len(h) > 40 {
		h = h[:40]
	}
	if h == "" {
		h = "user"
	}
	tail := make([]byte, 3)
	_, _ = rand.Read(tail)
	return "$" + h + "." + hex.EncodeToString(tail) + "@" + domain
}
