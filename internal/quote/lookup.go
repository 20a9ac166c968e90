package quote

import (
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"paycore/internal/catalog"
	"paycore/internal/fx"
	"paycore/internal/money"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

// Preference is a currency a receiver takes, as a lookup shows it: the indicative rate
// from the sender's currency (sending units per receiving unit, not locked) and the
// receiving amounts the sender's limits allow.
type Preference struct {
	Currency     money.Currency
	ExchangeRate decimal.Decimal
	Min, Max     int64
}

// FieldLookupUma is the UMA address a receiver lookup names (GET /receiver/uma/{receiverUmaAddress}).
const FieldLookupUma = "receiverUmaAddress"

// SendingCurrency is the currency a lookup prices from: the first of the sender's
// currencies (none: the platform's) that the platform sends (OUTGOING enabled) and that
// differs from receiving. A sender with none is refused (INVALID_CURRENCY).
func SendingCurrency(supported platformconfig.Currencies, senderCurrencies []string, receiving string) (string, error) {
	for _, c := range supported {
		if c.CurrencyCode == receiving || !slices.Contains(c.EnabledTransactionTypes, string(catalog.Outgoing)) {
			continue
		}
		if len(senderCurrencies) == 0 || slices.Contains(senderCurrencies, c.CurrencyCode) {
			return c.CurrencyCode, nil
		}
	}
	return "", problem.Refuse(catalog.InvalidCurrency, "the sender has no currency to pay %s from (the platform's supported currencies with OUTGOING enabled)", receiving)
}

// LookupAmbiguous is the refusal of a lookup of a UMA address that more than one customer
// on this deployment holds: INVALID_UMA_ADDRESS on receiverUmaAddress.
func LookupAmbiguous(address string) error {
	return problem.Refuse(catalog.InvalidUmaAddress, "%s names more than one receiver on this deployment", address).
		With(map[string]any{"field": FieldLookupUma})
}

// LookupNoCurrency is the refusal of a lookup of a receiver on this deployment that holds
// no currency: INVALID_CURRENCY on receiverUmaAddress.
func LookupNoCurrency() error {
	return problem.Refuse(catalog.InvalidCurrency, "the receiver takes no currency").With(map[string]any{"field": FieldLookupUma})
}

// Preferences prices each receiving currency from sending under the platform's pricing
// and limits. A currency that cannot be priced is left out.
func Preferences(rates fx.Provider, p fx.Pricing, supported platformconfig.Currencies, sending string, receiving []string, at time.Time) ([]Preference, error) {
	from, ok := money.Lookup(sending)
	limits, supportedHere := supported.Find(sending)
	if !ok || !supportedHere {
		return nil, problem.FieldCode(catalog.InvalidCurrency, "customerId", "the platform sends no currency %s could be priced from", sending)
	}
	out := []Preference{}
	for _, code := range receiving {
		to, ok := money.Lookup(code)
		if !ok || code == sending {
			continue
		}
		rate, err := fx.Price(rates, from, to, p, at)
		if err != nil {
			continue
		}
		pref := Preference{Currency: to, ExchangeRate: rate.ExchangeRate(), Min: 1, Max: 1}
		if c, err := rate.Sending(max(limits.MinAmount, rate.FixedFee+1)); err == nil && c.Receiving > 0 {
			pref.Min = c.Receiving
		}
		if c, err := rate.Sending(limits.MaxAmount); err == nil && c.Receiving > pref.Min {
			pref.Max = c.Receiving
		} else {
			pref.Max = pref.Min
		}
		out = append(out, pref)
	}
	return out, nil
}
