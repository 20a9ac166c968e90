package fx

import (
	"errors"
	"slices"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/extaccount"
	"paycore/internal/money"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

// DefaultSendingAmount is the sending amount an exchange-rate list prices when none is
// asked for (minor units of each source currency).
const DefaultSendingAmount = 10_000

// ListRequest is what an exchange-rate list is asked for: one source currency ("" for
// every currency the platform sends), the destination currencies (none: every other
// currency the platform supports that pays out over a rail), and the sending amount to
// price, fees included.
type ListRequest struct {
	Source        string
	Destinations  []string
	SendingAmount int64
}

// Offer is one row of an exchange-rate list: the priced rate, what SendingAmount (fees
// included) delivers, the platform's limits on the sending amount, and the rail the
// payout travels on.
type Offer struct {
	Rate                           Rate
	SendingAmount, ReceivingAmount int64
	MinSending, MaxSending         int64
	Rail                           string
}

// Offers lists the priced rates from the platform's sending currencies (those of its
// supported currencies with OUTGOING enabled) to the destinations, in the order of its
// configuration, each with its payout rail (extaccount.PayoutRail). A sending amount below
// a pair's fees delivers 0.
func Offers(rates Provider, p Pricing, supported platformconfig.Currencies, req ListRequest, at time.Time) ([]Offer, error) {
	var sources []platformconfig.Currency
	for _, c := range supported {
		if slices.Contains(c.EnabledTransactionTypes, string(catalog.Outgoing)) && (req.Source == "" || req.Source == c.CurrencyCode) {
			sources = append(sources, c)
		}
	}
	if req.Source != "" && len(sources) == 0 {
		return nil, problem.Field("sourceCurrency", "the platform does not send %s: it is not one of its supported currencies with OUTGOING enabled", req.Source)
	}
	dests := req.Destinations
	if len(dests) == 0 {
		for _, code := range supported.Codes() {
			if _, ok := extaccount.PayoutRail(code); ok {
				dests = append(dests, code)
			}
		}
	}
	var out []Offer
	for _, src := range sources {
		from, ok := money.Lookup(src.CurrencyCode)
		if !ok {
			continue // a stored currency the catalogue no longer has
		}
		for _, code := range dests {
			to, ok := money.Lookup(code)
			r, hasRail := extaccount.PayoutRail(code)
			if !ok || !hasRail {
				return nil, problem.Field("destinationCurrency", "%s is not a currency paid out over a payment rail", code)
			}
			if code == from.Code {
				continue
			}
			o, err := offer(rates, p, from, to, req.SendingAmount, at)
			if err != nil {
				return nil, err
			}
			o.MinSending, o.MaxSending, o.Rail = src.MinAmount, src.MaxAmount, r
			out = append(out, o)
		}
	}
	return out, nil
}

func offer(rates Provider, p Pricing, from, to money.Currency, amount int64, at time.Time) (Offer, error) {
	rate, err := Price(rates, from, to, p, at)
	if err != nil {
		return Offer{}, err
	}
	o := Offer{Rate: rate, SendingAmount: amount}
	c, err := rate.Sending(amount)
	switch {
	case errors.Is(err, ErrBelowFees):
	case errors.Is(err, ErrTooLarge):
		return Offer{}, problem.Field("sendingAmount", "sendingAmount %d %s converts to more than the largest amount in %s", amount, from.Code, to.Code)
	case err != nil:
		return Offer{}, err
	default:
		o.ReceivingAmount = c.Receiving
	}
	return o, nil
}
