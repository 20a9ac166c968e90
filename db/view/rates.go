package view

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"paycore/internal/banking"
	"paycore/internal/fx"
	"paycore/internal/ids"
	"paycore/internal/money"
	"paycore/internal/quote"
)

// ExchangeRate is one row of GET /exchange-rates: a priced rate from a sending currency to
// a destination, what sendingAmount (fees included) delivers, and the platform's limits.
type ExchangeRate struct {
	SourceCurrency         money.Currency   `json:"sourceCurrency"`
	SendingAmount          int64            `json:"sendingAmount"`
	MinSendingAmount       int64            `json:"minSendingAmount"`
	MaxSendingAmount       int64            `json:"maxSendingAmount"`
	DestinationCurrency    money.Currency   `json:"destinationCurrency"`
	DestinationPaymentRail string           `json:"destinationPaymentRail"`
	ReceivingAmount        int64            `json:"receivingAmount"`
	ExchangeRate           json.Number      `json:"exchangeRate"`
	Fees                   ExchangeRateFees `json:"fees"`
	UpdatedAt              time.Time        `json:"updatedAt"`
}

// ExchangeRateFees are the fees of a rate, in the sending currency's smallest unit.
type ExchangeRateFees struct {
	Fixed int64 `json:"fixed"`
}

// ExchangeRateOf renders an offer; the exchange rate (sending units per receiving unit) is
// a JSON number written digit for digit.
func ExchangeRateOf(o fx.Offer) ExchangeRate {
	return ExchangeRate{SourceCurrency: o.Rate.From, SendingAmount: o.SendingAmount, MinSendingAmount: o.MinSending,
		MaxSendingAmount: o.MaxSending, DestinationCurrency: o.Rate.To, DestinationPaymentRail: o.Rail,
		ReceivingAmount: o.ReceivingAmount, ExchangeRate: json.Number(o.Rate.ExchangeRate().String()),
		Fees: ExchangeRateFees{Fixed: o.Rate.FixedFee}, UpdatedAt: o.Rate.UpdatedAt}
}

// Discovery is a bank payouts reach (GET /discoveries).
type Discovery struct {
	BankName    string `json:"bankName"`
	DisplayName string `json:"displayName"`
	Country     string `json:"country"`
	Currency    string `json:"currency"`
}

// DiscoveryOf renders an institution.
func DiscoveryOf(in banking.Institution) Discovery {
	return Discovery{BankName: in.BankName, DisplayName: in.DisplayName, Country: in.Country, Currency: in.Currency}
}

// WithdrawalEstimate is the answer of POST /crypto/estimate-withdrawal-fee.
type WithdrawalEstimate struct {
	NetworkFee      int64  `json:"networkFee"`
	NetworkFeeAsset string `json:"networkFeeAsset"`
	ApplicationFee  int64  `json:"applicationFee"`
	TotalFee        int64  `json:"totalFee"`
	NetAmount       int64  `json:"netAmount"`
}

// WithdrawalEstimateOf renders an estimate.
func WithdrawalEstimateOf(e fx.WithdrawalEstimate) WithdrawalEstimate {
	return WithdrawalEstimate{NetworkFee: e.NetworkFee, NetworkFeeAsset: e.NetworkFeeAsset, ApplicationFee: e.ApplicationFee,
		TotalFee: e.TotalFee, NetAmount: e.NetAmount}
}

// ReceiverLookup is the answer of GET /receiver/uma/{address} and
// GET /receiver/external-account/{id}: what the receiver takes, what it requires of the
// payer, and the lookupId a quote may name.
type ReceiverLookup struct {
	SupportedCurrencies     []CurrencyPreference `json:"supportedCurrencies"`
	RequiredPayerDataFields []PayerField         `json:"requiredPayerDataFields"`
	LookupID                string               `json:"lookupId"`
	ReceiverUmaAddress      string               `json:"receiverUmaAddress,omitempty"`
	AccountID               string               `json:"accountId,omitempty"`
}

// CurrencyPreference is a currency a receiver takes, with an indicative rate (sending
// units per receiving unit, not locked) and the receiving amounts allowed.
type CurrencyPreference struct {
	Currency              money.Currency `json:"currency"`
	EstimatedExchangeRate json.Number    `json:"estimatedExchangeRate"`
	Min                   int64          `json:"min"`
	Max                   int64          `json:"max"`
}

// PayerField is a detail of the payer the receiver requires (senderCustomerInfo).
type PayerField struct {
	Name      string `json:"name"`
	Mandatory bool   `json:"mandatory"`
}

// ReceiverLookupOf renders a lookup.
func ReceiverLookupOf(id uuid.UUID, prefs []quote.Preference, fields []PayerField) ReceiverLookup {
	out := ReceiverLookup{LookupID: ids.Format(ids.Lookup, id), RequiredPayerDataFields: fields, SupportedCurrencies: []CurrencyPreference{}}
	for _, p := range prefs {
		out.SupportedCurrencies = append(out.SupportedCurrencies, CurrencyPreference{Currency: p.Currency,
			EstimatedExchangeRate: json.Number(p.ExchangeRate.String()), Min: p.Min, Max: p.Max})
	}
	return out
}
