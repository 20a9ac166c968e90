package lightning

import (
	"errors"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
)

// ReceiptKind is the transaction kind of money received over Lightning into an internal
// account (an INCOMING transaction, from REALTIME_FUNDING).
const ReceiptKind = "LIGHTNING_IN"

// ReceiptDescription is a receipt's transaction description.
const ReceiptDescription = "Received over Lightning"

// FundingInvoiceExpiry is how long a funding invoice the node creates for an account stays
// payable, and FundingInvoiceReuse how much of it must be left for the funding
// instructions to show it again rather than a new one.
const (
	FundingInvoiceExpiry = 24 * time.Hour
	FundingInvoiceReuse  = time.Hour
)

// ErrReceiptRefused is why a settled invoice's payment moves nothing: it paid nothing.
var ErrReceiptRefused = errors.New("lightning: the invoice's payment cannot be received")

// Funded says whether an account may show a Lightning funding invoice: an open BTC account.
func Funded(currency string, status catalog.AccountStatus) bool {
	return currency == "BTC" && status != catalog.AccountClosed
}

// Receipt is what a settled invoice's payment does.
type Receipt int

// What a settled invoice's payment does.
const (
	// Credit: it credits the account the invoice was created for.
	Credit Receipt = iota
	// Unapplied: the account can no longer be credited (closed after the invoice was
	// created): the payment is held on the platform's UNAPPLIED account, for an operator
	// to return to its payer (the node has no way back to the payer).
	Unapplied
)

// DecideReceipt is the rule of a settled invoice's payment of sats to an account: credited
// while the account is an open BTC account, else held as unapplied; ErrReceiptRefused when
// it paid nothing.
func DecideReceipt(currency string, status catalog.AccountStatus, sats int64) (Receipt, error) {
	switch {
	case sats <= 0:
		return 0, ErrReceiptRefused
	case Funded(currency, status):
		return Credit, nil
	}
	return Unapplied, nil
}

// FundingInvoice is an invoice the deployment's node created for an internal account.
type FundingInvoice struct {
	Hash           []byte // the payment hash, 32 bytes
	PlatformID     uuid.UUID
	AccountID      uuid.UUID
	PaymentRequest string // BOLT11
	Amount         *int64 // satoshis; nil: the payer chooses
	ExpiresAt      time.Time
	CreatedAt      time.Time
}

// FundingInstruction is the funding instruction (PaymentInstructions) that shows an
// account's invoice, and the Lightning address that also reaches it when there is one.
func FundingInstruction(invoice string, isPlatform bool) map[string]any {
	return map[string]any{
		"instructionsNotes":   "Pay this Lightning invoice, any amount, once, within 24 hours; read the account again for a new one.",
		"isPlatformAccount":   isPlatform,
		"accountOrWalletInfo": map[string]any{"accountType": "LIGHTNING", "invoice": invoice},
	}
}
