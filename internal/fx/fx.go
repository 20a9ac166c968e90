// Package fx holds the exchange-rate rules: a table of rates against the US dollar from
// which every cross rate is derived, the service's pricing (a spread on the mid-market
// rate and fees), and the conversion of amounts in minor units with its rounding rule.
//
// Rates are decimals, never floats; amounts are int64 minor units. The rounding rule is
// the same whichever side is locked, and it never costs the service a minor unit: for a
// net amount N converted (sending minor units, after fees) the receiver gets
// floor(N × multiplier); locking the receiving amount R asks for the least N with
// floor(N × multiplier) ≥ R. Fees are rounded up.
package fx

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/shopspring/decimal"

	"paycore/internal/money"
)

// Base is the currency every rate of a Table is quoted against.
const Base = "USD"

// divPlaces is the precision of every division (decimal places).
const divPlaces = 24

// The sandbox moves rates: each currency's rate against the base steps by driftStep every
// minute along a triangle wave of driftSteps steps up and as many down, so a rate stays
// within ±driftSteps/2 × driftStep (±0.2 %) of the table and a quote locked a few minutes
// ago visibly differs from a new one.
var driftStep = decimal.RequireFromString("0.0002")

const driftSteps = 20

// Provider gives mid-market rates: units (major) of to per unit of from at a moment, and
// when that rate last changed. The built-in Table serves a configured table; a source of
// live market rates would implement the same.
type Provider interface {
	Mid(from, to string, at time.Time) (decimal.Decimal, time.Time, error)
}

// Table is the rate table: units of each currency one US dollar buys.
type Table struct {
	unitsPerUSD map[string]decimal.Decimal
	loadedAt    time.Time
	drift       bool
}

// NewTable builds the table from the built-in defaults with overrides (currency code →
// units per US dollar, as decimal text) applied; loadedAt is when it was loaded. With
// drift set (sandbox) rates move a little every minute.
func NewTable(overrides map[string]string, loadedAt time.Time, drift bool) (*Table, error) {
	t := &Table{unitsPerUSD: make(map[string]decimal.Decimal, len(defaultUnitsPerUSD)), loadedAt: loadedAt.UTC(), drift: drift}
	for _, src := range []map[string]string{defaultUnitsPerUSD, overrides} {
		for code, text := range src {
			if _, ok := money.Lookup(code); !ok {
				return nil, fmt.Errorf("rate table: unknown currency %q", code)
			}
			d, err := decimal.NewFromString(text)
			if err != nil || !d.IsPositive() {
				return nil, fmt.Errorf("rate table: %s must be a positive decimal, got %q", code, text)
			}
			t.unitsPerUSD[code] = d
		}
	}
	if !t.unitsPerUSD[Base].Equal(decimal.NewFromInt(1)) {
		return nil, fmt.Errorf("rate table: %s is the base and must be 1", Base)
	}
	return t, nil
}

// BuiltIn is the built-in table alone (TestDefaultsCoverTheCatalogue checks that it
// builds).
func BuiltIn(loadedAt time.Time) *Table {
	t, err := NewTable(nil, loadedAt, false)
	if err != nil {
		panic("fx: the built-in rate table is invalid: " + err.Error())
	}
	return t
}

// ParseOverrides reads an operator's rate file: a JSON object of currency code → units per
// US dollar, as a string ("0.92") or a number (0.92, read digit for digit, never as a
// float).
func ParseOverrides(data []byte) (map[string]string, error) {
	var raw map[string]json.Number
	if err := json.Unmarshal(data, &raw); err != nil {
		var text map[string]string
		if json.Unmarshal(data, &text) != nil {
			return nil, fmt.Errorf("rate file: a JSON object of currency code to units per US dollar is expected: %w", err)
		}
		return text, nil
	}
	out := make(map[string]string, len(raw))
	for code, n := range raw {
		out[code] = n.String()
	}
	return out, nil
}

// Sandbox returns the table as sandbox platforms see it: rates move a little every
// minute.
func (t *Table) Sandbox() *Table {
	c := *t
	c.drift = true
	return &c
}

// ErrNoRate is returned for a currency the table has no rate for.
var ErrNoRate = errors.New("no exchange rate for this currency")

// Mid returns the mid-market rate from → to at a moment: units (major) of to per unit of
// from, and when that rate last changed.
func (t *Table) Mid(from, to string, at time.Time) (decimal.Decimal, time.Time, error) {
	uf, okf := t.units(from, at)
	ut, okt := t.units(to, at)
	if !okf || !okt {
		return decimal.Decimal{}, time.Time{}, fmt.Errorf("%s → %s: %w", from, to, ErrNoRate)
	}
	updated := t.loadedAt
	if t.drift && (!stable[from] || !stable[to]) {
		updated = at.UTC().Truncate(time.Minute)
	}
	return ut.DivRound(uf, divPlaces), updated, nil
}

// units is a currency's units per US dollar at a moment.
func (t *Table) units(code string, at time.Time) (decimal.Decimal, bool) {
	u, ok := t.unitsPerUSD[code]
	if !ok || !t.drift || stable[code] {
		return u, ok
	}
	return u.Mul(decimal.NewFromInt(1).Add(driftOffset(code, at))), true
}

// driftOffset is the sandbox's relative move of a currency's rate at a moment: a
// triangle wave over minutes, phase-shifted per currency.
func driftOffset(code string, at time.Time) decimal.Decimal {
	h := fnv.New32a()
	_, _ = h.Write([]byte(code))
	k := (at.Unix()/60 + int64(h.Sum32())) % (2 * driftSteps)
	if k < 0 {
		k += 2 * driftSteps
	}
	if k > driftSteps {
		k = 2*driftSteps - k
	}
	return driftStep.Mul(decimal.NewFromInt(k - driftSteps/2))
}
