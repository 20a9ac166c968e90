package fx

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/shopspring/decimal"

	"paycore/internal/money"
)

// Pricing is what the service charges on a conversion: Spread, the fraction of the
// mid-market rate it keeps; FixedFeeUSD, a fee per payment in US dollars, charged in the
// sending currency (rounded up to its minor unit); VariableRate, a fraction of the
// converted amount, rounded up.
type Pricing struct {
	Spread       decimal.Decimal
	FixedFeeUSD  decimal.Decimal
	VariableRate decimal.Decimal
}

// DefaultPricing is the deployment's pricing unless configured otherwise: 0.3 % spread, a
// fixed fee of 10 US cents, no variable fee.
func DefaultPricing() Pricing {
	return Pricing{Spread: decimal.RequireFromString("0.003"), FixedFeeUSD: decimal.RequireFromString("0.10"), VariableRate: decimal.Zero}
}

// Check refuses a pricing that would pay out more than it converts or charge negative fees.
func (p Pricing) Check() error {
	one := decimal.NewFromInt(1)
	switch {
	case p.Spread.IsNegative() || p.Spread.GreaterThanOrEqual(one):
		return fmt.Errorf("spread must be at least 0 and below 1, got %s", p.Spread)
	case p.FixedFeeUSD.IsNegative():
		return fmt.Errorf("fixed fee must not be negative, got %s", p.FixedFeeUSD)
	case p.VariableRate.IsNegative() || p.VariableRate.GreaterThanOrEqual(one):
		return fmt.Errorf("variable fee rate must be at least 0 and below 1, got %s", p.VariableRate)
	}
	return nil
}

// Rate is a priced rate from one currency to another: what quotes lock and exchange-rate
// lists show.
type Rate struct {
	From, To money.Currency
	// Mid is the mid-market rate: units (major) of To per unit of From.
	Mid decimal.Decimal
	// Multiplier is what one sending minor unit converts to, in receiving minor units,
	// after the spread (the service's multiplier in rateDetails).
	Multiplier decimal.Decimal
	// FixedFee is the fixed fee in sending minor units.
	FixedFee int64
	// VariableRate is the variable fee's fraction of the converted amount.
	VariableRate decimal.Decimal
	// UpdatedAt is when the mid-market rate last changed.
	UpdatedAt time.Time
}

// Price is the rate from → to at a moment under the pricing, from the provider's rates.
func Price(rates Provider, from, to money.Currency, p Pricing, at time.Time) (Rate, error) {
	mid, updated, err := rates.Mid(from.Code, to.Code, at)
	if err != nil {
		return Rate{}, err
	}
	usdToFrom, _, err := rates.Mid(Base, from.Code, at)
	if err != nil {
		return Rate{}, err
	}
	scale := decimal.New(1, int32(to.Decimals-from.Decimals))
	m := mid.Mul(decimal.NewFromInt(1).Sub(p.Spread)).Mul(scale).RoundDown(divPlaces)
	fixed := p.FixedFeeUSD.Mul(usdToFrom).Shift(int32(from.Decimals)).Ceil()
	if !fixed.LessThanOrEqual(decimal.NewFromInt(math.MaxInt64)) {
		return Rate{}, fmt.Errorf("%s → %s: %w", from.Code, to.Code, ErrTooLarge)
	}
	return Rate{From: from, To: to, Mid: mid, Multiplier: m, FixedFee: fixed.IntPart(), VariableRate: p.VariableRate, UpdatedAt: updated}, nil
}

// ExchangeRate is the rate as the API shows it: sending units (major) per receiving unit,
// the spread included.
func (r Rate) ExchangeRate() decimal.Decimal {
	return decimal.New(1, int32(r.To.Decimals-r.From.Decimals)).DivRound(r.Multiplier, divPlaces).Round(12)
}

// Errors of the conversions.
var (
	// ErrBelowFees: the sending amount does not cover the fees.
	ErrBelowFees = errors.New("the amount does not cover the fees")
	// ErrTooLarge: an amount would not fit in int64 minor units.
	ErrTooLarge = errors.New("the amount is too large")
)

// Fees is the fee on a converted (net) amount of sending minor units.
func (r Rate) Fees(net int64) int64 {
	return r.FixedFee + r.VariableRate.Mul(decimal.NewFromInt(net)).Ceil().IntPart()
}

// Conversion is an amount converted: Total = Net + Fees sending minor units, Net
// converted into Receiving minor units.
type Conversion struct {
	Total, Net, Fees, Receiving int64
}

// Sending converts a locked sending amount (fees included): the largest net amount the
// total pays with its fees, converted and rounded down. What the total leaves over beyond
// the net amount is the fee (it differs from Fees(Net) only by the rounding of a variable
// fee).
func (r Rate) Sending(total int64) (Conversion, error) {
	if total < r.Fees(0) {
		return Conversion{}, ErrBelowFees
	}
	one := decimal.NewFromInt(1)
	net := decimal.NewFromInt(total - r.FixedFee).Div(one.Add(r.VariableRate)).Floor().IntPart()
	for net > 0 && net+r.Fees(net) > total {
		net--
	}
	for net < total && net+1+r.Fees(net+1) <= total {
		net++
	}
	recv, err := r.receiving(net)
	if err != nil {
		return Conversion{}, err
	}
	return Conversion{Total: total, Net: net, Fees: total - net, Receiving: recv}, nil
}

// Receiving prices a locked receiving amount: the least net amount whose conversion,
// rounded down, reaches it, plus its fees.
func (r Rate) Receiving(receiving int64) (Conversion, error) {
	netD := decimal.NewFromInt(receiving).DivRound(r.Multiplier, divPlaces).Ceil()
	if !netD.LessThan(decimal.NewFromInt(math.MaxInt64 / 2)) {
		return Conversion{}, ErrTooLarge
	}
	net := netD.IntPart()
	for net > 0 {
		if got, _ := r.receiving(net - 1); got < receiving {
			break
		}
		net-- // the division's rounding overshot
	}
	for {
		got, err := r.receiving(net)
		if err != nil {
			return Conversion{}, err
		}
		if got >= receiving {
			break
		}
		net++
	}
	fees := r.Fees(net)
	if net > math.MaxInt64-fees {
		return Conversion{}, ErrTooLarge
	}
	return Conversion{Total: net + fees, Net: net, Fees: fees, Receiving: receiving}, nil
}

// receiving is floor(net × Multiplier).
func (r Rate) receiving(net int64) (int64, error) {
	d := decimal.NewFromInt(net).Mul(r.Multiplier).Floor()
	if !d.LessThanOrEqual(decimal.NewFromInt(math.MaxInt64)) {
		return 0, ErrTooLarge
	}
	return d.IntPart(), nil
}
