package fx

import (
	"testing"

	"paycore/internal/money"
)

// Another provider's conversion shows its rate as the service's own rates show: 100.00 USD
// that bought 1,700.00 MXN is 0.0588235294118 USD a peso; nothing bought shows zero.
func TestExchangeRateOf(t *testing.T) {
	usd, _ := money.Lookup("USD")
	mxn, _ := money.Lookup("MXN")
	if got := ExchangeRateOf(usd, 10_000, mxn, 170_000); got.String() != "0.0588235294118" {
		t.Fatalf("rate %s", got)
	}
	if got := ExchangeRateOf(usd, 10_000, mxn, 0); !got.IsZero() {
		t.Fatalf("nothing bought: %s", got)
	}
}
