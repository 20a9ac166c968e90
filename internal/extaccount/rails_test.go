package extaccount

import "testing"

func TestPayoutRail(t *testing.T) {
	for cur, want := range map[string]string{"USD": "ACH", "EUR": "SEPA", "GBP": "FASTER_PAYMENTS", "MXN": "SPEI", "BRL": "PIX",
		"INR": "UPI", "SGD": "PAYNOW", "KES": "MOBILE_MONEY", "CHF": "BANK_TRANSFER", "JPY": "BANK_TRANSFER"} {
		if got, ok := PayoutRail(cur); !ok || got != want {
			t.Errorf("%s: %q %v, want %s", cur, got, ok, want)
		}
	}
	for _, cur := range []string{"USDC", "BTC", "XXX"} {
		if got, ok := PayoutRail(cur); ok {
			t.Errorf("%s has rail %q", cur, got)
		}
	}
}
