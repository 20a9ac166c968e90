package quote

import (
	"fmt"

	"github.com/google/uuid"

	"paycore/internal/money"
)

// sandboxBanks are the sandbox payer's bank by funding currency: the rail its deposits
// arrive on and the bank's identifier on that rail.
var sandboxBanks = map[string]struct{ rail, bank string }{
	"USD": {"ACH", "021000021"}, "EUR": {"SEPA", "SBXBDEFFXXX"}, "GBP": {"FASTER_PAYMENTS", "040004"}, "MXN": {"SPEI", "002"},
	"BRL": {"PIX", "00000000"}, "INR": {"UPI", "SBXB0000001"},
}

// SandboxOriginator is who the sandbox says sent a deposit in currency for the quote
// quoteID: a fixed payer at the sandbox's bank, its account number masked, the rail a
// deposit in that currency arrives on (BANK_TRANSFER for the others), the quote's deposit
// reference as remittance information, and end-to-end and trace references derived from
// the quote. A crypto deposit has no bank originator (false).
func SandboxOriginator(currency, reference string, quoteID uuid.UUID) (Originator, bool) {
	if !money.IsFiat(currency) {
		return Originator{}, false
	}
	b, ok := sandboxBanks[currency]
	if !ok {
		b.rail, b.bank = "BANK_TRANSFER", "SBXBXXXX"
	}
	return Originator{AccountHolderName: "Sandbox Payer", AccountIdentifier: "****6789", BankName: "Sandbox Bank", BankIdentifier: b.bank,
		PaymentRail: b.rail, RemittanceInformation: reference, EndToEndID: "E2E-" + quoteID.String()[:8],
		TraceNumber: fmt.Sprintf("%015d", quoteID.ID())}, true
}
