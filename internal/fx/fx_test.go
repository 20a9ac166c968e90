package fx

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"paycore/internal/money"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 30, 0, time.UTC)

func table(t *testing.T, drift bool) *Table {
	t.Helper()
	tb, err := NewTable(nil, t0, drift)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func cur(t *testing.T, code string) money.Currency {
	t.Helper()
	c, ok := money.Lookup(code)
	if !ok {
		t.Fatalf("no currency %s", code)
	}
	return c
}

// Every currency of the catalogue has a built-in rate.
func TestDefaultsCoverTheCatalogue(t *testing.T) {
	tb := table(t, false)
	for _, c := range money.All() {
		if _, _, err := tb.Mid(Base, c.Code, t0); err != nil {
			t.Errorf("%s: %v", c.Code, err)
		}
	}
}

func TestParseOverrides(t *testing.T) {
	for _, in := range []string{`{"EUR": 0.905, "JPY": "151.25"}`, `{"EUR": "0.905", "JPY": 151.25}`} {
		o, err := ParseOverrides([]byte(in))
		if err != nil || o["EUR"] != "0.905" || o["JPY"] != "151.25" {
			t.Fatalf("%s: %v %v", in, o, err)
		}
	}
	for _, in := range []string{`[1]`, `{"EUR": true}`, `nope`} {
		if _, err := ParseOverrides([]byte(in)); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}

func TestNewTableOverridesAndRefusals(t *testing.T) {
	tb, err := NewTable(map[string]string{"EUR": "0.5"}, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	if mid, _, _ := tb.Mid("EUR", "USD", t0); !mid.Equal(decimal.NewFromInt(2)) {
		t.Fatalf("EUR → USD %s with EUR at 0.5 per dollar", mid)
	}
	for name, o := range map[string]map[string]string{
		"unknown currency": {"XXX": "1"}, "zero": {"EUR": "0"}, "negative": {"EUR": "-1"},
		"not a number": {"EUR": "1,5"}, "base moved": {"USD": "1.1"},
	} {
		if _, err := NewTable(o, t0, false); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Cross rates are derived through the base: EUR → JPY is JPY per dollar over EUR per
// dollar, and a rate and its inverse multiply to one.
func TestCrossRates(t *testing.T) {
	tb := table(t, false)
	mid, updated, err := tb.Mid("EUR", "JPY", t0)
	if err != nil || !updated.Equal(t0) {
		t.Fatalf("%v %v", err, updated)
	}
	want := decimal.RequireFromString("150").DivRound(decimal.RequireFromString("0.92"), divPlaces)
	if !mid.Equal(want) {
		t.Fatalf("EUR → JPY %s, want %s", mid, want)
	}
	back, _, _ := tb.Mid("JPY", "EUR", t0)
	if d := mid.Mul(back).Sub(decimal.NewFromInt(1)).Abs(); d.GreaterThan(decimal.New(1, -18)) {
		t.Fatalf("a rate times its inverse is off by %s", d)
	}
	if _, _, err := tb.Mid("EUR", "XXX", t0); !errors.Is(err, ErrNoRate) {
		t.Fatalf("unknown currency: %v", err)
	}
}

// In sandbox, rates move a little every minute (the dollar and its coins never); the
// move stays within ±0.2 % and updatedAt is the minute.
func TestSandboxDrift(t *testing.T) {
	still := table(t, false)
	moving := still.Sandbox()
	base, _, _ := still.Mid("USD", "EUR", t0)
	seen := map[string]bool{}
	limit := base.Mul(decimal.RequireFromString("0.002"))
	for m := range 60 {
		at := t0.Add(time.Duration(m) * time.Minute)
		r, updated, _ := moving.Mid("USD", "EUR", at)
		if r.Sub(base).Abs().GreaterThan(limit.Add(decimal.New(1, -15))) {
			t.Fatalf("minute %d: %s drifted beyond 0.2 %% of %s", m, r, base)
		}
		if !updated.Equal(at.Truncate(time.Minute)) {
			t.Fatalf("minute %d: updatedAt %v", m, updated)
		}
		seen[r.String()] = true
		if same, _, _ := moving.Mid("USD", "EUR", at.Add(20*time.Second)); at.Second() < 40 && !same.Equal(r) {
			t.Fatalf("minute %d: the rate moved within the minute", m)
		}
		if u, up, _ := moving.Mid("USD", "USDC", at); !u.Equal(decimal.NewFromInt(1)) || !up.Equal(t0) {
			t.Fatalf("USD → USDC moved: %s at %v", u, up)
		}
	}
	if len(seen) < 10 {
		t.Fatalf("only %d distinct rates in an hour", len(seen))
	}
	if r, updated, _ := still.Mid("USD", "EUR", t0.Add(time.Hour)); !r.Equal(base) || !updated.Equal(t0) {
		t.Fatal("rates moved outside the sandbox")
	}
}

func TestPricingCheck(t *testing.T) {
	if err := DefaultPricing().Check(); err != nil {
		t.Fatal(err)
	}
	d := decimal.RequireFromString
	for name, p := range map[string]Pricing{
		"spread 1": {Spread: d("1")}, "negative spread": {Spread: d("-0.1")}, "negative fee": {FixedFeeUSD: d("-1")},
		"variable 1": {VariableRate: d("1")}, "negative variable": {VariableRate: d("-0.01")},
	} {
		if p.Check() == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// The pricing: the multiplier is the mid-market rate less the spread, in minor units; the
// fixed fee is the dollar fee in the sending currency, rounded up; the exchange rate shown
// is sending units per receiving unit.
func TestPrice(t *testing.T) {
	tb := table(t, false)
	p := Pricing{Spread: decimal.RequireFromString("0.01"), FixedFeeUSD: decimal.RequireFromString("0.10")}
	r, err := Price(tb, cur(t, "USD"), cur(t, "JPY"), p, t0)
	if err != nil {
		t.Fatal(err)
	}
	// 150 yen per dollar, less 1 %, per cent: 1.485 yen per cent.
	if !r.Multiplier.Equal(decimal.RequireFromString("1.485")) || r.FixedFee != 10 {
		t.Fatalf("USD → JPY multiplier %s, fixed fee %d", r.Multiplier, r.FixedFee)
	}
	if got := r.ExchangeRate(); got.String() != "0.00673400673401" {
		t.Fatalf("exchange rate %s", got)
	}
	// 10 US cents in yen is 15 yen; in BTC 0.00000105 BTC = 105 satoshis.
	if r, _ := Price(tb, cur(t, "JPY"), cur(t, "USD"), p, t0); r.FixedFee != 15 {
		t.Fatalf("JPY fixed fee %d", r.FixedFee)
	}
	if r, _ := Price(tb, cur(t, "BTC"), cur(t, "USD"), p, t0); r.FixedFee != 105 {
		t.Fatalf("BTC fixed fee %d", r.FixedFee)
	}
}

// The rounding rule, for currencies with 0, 2, 3, 6, 8 and 9 decimals, both locked sides,
// from the smallest amounts to the largest: the receiver never gets more than the net
// amount converts to, totals are net plus fees, and the least total that delivers a locked
// receiving amount is exactly what Receiving asks for.
func TestConversionRounding(t *testing.T) {
	tb := table(t, false)
	pricings := []Pricing{
		DefaultPricing(),
		{Spread: decimal.Zero, FixedFeeUSD: decimal.Zero, VariableRate: decimal.Zero},
		{Spread: decimal.RequireFromString("0.0125"), FixedFeeUSD: decimal.RequireFromString("1.99"), VariableRate: decimal.RequireFromString("0.0035")},
	}
	codes := []string{"JPY", "USD", "EUR", "KWD", "USDC", "BTC", "SOL"}
	amounts := []int64{0, 1, 2, 3, 7, 99, 100, 101, 9_999, 10_000, 1_000_003, 123_456_789, 1 << 40, math.MaxInt64 / 1_000_000_000_000,
		math.MaxInt64 / 2, math.MaxInt64 - 1, math.MaxInt64}
	for _, p := range pricings {
		for _, from := range codes {
			for _, to := range codes {
				if from == to {
					continue
				}
				r, err := Price(tb, cur(t, from), cur(t, to), p, t0)
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range amounts {
					checkSending(t, r, a)
					checkReceiving(t, r, a)
				}
			}
		}
	}
}

func checkSending(t *testing.T, r Rate, total int64) {
	t.Helper()
	c, err := r.Sending(total)
	if total < r.FixedFee {
		if !errors.Is(err, ErrBelowFees) {
			t.Fatalf("%s → %s: %d below the fees %d: %+v %v", r.From.Code, r.To.Code, total, r.FixedFee, c, err)
		}
		return
	}
	if errors.Is(err, ErrTooLarge) {
		return
	}
	if err != nil {
		t.Fatalf("%s → %s sending %d: %v", r.From.Code, r.To.Code, total, err)
	}
	// Sums in decimals: near MaxInt64 an int64 sum would wrap.
	converted := decimal.NewFromInt(c.Net).Mul(r.Multiplier)
	fees, feesErr := r.Fees(c.Net)
	next, nextErr := r.Fees(c.Net + 1)
	switch {
	case c.Total != total || c.Net < 0 || c.Fees < 0 || c.Net != total-c.Fees:
		t.Fatalf("%s → %s sending %d: %+v does not add up", r.From.Code, r.To.Code, total, c)
	case feesErr != nil || c.Fees < fees:
		t.Fatalf("%s → %s sending %d: %+v pays less than the fees %d (%v)", r.From.Code, r.To.Code, total, c, fees, feesErr)
	case decimal.NewFromInt(c.Receiving).GreaterThan(converted):
		t.Fatalf("%s → %s sending %d: pays %d for %s converted", r.From.Code, r.To.Code, total, c.Receiving, converted)
	case decimal.NewFromInt(c.Receiving).Add(decimal.NewFromInt(1)).LessThanOrEqual(converted):
		t.Fatalf("%s → %s sending %d: pays %d, a full unit below %s", r.From.Code, r.To.Code, total, c.Receiving, converted)
	case c.Net < total && nextErr == nil && decimal.NewFromInt(c.Net+1).Add(decimal.NewFromInt(next)).LessThanOrEqual(decimal.NewFromInt(total)):
		t.Fatalf("%s → %s sending %d: net %d is not the largest the total pays", r.From.Code, r.To.Code, total, c.Net)
	}
}

func checkReceiving(t *testing.T, r Rate, receiving int64) {
	t.Helper()
	c, err := r.Receiving(receiving)
	if errors.Is(err, ErrTooLarge) {
		return
	}
	if err != nil {
		t.Fatalf("%s → %s receiving %d: %v", r.From.Code, r.To.Code, receiving, err)
	}
	if fees, err := r.Fees(c.Net); err != nil || c.Total != c.Net+c.Fees || c.Fees != fees || c.Receiving != receiving {
		t.Fatalf("%s → %s receiving %d: %+v does not add up", r.From.Code, r.To.Code, receiving, c)
	}
	// The same rule from the other side: the total delivers at least the amount, one minor
	// unit less does not.
	if s, err := r.Sending(c.Total); err != nil || s.Receiving < receiving {
		t.Fatalf("%s → %s receiving %d: its total %d delivers %d (%v)", r.From.Code, r.To.Code, receiving, c.Total, s.Receiving, err)
	}
	if receiving > 0 {
		if s, err := r.Sending(c.Total - 1); err == nil && s.Receiving >= receiving {
			t.Fatalf("%s → %s receiving %d: %d would have done, %d asked", r.From.Code, r.To.Code, receiving, c.Total-1, c.Total)
		}
	}
}

// Amounts whose conversion does not fit int64 are refused, never wrapped.
func TestConversionTooLarge(t *testing.T) {
	tb := table(t, false)
	r, _ := Price(tb, cur(t, "BTC"), cur(t, "LAK"), DefaultPricing(), t0)
	if _, err := r.Sending(math.MaxInt64); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("sending: %v", err)
	}
	r, _ = Price(tb, cur(t, "LAK"), cur(t, "BTC"), DefaultPricing(), t0)
	if _, err := r.Receiving(math.MaxInt64); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("receiving: %v", err)
	}
}

// Fees are rounded up: 0.35 % of 1,000 cents is 3.5 cents, charged as 4.
func TestFeesRoundUp(t *testing.T) {
	r := Rate{From: cur(t, "USD"), To: cur(t, "EUR"), Multiplier: decimal.RequireFromString("0.9"), FixedFee: 10,
		VariableRate: decimal.RequireFromString("0.0035")}
	if got, err := r.Fees(1000); err != nil || got != 14 {
		t.Fatalf("fees on 1000: %d %v, want 14", got, err)
	}
	c, err := r.Sending(1014)
	if err != nil || c != (Conversion{Total: 1014, Net: 1000, Fees: 14, Receiving: 900}) {
		t.Fatalf("sending 1014: %+v %v", c, err)
	}
	// 1,013 cannot pay 1,000 with its 14 of fees: 999 is converted, the cent left over is fee.
	if c, _ := r.Sending(1013); c != (Conversion{Total: 1013, Net: 999, Fees: 14, Receiving: 899}) {
		t.Fatalf("sending 1013: %+v", c)
	}
}

// A platform's fee is part of the fees, rounded up on its own: 30 bps and 50 cents of a
// net 1,000 is 53, beside the service's 14. Whichever side is locked, the platform's share
// is exactly its fee of the net amount, the rounding left over by a locked sending amount
// staying the service's; every amount still adds up.
func TestPlatformFee(t *testing.T) {
	r := Rate{From: cur(t, "USD"), To: cur(t, "EUR"), Multiplier: decimal.RequireFromString("0.9"), FixedFee: 10,
		VariableRate: decimal.RequireFromString("0.0035"), Platform: PlatformFee{Fixed: 50, VariableRate: decimal.RequireFromString("0.003")}}
	if got, err := r.Fees(1000); err != nil || got != 67 {
		t.Fatalf("fees on 1000: %d %v, want 14 + 53", got, err)
	}
	if got, _ := r.PlatformFees(1000); got != 53 {
		t.Fatalf("platform fees on 1000: %d, want 53", got)
	}
	if c, err := r.Sending(1067); err != nil || c != (Conversion{Total: 1067, Net: 1000, Fees: 67, Receiving: 900, PlatformFees: 53}) {
		t.Fatalf("sending 1067: %+v %v", c, err)
	}
	if c, err := r.Receiving(900); err != nil || c != (Conversion{Total: 1067, Net: 1000, Fees: 67, Receiving: 900, PlatformFees: 53}) {
		t.Fatalf("receiving 900: %+v %v", c, err)
	}
	for total := int64(60); total < 5000; total += 7 {
		c, err := r.Sending(total)
		if err != nil {
			t.Fatalf("sending %d: %v", total, err)
		}
		want, _ := r.PlatformFees(c.Net)
		service, _ := Rate{FixedFee: r.FixedFee, VariableRate: r.VariableRate}.Fees(c.Net)
		if c.Total != c.Net+c.Fees || c.PlatformFees != want || c.Fees-c.PlatformFees < service {
			t.Fatalf("sending %d: %+v (platform %d, service at least %d)", total, c, want, service)
		}
	}
	if _, err := r.Sending(59); err != ErrBelowFees {
		t.Fatalf("59 does not cover the fixed fees of 60: %v", err)
	}
	plain := r
	plain.Platform = PlatformFee{}
	a, _ := plain.Sending(1067)
	if a.PlatformFees != 0 || a.Net <= 1000 {
		t.Fatalf("without a platform fee: %+v", a)
	}
}

// BenchmarkPriceAndConvert prices a pair from the moving table and converts both ways.
func BenchmarkPriceAndConvert(b *testing.B) {
	tb := BuiltIn(t0).Sandbox()
	usd, _ := money.Lookup("USD")
	mxn, _ := money.Lookup("MXN")
	p := Pricing{Spread: decimal.RequireFromString("0.003"), FixedFeeUSD: decimal.RequireFromString("0.10"), VariableRate: decimal.RequireFromString("0.001")}
	for b.Loop() {
		r, err := Price(tb, usd, mxn, p, t0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Sending(1_234_567); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Receiving(7_654_321); err != nil {
			b.Fatal(err)
		}
	}
}

// finishes runs f and fails the test when it has not returned within a few seconds (a
// search that walks towards MaxInt64 one unit at a time would run for years).
func finishes(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s still running after 5 s", what)
	}
}

// Sending the largest amount: net plus fees would pass MaxInt64, so Sending compares by
// subtraction. USD → EUR fits (a euro cent is worth more than a US cent): the net amount is
// what is left after the fees, fees included, converted.
func TestSendingMaxInt64(t *testing.T) {
	tb := table(t, false)
	variable := DefaultPricing()
	variable.VariableRate = decimal.RequireFromString("0.0035")
	multiplier := decimal.RequireFromString("0.91724") // 0.92 € per dollar less 0.3 %
	for name, p := range map[string]Pricing{"default pricing": DefaultPricing(), "variable fee": variable} {
		r, err := Price(tb, cur(t, "USD"), cur(t, "EUR"), p, t0)
		if err != nil {
			t.Fatal(err)
		}
		var c Conversion
		finishes(t, name+": Sending(MaxInt64)", func() { c, err = r.Sending(math.MaxInt64) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkSending(t, r, math.MaxInt64)
		wantRecv := decimal.NewFromInt(c.Net).Mul(multiplier).Floor().IntPart()
		if c.Total != math.MaxInt64 || c.Net != math.MaxInt64-c.Fees || c.Fees < 10 || c.Receiving != wantRecv {
			t.Fatalf("%s: %+v, want fees of at least 10 and %d received", name, c, wantRecv)
		}
		// 10 cents, or 10 cents and 0.35 % of the net amount.
		if fees, _ := r.Fees(c.Net); name == "default pricing" && c.Fees != 10 || name == "variable fee" && (c.Fees < fees || c.Fees > fees+1 || fees < 32_000_000_000_000_000) {
			t.Fatalf("%s: fees %d (Fees(net) %d)", name, c.Fees, fees)
		}
	}
}

// Fees that do not fit int64 are refused, never wrapped, and Sending treats them as too
// large to pay.
func TestFeesTooLarge(t *testing.T) {
	r := Rate{From: cur(t, "USD"), To: cur(t, "EUR"), Multiplier: decimal.RequireFromString("0.9"), FixedFee: math.MaxInt64 - 1,
		VariableRate: decimal.RequireFromString("0.5")}
	if f, err := r.Fees(10); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("fixed fee MaxInt64-1 plus 5: %d %v", f, err)
	}
	if f, err := r.Fees(0); err != nil || f != math.MaxInt64-1 {
		t.Fatalf("fixed fee alone: %d %v", f, err)
	}
	r.FixedFee, r.VariableRate = 10, decimal.RequireFromString("0.99999999999999999999")
	if f, err := r.Fees(math.MaxInt64); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("10 plus about MaxInt64: %d %v", f, err)
	}
	var c Conversion
	var err error
	finishes(t, "Sending(MaxInt64) at a variable fee near 100 %", func() { c, err = r.Sending(math.MaxInt64) })
	if err != nil || c.Net+c.Fees != math.MaxInt64 || c.Net > math.MaxInt64/2 {
		t.Fatalf("%+v %v", c, err)
	}
	checkSending(t, r, math.MaxInt64)
}

// Negative amounts are refused: a receiving amount with an error, a sending one as below
// the fees (even fees of 0).
func TestNegativeAmounts(t *testing.T) {
	tb := table(t, false)
	free := Pricing{Spread: decimal.Zero, FixedFeeUSD: decimal.Zero, VariableRate: decimal.Zero}
	for _, p := range []Pricing{DefaultPricing(), free} {
		r, err := Price(tb, cur(t, "USD"), cur(t, "EUR"), p, t0)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []int64{-1, -10_000, math.MinInt64} {
			var c Conversion
			finishes(t, fmt.Sprintf("Receiving(%d)", a), func() { c, err = r.Receiving(a) })
			if !errors.Is(err, ErrNegative) {
				t.Errorf("receiving %d: %+v %v", a, c, err)
			}
			finishes(t, fmt.Sprintf("Sending(%d)", a), func() { c, err = r.Sending(a) })
			if !errors.Is(err, ErrBelowFees) {
				t.Errorf("sending %d: %+v %v", a, c, err)
			}
		}
	}
}

// The exchange rate shows 12 significant digits however small or large it is, and a pair
// whose multiplier rounds to 0 is refused rather than divided by.
func TestExchangeRateDigits(t *testing.T) {
	tb := table(t, false)
	for pair, want := range map[[2]string]string{
		{"USD", "EUR"}: "1.09022720335",           // 1 / 0.91724
		{"BTC", "LBP"}: "0.000000000117671450105", // 10^-6 / 8,498.238…
		{"LBP", "BTC"}: "8549457897.5",
	} {
		r, err := Price(tb, cur(t, pair[0]), cur(t, pair[1]), DefaultPricing(), t0)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.ExchangeRate(); got.String() != want {
			t.Errorf("%s → %s: %s, want %s", pair[0], pair[1], got, want)
		}
	}
	extreme, err := NewTable(map[string]string{"EUR": "1e-30"}, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := Price(extreme, cur(t, "USD"), cur(t, "EUR"), DefaultPricing(), t0); !errors.Is(err, ErrRateTooSmall) {
		t.Fatalf("USD → EUR at 10^-30 € per dollar: %+v %v", r, err)
	}
	r, err := Price(extreme, cur(t, "EUR"), cur(t, "USD"), DefaultPricing(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.ExchangeRate(); !got.Equal(decimal.RequireFromString("1.00300902708e-30")) {
		t.Fatalf("EUR → USD at 10^-30 € per dollar: %s", got)
	}
}
