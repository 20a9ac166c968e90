package extaccount

import (
	"slices"
	"testing"
)

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

func TestCheckAddress(t *testing.T) {
	ok := map[string]string{
		"SOLANA": "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV", "ETHEREUM": "0x52908400098527886E0F7030069857D2E4169EE7",
		"BASE": "0x52908400098527886E0F7030069857D2E4169EE7", "POLYGON": "0x52908400098527886E0F7030069857D2E4169EE7",
		"BITCOIN": "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "LIGHTNING": "alice@example.com",
	}
	for network, addr := range ok {
		if msg := CheckAddress(network, addr); msg != "" {
			t.Errorf("%s %s: %s", network, addr, msg)
		}
	}
	for network, addr := range map[string]string{"SOLANA": "0x52908400098527886E0F7030069857D2E4169EE7", "BITCOIN": "bc1", "ETHEREUM": "7EcDhSYG", "TRON": "T"} {
		if CheckAddress(network, addr) == "" {
			t.Errorf("%s %s accepted", network, addr)
		}
	}
}

// Networks lists the networks CheckAddress knows, sorted, each with a check.
func TestNetworks(t *testing.T) {
	got := Networks()
	if want := []string{"BASE", "BITCOIN", "ETHEREUM", "LIGHTNING", "POLYGON", "SOLANA", "SPARK"}; !slices.Equal(got, want) {
		t.Fatalf("networks %v, want %v", got, want)
	}
	for _, n := range got {
		if CheckAddress(n, "") == "is not a supported network" {
			t.Errorf("%s is listed but not checked", n)
		}
	}
}
