package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"paycore/internal/banking"
	"paycore/internal/catalog"
)

// Rule is one magic value of the sandbox (an identifier suffix or a stand-in value) and
// what the sandbox does with it, in one line of Markdown.
type Rule struct {
	Value, Effect string
}

// TransferSuffixes are the identifier suffixes TransferOutcome treats specially; every
// other suffix completes.
func TransferSuffixes() []string {
	return []string{SuffixInsufficientFunds, SuffixAccountClosed, SuffixRejectedByBank, SuffixSlowThenFailed, SuffixComplianceRefused, SuffixLimitExceeded, SuffixComplianceReview}
}

// QuoteSuffixes are the identifier suffixes QuoteOutcome treats specially; every other
// suffix completes.
func QuoteSuffixes() []string {
	return []string{SuffixQuoteFailed, SuffixQuoteSlow, SuffixQuoteCounterparty, SuffixQuoteReturned, SuffixQuoteCancelled, SuffixQuotePayoutAndRefund,
		SuffixQuoteLimitExceeded, SuffixQuoteCannotReceive, SuffixQuoteAccountInvalid, SuffixQuoteCompliance, SuffixQuoteRateGone}
}

// BeneficiarySuffixes are the identifier suffixes BeneficiaryCheck treats specially;
// every other suffix is MATCHED.
func BeneficiarySuffixes() []string { return []string{"102", "103", "104", "105", "106", "107"} }

// sampleIdentifier is an account number ending in suffix.
func sampleIdentifier(suffix string) string { return "000000000" + suffix }

// TransferRules describes TransferOutcome suffix by suffix, the last rule being every
// other suffix; slow is how long the slow scenario stays pending on this deployment.
func TransferRules(slow time.Duration) []Rule {
	var out []Rule
	for _, s := range TransferSuffixes() {
		o := TransferOutcome(sampleIdentifier(s))
		effect := Describe(o, slow, 0)
		if o.Status == catalog.TxFailed {
			effect += "; `failureReason` " + reasonOrNone(catalog.FailureReason(catalog.Outgoing, o.Code, "")) + " out, " +
				reasonOrNone(catalog.FailureReason(catalog.Incoming, o.Code, "")) + " in"
		}
		out = append(out, Rule{Value: s, Effect: effect})
	}
	return append(out, Rule{Value: "any other", Effect: Describe(TransferOutcome(sampleIdentifier("000")), slow, 0)})
}

// RefundRules describes RefundOutcome: the refund of a transfer in by the suffix of its
// external account, the last rule being every other suffix (a transfer in from an account
// whose transfers fail never completes, so it is never refunded).
func RefundRules(slow time.Duration) []Rule {
	return []Rule{
		{Value: SuffixRefundRejected, Effect: Describe(RefundOutcome(sampleIdentifier(SuffixRefundRejected)), slow, 0) + " (the refund; the money stays on the account)"},
		{Value: SuffixComplianceReview, Effect: Describe(RefundOutcome(sampleIdentifier(SuffixComplianceReview)), slow, 0)},
		{Value: "any other", Effect: Describe(RefundOutcome(sampleIdentifier("000")), slow, 0)},
	}
}

// reasonOrNone is a failure reason in Markdown, "none" for none.
func reasonOrNone(r string) string {
	if r == "" {
		return "none"
	}
	return "`" + r + "`"
}

// QuoteRules describes QuoteOutcome suffix by suffix, the last rule being every other
// suffix; slow and returned are this deployment's delays of the slow scenario and of a
// payment's return.
func QuoteRules(slow, returned time.Duration) []Rule {
	var out []Rule
	for _, s := range QuoteSuffixes() {
		out = append(out, Rule{Value: s, Effect: Describe(QuoteOutcome(sampleIdentifier(s)), slow, returned)})
	}
	return append(out, Rule{Value: "any other", Effect: Describe(QuoteOutcome(sampleIdentifier("000")), slow, returned)})
}

// BeneficiaryRules describes BeneficiaryCheck suffix by suffix, the last rule being every
// other suffix.
func BeneficiaryRules() []Rule {
	describe := func(suffix string) string {
		status, invalid := BeneficiaryCheck(sampleIdentifier(suffix))
		if invalid {
			return "the account does not exist: creating it is refused (`" + string(catalog.InvalidBankAcct) + "`)"
		}
		return "`verificationStatus` `" + string(status) + "`"
	}
	var out []Rule
	for _, s := range BeneficiarySuffixes() {
		out = append(out, Rule{Value: s, Effect: describe(s)})
	}
	return append(out, Rule{Value: "any other", Effect: describe("000")})
}

// MagicRules lists the stand-ins for embedded-wallet proofs and what each is accepted as.
func MagicRules() []Rule {
	return []Rule{
		{string(OTP), "the one-time code of any `EMAIL_OTP` credential"},
		{string(PasskeySignature), "as an assertion's `signature`: a valid passkey assertion"},
		{string(OIDCToken), "a fresh OIDC token of any `OAUTH` credential's identity"},
		{string(WalletSignature), "the `Service-Wallet-Signature` header of any signed retry"},
	}
}

// FundingRule says what a sandbox funding may credit.
func FundingRule() string {
	return fmt.Sprintf("an amount from 1 to %d in the smallest unit of the account's currency, to an `ACTIVE` account "+
		"of a customer that is not deleted; recorded as a completed incoming `%s` transaction (%q)",
		int64(MaxFunding), FundingKind, FundingDescription)
}

// Describe says in one line of Markdown how a payment with outcome o ends; slow is how
// long a Slow outcome stays pending, returned how long a Returned one waits for its return.
func Describe(o Outcome, slow, returned time.Duration) string {
	var b strings.Builder
	if o.Slow {
		fmt.Fprintf(&b, "stays pending for %s", FormatDelay(slow))
		if o.PendingReason != "" {
			fmt.Fprintf(&b, " (`pendingReason` `%s`)", o.PendingReason)
		}
		b.WriteString(", then ")
	}
	if o.Returned {
		fmt.Fprintf(&b, "`%s`, then after %s the receiving bank returns it: %s", o.Status, FormatDelay(returned), Describe(ReturnedOutcome(), slow, returned))
		return b.String()
	}
	fmt.Fprintf(&b, "`%s`", o.Status)
	if o.Code != "" {
		fmt.Fprintf(&b, " with `failureDetails.code` `%s`", o.Code)
	}
	if o.FailureReason != "" {
		fmt.Fprintf(&b, " and `failureReason` `%s`", o.FailureReason)
	}
	if o.Message != "" {
		b.WriteString(" (" + o.Message + ")")
	}
	if o.Refund != "" {
		fmt.Fprintf(&b, "; refunded (reason `%s`)", o.Refund)
		if o.RefundFails {
			b.WriteString(", and the refund fails too")
		}
	}
	return b.String()
}

// FormatDelay writes a delay for people: whole minutes or seconds as "6 min" or "30 s".
func FormatDelay(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d >= time.Second && d%time.Second == 0:
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.String()
}

// Ordinary reports whether no magic value of the sandbox treats identifier (an account
// number, a wallet address) specially: its suffix is none of the transfers', quotes' or
// beneficiary checks', and it does not end in the liveness check's "dead". Tests that make
// random identifiers draw again until one is ordinary.
func Ordinary(identifier string) bool {
	suffix := banking.SandboxSuffix(identifier)
	for _, set := range [][]string{TransferSuffixes(), QuoteSuffixes(), BeneficiarySuffixes()} {
		if slices.Contains(set, suffix) {
			return false
		}
	}
	return !strings.HasSuffix(strings.ToLower(identifier), LivenessDead)
}
