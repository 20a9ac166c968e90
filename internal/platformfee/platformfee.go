// Package platformfee holds the rules of the fees a platform charges its customers on top
// of the service's: the standing fee configurations of PATCH /config (feeConfigs, merged by
// key), the per-quote override (platformFeeOverride), and which of them a payment pays.
//
// A platform fee is charged in the sending currency on the sending side of a quote, as
// part of its fees (feesIncluded; platformFeesIncluded is its share), and credited to the
// platform's own internal account in that currency when the payment's money leaves (see
// package payment). Only a US dollar sending currency is accepted today, the fixed fee in
// that same currency; others are NOT_IMPLEMENTED.
package platformfee

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"paycore/internal/catalog"
	"paycore/internal/money"
	"paycore/internal/problem"
)

// CrossCurrency is the one fee type: a payment whose sending currency differs from its
// receiving currency.
const CrossCurrency = "CROSS_CURRENCY_TRANSACTION"

// Types are the fee types a configuration may name.
var Types = []string{CrossCurrency}

// Currencies are the sending currencies a platform fee may be charged in today.
var Currencies = []string{"USD"}

// MaxBps is the largest variable fee, in basis points: the whole converted amount.
const MaxBps = 10000

// FixedFee is a fixed fee: Amount minor units of Currency.
type FixedFee struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Config is a standing fee configuration (FeeConfig): what payments of FeeType sent in
// SourceCurrency pay the platform.
type Config struct {
	FeeType        string   `json:"feeType"`
	SourceCurrency string   `json:"sourceCurrency"`
	VariableFeeBps int64    `json:"variableFeeBps"`
	FixedFee       FixedFee `json:"fixedFee"`
}

// Configs are a platform's active configurations, at most one per (FeeType,
// SourceCurrency), in that order.
type Configs []Config

// Override is a quote's platformFeeOverride: it replaces whatever configuration would
// apply to the payment, for that payment alone.
type Override struct {
	PlatformFixedFee       FixedFee `json:"platformFixedFee"`
	PlatformVariableFeeBps int64    `json:"platformVariableFeeBps"`
}

// ConfigInput is one item of a PATCH /config's feeConfigs as sent: pointers tell a missing
// member from a zero one.
type ConfigInput struct {
	FeeType        *string        `json:"feeType"`
	SourceCurrency *string        `json:"sourceCurrency"`
	VariableFeeBps *int64         `json:"variableFeeBps"`
	FixedFee       *FixedFeeInput `json:"fixedFee"`
}

// FixedFeeInput is a fixed fee as sent.
type FixedFeeInput struct {
	Amount   *int64  `json:"amount"`
	Currency *string `json:"currency"`
}

// OverrideInput is a quote's platformFeeOverride as sent.
type OverrideInput struct {
	PlatformFixedFee       *FixedFeeInput `json:"platformFixedFee"`
	PlatformVariableFeeBps *int64         `json:"platformVariableFeeBps"`
}

// Decode reads the stored configurations (a JSON array; empty or null: none), never nil.
func Decode(raw []byte) (Configs, error) {
	cs := Configs{}
	if len(raw) == 0 || string(raw) == "null" {
		return cs, nil
	}
	if err := json.Unmarshal(raw, &cs); err != nil {
		return nil, fmt.Errorf("decode fee configs: %w", err)
	}
	if cs == nil {
		cs = Configs{}
	}
	return cs, nil
}

// CheckConfigs checks a PATCH /config's feeConfigs (field is its name): every member
// present, a known fee type, a known sending currency one of Currencies (another is
// NOT_IMPLEMENTED), the variable fee within 0..MaxBps, the fixed fee not negative and in
// the sending currency, and each key at most once.
func CheckConfigs(in []ConfigInput, field string) ([]Config, error) {
	out := make([]Config, 0, len(in))
	seen := map[[2]string]bool{}
	for i, c := range in {
		f := func(name string) string { return fmt.Sprintf("%s[%d].%s", field, i, name) }
		switch {
		case c.FeeType == nil:
			return nil, problem.Field(f("feeType"), "%s is required", f("feeType"))
		case !slices.Contains(Types, *c.FeeType):
			return nil, problem.Field(f("feeType"), "%s: unknown fee type %q (allowed: %s)", f("feeType"), *c.FeeType, CrossCurrency)
		case c.SourceCurrency == nil:
			return nil, problem.Field(f("sourceCurrency"), "%s is required", f("sourceCurrency"))
		case c.VariableFeeBps == nil:
			return nil, problem.Field(f("variableFeeBps"), "%s is required", f("variableFeeBps"))
		}
		fixed, err := checkFixed(c.FixedFee, f("fixedFee"))
		if err != nil {
			return nil, err
		}
		cfg := Config{FeeType: *c.FeeType, SourceCurrency: *c.SourceCurrency, VariableFeeBps: *c.VariableFeeBps, FixedFee: fixed}
		if err := checkFee(cfg.SourceCurrency, f("sourceCurrency"), cfg.VariableFeeBps, f("variableFeeBps"), cfg.FixedFee, f("fixedFee.currency")); err != nil {
			return nil, err
		}
		key := [2]string{cfg.FeeType, cfg.SourceCurrency}
		if seen[key] {
			return nil, problem.Field(f("sourceCurrency"), "%s: %s in %s is configured twice", field, cfg.FeeType, cfg.SourceCurrency)
		}
		seen[key] = true
		out = append(out, cfg)
	}
	return out, nil
}

// CheckOverride checks a quote's platformFeeOverride (field is its name) as CheckConfigs
// checks a configuration; its currency is the fixed fee's (the quote's sending currency,
// which Fee checks once it is known).
func CheckOverride(in *OverrideInput, field string) (*Override, error) {
	if in == nil {
		return nil, nil
	}
	if in.PlatformVariableFeeBps == nil {
		return nil, problem.Field(field+".platformVariableFeeBps", "%s.platformVariableFeeBps is required", field)
	}
	fixed, err := checkFixed(in.PlatformFixedFee, field+".platformFixedFee")
	if err != nil {
		return nil, err
	}
	if err := checkFee(fixed.Currency, field+".platformFixedFee.currency", *in.PlatformVariableFeeBps, field+".platformVariableFeeBps", fixed, field+".platformFixedFee.currency"); err != nil {
		return nil, err
	}
	return &Override{PlatformFixedFee: fixed, PlatformVariableFeeBps: *in.PlatformVariableFeeBps}, nil
}

// checkFixed checks a fixed fee's members are present and its amount not negative.
func checkFixed(in *FixedFeeInput, field string) (FixedFee, error) {
	switch {
	case in == nil:
		return FixedFee{}, problem.Field(field, "%s is required (an amount of 0 for none)", field)
	case in.Amount == nil:
		return FixedFee{}, problem.Field(field+".amount", "%s.amount is required", field)
	case *in.Amount < 0:
		return FixedFee{}, problem.Field(field+".amount", "%s.amount must not be negative", field)
	case in.Currency == nil:
		return FixedFee{}, problem.Field(field+".currency", "%s.currency is required", field)
	}
	return FixedFee{Amount: *in.Amount, Currency: *in.Currency}, nil
}

// checkFee checks a fee's sending currency (a known one, and one fees are charged in
// today), its variable part and that its fixed part is in the sending currency.
func checkFee(currency, currencyField string, bps int64, bpsField string, fixed FixedFee, fixedField string) error {
	if _, ok := money.Lookup(currency); !ok {
		return problem.FieldCode(catalog.InvalidCurrency, currencyField, "%s: unknown currency %q", currencyField, currency)
	}
	if !slices.Contains(Currencies, currency) {
		return problem.FieldCode(catalog.NotImplemented, currencyField, "platform fees are charged in %v only today, not in %s", Currencies, currency)
	}
	if bps < 0 || bps > MaxBps {
		return problem.Field(bpsField, "%s must be between 0 and %d basis points, got %d", bpsField, MaxBps, bps)
	}
	if fixed.Currency != currency {
		return problem.Field(fixedField, "the fixed fee must be in the sending currency %s, not %s", currency, fixed.Currency)
	}
	return nil
}

// Merge is the stored configurations after a PATCH's (checked) ones, merged by key: a
// configuration replaces the stored one of its key or is added, one whose variable and
// fixed fees are both 0 removes its key. The result is ordered by key.
func Merge(stored Configs, patch []Config) Configs {
	out := slices.Clone(stored)
	for _, p := range patch {
		i := slices.IndexFunc(out, func(c Config) bool { return c.FeeType == p.FeeType && c.SourceCurrency == p.SourceCurrency })
		switch {
		case p.VariableFeeBps == 0 && p.FixedFee.Amount == 0 && i >= 0:
			out = slices.Delete(out, i, i+1)
		case p.VariableFeeBps == 0 && p.FixedFee.Amount == 0:
		case i >= 0:
			out[i] = p
		default:
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b Config) int {
		return cmp.Or(strings.Compare(a.FeeType, b.FeeType), strings.Compare(a.SourceCurrency, b.SourceCurrency))
	})
	if out == nil {
		out = Configs{}
	}
	return out
}

// bpsRate is a number of basis points as a fraction.
func bpsRate(bps int64) decimal.Decimal { return decimal.New(bps, -4) }

// Charge is what a payment pays the platform: Fixed sending minor units plus VariableRate
// of its converted amount (fx.PlatformFee prices it).
type Charge struct {
	Fixed        int64
	VariableRate decimal.Decimal
}

// IsZero reports whether the charge is nothing.
func (c Charge) IsZero() bool { return c.Fixed == 0 && c.VariableRate.IsZero() }

// Fee is the platform fee a payment sent in from and received in to pays: the override
// when the quote has one (its fixed fee must be in the sending currency), else the
// configuration of the payment's fee type in its sending currency, else none (the zero
// fee). A cross-currency payment is one whose currencies differ; a payment in one currency
// pays only an override.
func Fee(o *Override, cs Configs, from, to string) (Charge, error) {
	if o != nil {
		if !slices.Contains(Currencies, from) {
			return Charge{}, problem.FieldCode(catalog.NotImplemented, "platformFeeOverride",
				"a platform fee is charged on quotes sent in %v only today, not in %s", Currencies, from)
		}
		if o.PlatformFixedFee.Currency != from {
			return Charge{}, problem.Field("platformFeeOverride.platformFixedFee.currency",
				"the platform's fixed fee must be in the quote's sending currency %s, not %s", from, o.PlatformFixedFee.Currency)
		}
		return Charge{Fixed: o.PlatformFixedFee.Amount, VariableRate: bpsRate(o.PlatformVariableFeeBps)}, nil
	}
	if from == to {
		return Charge{}, nil
	}
	for _, c := range cs {
		if c.FeeType == CrossCurrency && c.SourceCurrency == from {
			return Charge{Fixed: c.FixedFee.Amount, VariableRate: bpsRate(c.VariableFeeBps)}, nil
		}
	}
	return Charge{}, nil
}
