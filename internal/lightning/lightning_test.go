package lightning

import (
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/rail"
)

// An invoice is paid only for its own amount (an amountless one for any positive amount),
// and not once it expires or would expire before the payment's timeout.
func TestCheck(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	inv := func(msat int64, created time.Time) Invoice {
		return Invoice{Hash: "ab", AmountMsat: msat, Created: created, Expiry: time.Hour}
	}
	for _, tc := range []struct {
		name string
		inv  Invoice
		sats int64
		code catalog.Code // "" when payable
	}{
		{"its amount", inv(12_000_000, now), 12_000, ""},
		{"amountless", inv(0, now), 1, ""},
		{"another amount", inv(12_000_000, now), 11_999, catalog.FailInvoiceAmount},
		{"a fraction of a satoshi more", inv(12_000_500, now), 12_000, catalog.FailInvoiceAmount},
		{"nothing", inv(0, now), 0, catalog.FailInvoiceAmount},
		{"expired", inv(1_000, now.Add(-2*time.Hour)), 1, catalog.FailInvoiceExpired},
		{"expires within the timeout", inv(1_000, now.Add(-time.Hour+30*time.Second)), 1, catalog.FailInvoiceExpired},
		{"expires after the timeout", inv(1_000, now.Add(-time.Hour+2*time.Minute)), 1, ""},
	} {
		out, ok := Check(tc.inv, tc.sats, now, time.Minute)
		if ok != (tc.code == "") || out.Code != tc.code {
			t.Errorf("%s: %+v %v, want %q", tc.name, out, ok, tc.code)
		}
		if !ok && (out.Status != catalog.TxFailed || out.FailureReason != string(catalog.FailLightning) || out.Message == "") {
			t.Errorf("%s: refusal %+v", tc.name, out)
		}
	}
}

// The fee limit is the quote's when it names one, else 1%, and never below the minimum.
func TestFeeLimit(t *testing.T) {
	for _, tc := range []struct{ sats, quoted, want int64 }{
		{100_000, 0, 1_000}, {100_000, 250, 250}, {500, 0, MinFeeLimit}, {100_000, 3, MinFeeLimit},
	} {
		if got := FeeLimit(tc.sats, tc.quoted); got != tc.want {
			t.Errorf("FeeLimit(%d, %d) = %d, want %d", tc.sats, tc.quoted, got, tc.want)
		}
	}
}

// Every cause fails the payment with a code that names it; a settled one completes with
// its fee.
func TestOutcomes(t *testing.T) {
	want := map[Cause]catalog.Code{CauseUnknown: catalog.FailLightning, CauseTimeout: catalog.FailTimedOut, CauseNoRoute: catalog.FailNoRoute,
		CauseError: catalog.FailLightning, CauseIncorrectDetails: catalog.FailRecipientRefused,
		CauseInsufficientFunds: catalog.FailInsufficientLiquidity, CauseCanceled: catalog.FailLightning}
	for cause, code := range want {
		out := Failed(cause)
		if out.Status != catalog.TxFailed || out.Code != code || out.Message == "" || out.FailureReason != string(catalog.FailLightning) || out.PaidOut {
			t.Errorf("cause %d: %+v", cause, out)
		}
	}
	if out := Settled(1_234); out.Status != catalog.TxCompleted || out.FeeMsat != 1_234 || out.Code != "" || out.Funds != "LIGHTNING" {
		t.Errorf("settled: %+v", out)
	}
}

// A sandbox platform's simulated money never leaves a node on Bitcoin's main network; a
// production payment, or a sandbox one on a test network, is paid.
func TestSimulatedOnMainnet(t *testing.T) {
	for _, tc := range []struct {
		env     catalog.Environment
		mainnet bool
		refused bool
	}{{catalog.Sandbox, true, true}, {catalog.Sandbox, false, false}, {catalog.Production, true, false}, {catalog.Production, false, false}} {
		out, refused := SimulatedOnMainnet(tc.env, tc.mainnet)
		if refused != tc.refused || (refused && (out.Status != catalog.TxFailed || out.Code != catalog.FailRailUnavailable)) {
			t.Errorf("%s on mainnet %v: %+v refused %v", tc.env, tc.mainnet, out, refused)
		}
		if tc.refused && !AsksNetwork(tc.env) {
			t.Errorf("a %s payment does not ask the node's network", tc.env)
		}
	}
	if AsksNetwork(catalog.Production) {
		t.Error("every production payment asks the node's network")
	}
}

// A UMA receiver's invoice must name its amount, which the payment's whole satoshis cover
// to the satoshi (a part of one rounded up); expiry is checked as for any invoice.
func TestCheckUma(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	inv := func(msat int64) Invoice {
		return Invoice{Hash: "ab", AmountMsat: msat, Created: now, Expiry: time.Hour}
	}
	for _, tc := range []struct {
		name string
		inv  Invoice
		sats int64
		code catalog.Code
	}{
		{"whole satoshis", inv(12_000_000), 12_000, ""},
		{"a part of a satoshi, rounded up", inv(11_999_001), 12_000, ""},
		{"a satoshi short", inv(11_999_000), 12_000, catalog.FailInvoiceAmount},
		{"more", inv(12_000_001), 12_000, catalog.FailInvoiceAmount},
		{"amountless", inv(0), 12_000, catalog.FailInvoiceAmount},
		{"expired", Invoice{Hash: "ab", AmountMsat: 1_000, Created: now.Add(-2 * time.Hour), Expiry: time.Hour}, 1, catalog.FailInvoiceExpired},
	} {
		out, ok := CheckUma(tc.inv, tc.sats, now, time.Minute)
		if ok != (tc.code == "") || out.Code != tc.code {
			t.Errorf("%s: %+v %v, want %q", tc.name, out, ok, tc.code)
		}
	}
}

// A UMA receiver's invoice refused before anything was sent fails the payment
// PAY_REQUEST_FAILED; a payment the network did not deliver, and one that completed, end as
// any Lightning payment.
func TestForUma(t *testing.T) {
	for _, tc := range []struct {
		out  rail.Outcome
		want string
	}{
		{Invalid("garbage"), string(catalog.FailPayRequest)},
		{Refusal(catalog.FailInvoiceExpired, "expired"), string(catalog.FailPayRequest)},
		{Refusal(catalog.FailInvoiceAmount, "another amount"), string(catalog.FailPayRequest)},
		{Failed(CauseNoRoute), string(catalog.FailLightning)},
		{Settled(0), ""},
	} {
		if got := ForUma(tc.out); got.FailureReason != tc.want || got.Code != tc.out.Code || got.Status != tc.out.Status {
			t.Errorf("%+v: %+v, want reason %q", tc.out, got, tc.want)
		}
	}
}
