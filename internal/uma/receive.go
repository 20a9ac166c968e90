package uma

import (
	"github.com/shopspring/decimal"

	"paycore/internal/catalog"
	"paycore/internal/money"
	"paycore/internal/platformconfig"
)

// msatsPerBTC is how many millisatoshis one bitcoin is.
var msatsPerBTC = decimal.New(1, 11)

// Multiplier is the estimated millisatoshis per smallest unit of c when one bitcoin is worth
// btcPrice (major units of c): what an LNURLP response's currency states (UMAD-04).
func Multiplier(c money.Currency, btcPrice decimal.Decimal) float64 {
	if !btcPrice.IsPositive() {
		return 0
	}
	f, _ := msatsPerBTC.Div(btcPrice.Shift(int32(c.Decimals))).Float64()
	return f
}

// ReceivingCurrencies are the currencies an LNURLP response offers for a receiver holding
// open accounts in held: those the platform supports for incoming payments, in the platform's
// order, each with its multiplier (price gives bitcoin's price in it; a currency without one
// is left out) and the platform's limits as its convertible range.
func ReceivingCurrencies(held []string, supported platformconfig.Currencies, price func(code string) (decimal.Decimal, bool)) []Currency {
	var out []Currency
	for _, s := range supported {
		if !containsCode(held, s.CurrencyCode) || !allowsIncoming(s) {
			continue
		}
		c, ok := money.Lookup(s.CurrencyCode)
		p, priced := price(s.CurrencyCode)
		if !ok || !priced {
			continue
		}
		m := Multiplier(c, p)
		if m <= 0 {
			continue
		}
		out = append(out, Currency{Code: c.Code, Name: c.Name, Symbol: c.Symbol, Multiplier: m, Decimals: c.Decimals,
			Convertible: Convertible{Min: s.MinAmount, Max: s.MaxAmount}})
	}
	return out
}

func containsCode(list []string, code string) bool {
	for _, c := range list {
		if c == code {
			return true
		}
	}
	return false
}

func allowsIncoming(c platformconfig.Currency) bool {
	for _, t := range c.EnabledTransactionTypes {
		if t == string(catalog.Incoming) {
			return true
		}
	}
	return false
}

// Sendable is the range of millisatoshis an LNURLP response accepts for currencies: from one
// satoshi to the most any currency converts (at least one satoshi).
func Sendable(currencies []Currency) (minMsats, maxMsats int64) {
	maxMsats = 1000
	for _, c := range currencies {
		if v := float64(c.Convertible.Max) * c.Multiplier; v > float64(maxMsats) {
			maxMsats = int64(min(v, 9e15))
		}
	}
	return 1000, maxMsats
}

// KycStatusOf is how an LNURLP response states a customer's KYC status.
func KycStatusOf(s catalog.KycStatus) string {
	switch s {
	case catalog.KycApproved:
		return KycVerified
	case catalog.KycPending:
		return KycPending
	case "":
		return KycUnknown
	}
	return KycNotVerified
}

// Metadata is the LNURL metadata of a receiver's pay request (LUD-06): a text and the
// identifier (LUD-16 "text/identifier").
func Metadata(address string) string {
	return `[["text/plain","Pay ` + address + ` on UMA"],["text/identifier","` + address + `"]]`
}
