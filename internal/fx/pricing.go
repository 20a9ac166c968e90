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
	// Multiplier is what one sending minor unit converts to, in receiving minor units,
	// after the spread (the service's multiplier in rateDetails). Price never makes it 0.
	Multiplier decimal.Decimal
	// FixedFee is the fixed fee in sending minor units.
	FixedFee int64
	// VariableRate is the variable fee's fraction of the converted amount.
	VariableRate decimal.Decimal
	// UpdatedAt is when the mid-market rate last changed.
	UpdatedAt time.Time
	// Platform is the fee the payment's platform charges on top (zero: none).
	Platform PlatformFee
}

// PlatformFee is a fee a platform charges its customer on a conversion on top of the
// service's, in sending minor units: Fixed plus VariableRate of the converted (net)
// amount, rounded up on its own, like the service's fees.
type PlatformFee struct {
	Fixed        int64
	VariableRate decimal.Decimal
}

// IsZero reports whether the fee charges nothing.
func (f PlatformFee) IsZero() bool { return f.Fixed == 0 && f.VariableRate.IsZero() }

// amount is the fee on a net amount; ErrTooLarge when it does not fit int64.
func (f PlatformFee) amount(net int64) (int64, error) {
	d := f.VariableRate.Mul(decimal.NewFromInt(net)).Ceil().Add(decimal.NewFromInt(f.Fixed))
	if d.GreaterThan(maxInt64) {
		return 0, ErrTooLarge
	}
	return d.IntPart(), nil
}

// maxInt64 is the largest amount of minor units, as a decimal.
var maxInt64 = decimal.NewFromInt(math.MaxInt64)

// Price is the rate from → to at a moment under the pricing, from the provider's rates. A
// pair whose multiplier rounds to 0 (a receiving minor unit worth more than 10^24 sending
// ones, as only an extreme rate table makes) is refused with ErrRateTooSmall.
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
	if !m.IsPositive() {
		return Rate{}, fmt.Errorf("%s → %s: %w", from.Code, to.Code, ErrRateTooSmall)
	}
	fixed, err := minorUnitsUp(p.FixedFeeUSD, usdToFrom, from.Decimals)
	if err != nil {
		return Rate{}, fmt.Errorf("%s → %s: %w", from.Code, to.Code, err)
	}
	return Rate{From: from, To: to, Multiplier: m, FixedFee: fixed, VariableRate: p.VariableRate, UpdatedAt: updated}, nil
}

// minorUnitsUp is an amount of major units of one currency in the minor units (decimals)
// of another worth perUnit of it per unit, rounded up: a fixed fee in US dollars in the
// sending currency, a network fee in the withdrawn currency. ErrTooLarge when it does not
// fit int64.
func minorUnitsUp(major, perUnit decimal.Decimal, decimals int) (int64, error) {
	d := major.Mul(perUnit).Shift(int32(decimals)).Ceil()
	if d.GreaterThan(maxInt64) {
		return 0, ErrTooLarge
	}
	return d.IntPart(), nil
}

// exchangeRateDigits is how many significant digits ExchangeRate shows.
const exchangeRateDigits = 12

// ExchangeRate is the rate as the API shows it: sending units (major) per receiving unit,
// the spread included, rounded to exchangeRateDigits significant digits however small or
// large it is.
func (r Rate) ExchangeRate() decimal.Decimal {
	one := decimal.New(1, int32(r.To.Decimals-r.From.Decimals))
	// The quotient's leading digit is at most intDigits(one) - intDigits(Multiplier)
	// places before the point: truncating it two digits beyond the last one shown keeps
	// every digit shown and rounds as the exact quotient would.
	places := exchangeRateDigits + 2 - intDigits(one) + intDigits(r.Multiplier)
	q, _ := one.QuoRem(r.Multiplier, places)
	return q.Round(exchangeRateDigits - intDigits(q))
}

// ExchangeRateOf is the exchange rate, as ExchangeRate shows it, of net minor units of from
// that bought received minor units of to (another provider's conversion); zero when either
// is not positive.
func ExchangeRateOf(from money.Currency, net int64, to money.Currency, received int64) decimal.Decimal {
	if net <= 0 || received <= 0 {
		return decimal.Zero
	}
	m := decimal.NewFromInt(received).DivRound(decimal.NewFromInt(net), 40)
	return Rate{From: from, To: to, Multiplier: m}.ExchangeRate()
}

// intDigits is the position of a non-zero decimal's leading digit: how many digits it has
// before the point (1 for 1.5, 3 for 150), or minus how many zeros follow the point before
// it (0 for 0.5, -2 for 0.005).
func intDigits(d decimal.Decimal) int32 {
	return int32(d.NumDigits()) + d.Exponent()
}

// Errors of the conversions.
var (
	// ErrBelowFees: the sending amount does not cover the fees.
	ErrBelowFees = errors.New("the amount does not cover the fees")
	// ErrTooLarge: an amount would not fit in int64 minor units.
	ErrTooLarge = errors.New("the amount is too large")
	// ErrNegative: an amount to convert is negative.
	ErrNegative = errors.New("the amount is negative")
	// ErrRateTooSmall: a pair's multiplier rounds to 0 receiving minor units per sending
	// minor unit.
	ErrRateTooSmall = errors.New("the exchange rate is too small to price")
)

// Fees is the fee on a converted (net) amount of sending minor units: the service's fixed
// fee plus its variable fee rounded up, plus the platform's fee (PlatformFees);
// ErrTooLarge when it does not fit int64.
func (r Rate) Fees(net int64) (int64, error) {
	service, err := PlatformFee{Fixed: r.FixedFee, VariableRate: r.VariableRate}.amount(net)
	if err != nil {
		return 0, err
	}
	platform, err := r.PlatformFees(net)
	if err != nil || platform > math.MaxInt64-service {
		return 0, ErrTooLarge
	}
	return service + platform, nil
}

// PlatformFees is the platform's share of Fees(net).
func (r Rate) PlatformFees(net int64) (int64, error) { return r.Platform.amount(net) }

// Conversion is an amount converted: Total = Net + Fees sending minor units, Net
// converted into Receiving minor units; PlatformFees is the platform's share of Fees.
type Conversion struct {
	Total, Net, Fees, Receiving int64
	PlatformFees                int64
}

// Sending converts a locked sending amount (fees included): the largest net amount the
// total pays with its fees, converted and rounded down. What the total leaves over beyond
// the net amount is the fee (it differs from Fees(Net) only by the rounding of a variable
// fee, which is the service's: the platform's share is exactly PlatformFees(Net)).
func (r Rate) Sending(total int64) (Conversion, error) {
	if min0, err := r.Fees(0); err != nil || total < 0 || total < min0 {
		return Conversion{}, ErrBelowFees // Fees(0) are the fixed fees
	}
	// pays: the total pays net with its fees. Compared by subtraction (0 ≤ net ≤ total),
	// never by a sum that could pass MaxInt64.
	pays := func(net int64) bool {
		fees, err := r.Fees(net)
		return err == nil && fees <= total-net
	}
	one := decimal.NewFromInt(1)
	fixed, _ := r.Fees(0)
	net := decimal.NewFromInt(total - fixed).Div(one.Add(r.VariableRate).Add(r.Platform.VariableRate)).Floor().IntPart()
	for net > 0 && !pays(net) {
		net--
	}
	for net < total && pays(net+1) {
		net++
	}
	recv, err := r.receiving(net)
	if err != nil {
		return Conversion{}, err
	}
	platform, err := r.PlatformFees(net)
	if err != nil {
		return Conversion{}, err
	}
	return Conversion{Total: total, Net: net, Fees: total - net, Receiving: recv, PlatformFees: platform}, nil
}

// Receiving prices a locked receiving amount: the least net amount whose conversion,
// rounded down, reaches it, plus its fees. A negative amount is refused (ErrNegative).
func (r Rate) Receiving(receiving int64) (Conversion, error) {
	if receiving < 0 {
		return Conversion{}, ErrNegative
	}
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
	fees, err := r.Fees(net)
	if err != nil {
		return Conversion{}, err
	}
	if net > math.MaxInt64-fees {
		return Conversion{}, ErrTooLarge
	}
	platform, err := r.PlatformFees(net)
	if err != nil {
		return Conversion{}, err
	}
	return Conversion{Total: net + fees, Net: net, Fees: fees, Receiving: receiving, PlatformFees: platform}, nil
}

// receiving is floor(net × Multiplier).
func (r Rate) receiving(net int64) (int64, error) {
	d := decimal.NewFromInt(net).Mul(r.Multiplier).Floor()
	if !d.LessThanOrEqual(maxInt64) {
		return 0, ErrTooLarge
	}
	return d.IntPart(), nil
}
