package extaccount

import "paycore/internal/money"

// PayoutRail is the payment rail a payout in a currency travels on: the first rail of the
// currency's local bank account type ("USD" → ACH, "EUR" → SEPA, "MXN" → SPEI), a bank
// transfer for the other fiat currencies (paid to SWIFT accounts), none for crypto, which
// is paid to wallets, not over a rail.
func PayoutRail(currency string) (string, bool) {
	if spec, ok := specs[currency+"_ACCOUNT"]; ok && len(spec.rails) > 0 {
		return spec.rails[0], true
	}
	if money.IsFiat(currency) {
		return railsBank[0], true
	}
	return "", false
}
