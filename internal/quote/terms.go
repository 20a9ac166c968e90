package quote

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"paycore/internal/banking"
	"paycore/internal/fx"
)

// Terms are what creating a quote decides: the locked conversion, its rate details as
// the API shows them, and when the quote expires.
type Terms struct {
	Priced
	Details   RateDetails
	ExpiresAt time.Time
	// Rail is the payment rail a payout to a bank account travels on (none for other
	// destinations), decided at DecidedAt, from which its settlement is expected.
	Rail      banking.RailChoice `json:",omitzero"`
	DecidedAt time.Time          `json:",omitzero"`
}

// Decide is the whole decision on a quote request at the moment now: Check, then Price
// with the rates, then the rate details; the quote expires r.Lifetime after now.
func Decide(r Request, a Accounts, rates fx.Provider, p fx.Pricing, now time.Time) (Terms, error) {
	if err := Check(r, a); err != nil {
		return Terms{}, err
	}
	return terms(r, a, rates, p, now, nil)
}

// DecideServed is Decide with the rail rule (CheckRail) between Check and Price, as the
// create step applies it: a quote whose payout no configured rail serves is refused
// RAIL_NOT_CONFIGURED, whatever its price or the source's balance.
func DecideServed(r Request, a Accounts, rates fx.Provider, p fx.Pricing, now time.Time, rails Rails) (Terms, error) {
	if err := Check(r, a); err != nil {
		return Terms{}, err
	}
	if err := CheckRail(r, a, rails); err != nil {
		return Terms{}, err
	}
	return terms(r, a, rates, p, now, feeReserve(r, a, rails))
}

// terms prices a checked request, reserving the payout's network fee (reserve, nil none),
// and gives its rate details and expiry.
func terms(r Request, a Accounts, rates fx.Provider, p fx.Pricing, now time.Time, reserve func(int64) int64) (Terms, error) {
	priced, err := Price(r, a, rates, p, now, reserve)
	if err != nil {
		return Terms{}, err
	}
	choice, err := r.ChooseRail(a)
	if err != nil {
		return Terms{}, err
	}
	if priced.Remote != nil {
		return Terms{Priced: priced, Details: priced.remoteDetails(), ExpiresAt: RemoteExpiry(now, r.Lifetime, *priced.Remote), Rail: choice, DecidedAt: now}, nil
	}
	details, err := priced.Details(rates, now)
	if err != nil {
		return Terms{}, err
	}
	return Terms{Priced: priced, Details: details, ExpiresAt: now.Add(r.Lifetime), Rail: choice, DecidedAt: now}, nil
}

// RateDetails are a payment's rate details (OutgoingRateDetails). The multipliers are
// relative to milli-satoshis, the unit conversions are quoted through: the service's
// multiplier converts one sending minor unit into mSATs (the spread included), the
// counterparty's converts one mSAT into receiving minor units, and their product is the
// quote's multiplier. The service's fees are in sending minor units; the counterparty's
// fixed fee, in receiving minor units, is the network fee the quote reserves for the payout
// (Priced.NetworkFee; 0 where its rail's network charges nothing on top).
type RateDetails struct {
	CounterpartyMultiplier      json.Number `json:"counterpartyMultiplier"`
	CounterpartyFixedFee        int64       `json:"counterpartyFixedFee"`
	ServiceAPIMultiplier        json.Number `json:"serviceApiMultiplier"`
	ServiceAPIFixedFee          int64       `json:"serviceApiFixedFee"`
	ServiceAPIVariableFeeRate   json.Number `json:"serviceApiVariableFeeRate"`
	ServiceAPIVariableFeeAmount int64       `json:"serviceApiVariableFeeAmount"`
}

// msatsPerBTC is how many milli-satoshis one bitcoin is.
var msatsPerBTC = decimal.New(1, 11)

// detailDigits is how many significant digits the multipliers show.
const detailDigits = 15

// Details are p's rate details, the counterparty's multiplier taken from the mid-market
// rate of bitcoin into the receiving currency at the moment at.
func (p Priced) Details(rates fx.Provider, at time.Time) (RateDetails, error) {
	btcTo, _, err := rates.Mid("BTC", p.Rate.To.Code, at)
	if err != nil {
		return RateDetails{}, fmt.Errorf("rate details: %w", err)
	}
	counterparty := btcTo.Mul(decimal.New(1, int32(p.Rate.To.Decimals))).DivRound(msatsPerBTC, 30)
	if !counterparty.IsPositive() {
		return RateDetails{}, fmt.Errorf("rate details: %w", fx.ErrRateTooSmall)
	}
	service := p.Rate.Multiplier.DivRound(counterparty, 30)
	return RateDetails{
		CounterpartyMultiplier:      number(counterparty),
		CounterpartyFixedFee:        p.NetworkFee,
		ServiceAPIMultiplier:        number(service),
		ServiceAPIFixedFee:          p.Rate.FixedFee,
		ServiceAPIVariableFeeRate:   json.Number(p.Rate.VariableRate.String()),
		ServiceAPIVariableFeeAmount: p.Fees - p.PlatformFees - p.Rate.FixedFee,
	}, nil
}

// number is a positive decimal as a JSON number of detailDigits significant digits.
func number(d decimal.Decimal) json.Number {
	lead := int32(d.NumDigits()) + d.Exponent()
	return json.Number(d.Round(detailDigits - lead).String())
}
