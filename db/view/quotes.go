package view

import (
	"encoding/json"
	"strings"
	"time"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/money"
)

// Quote is a locked cross-currency conversion and the payment it makes once executed.
type Quote struct {
	ID                   string                    `json:"id"`
	Status               catalog.TransactionStatus `json:"status"`
	CreatedAt            time.Time                 `json:"createdAt"`
	ExpiresAt            time.Time                 `json:"expiresAt"`
	Source               QuoteEnd                  `json:"source"`
	Destination          QuoteEnd                  `json:"destination"`
	SendingCurrency      money.Currency            `json:"sendingCurrency"`
	ReceivingCurrency    money.Currency            `json:"receivingCurrency"`
	TotalSendingAmount   int64                     `json:"totalSendingAmount"`
	TotalReceivingAmount int64                     `json:"totalReceivingAmount"`
	// ExchangeRate is sending units per receiving unit; FeesIncluded are in the sending
	// currency's smallest unit.
	ExchangeRate json.Number `json:"exchangeRate"`
	FeesIncluded int64       `json:"feesIncluded"`
	// PlatformFeesIncluded is the platform's share of FeesIncluded (0: none).
	PlatformFeesIncluded    int64                `json:"platformFeesIncluded"`
	PaymentInstructions     []PaymentInstruction `json:"paymentInstructions,omitempty"`
	TransactionID           string               `json:"transactionId"`
	CounterpartyInformation json.RawMessage      `json:"counterpartyInformation,omitempty"`
	RateDetails             json.RawMessage      `json:"rateDetails,omitempty"`
	// Additions: what was locked, the sender's information the quote carries, and the
	// request's memo and purpose.
	LockedCurrencySide   string          `json:"lockedCurrencySide"`
	LockedCurrencyAmount int64           `json:"lockedCurrencyAmount"`
	SenderCustomerInfo   json.RawMessage `json:"senderCustomerInfo,omitempty"`
	Description          *string         `json:"description,omitempty"`
	PurposeOfPayment     *string         `json:"purposeOfPayment,omitempty"`
}

// QuoteEnd is a quote's source or destination.
type QuoteEnd struct {
	SourceType      string `json:"sourceType,omitempty"`
	DestinationType string `json:"destinationType,omitempty"`
	AccountID       string `json:"accountId,omitempty"`
	CustomerID      string `json:"customerId,omitempty"`
	Currency        string `json:"currency,omitempty"`
	PaymentRail     string `json:"paymentRail,omitempty"`
	UmaAddress      string `json:"umaAddress,omitempty"`
	CryptoNetwork   string `json:"cryptoNetwork,omitempty"`
}

// PaymentInstruction tells the payer how to fund a payment; for an embedded-wallet
// source it carries the payloadToSign that authorises executing the quote.
type PaymentInstruction struct {
	InstructionsNotes   string         `json:"instructionsNotes,omitempty"`
	IsPlatformAccount   bool           `json:"isPlatformAccount"`
	AccountOrWalletInfo map[string]any `json:"accountOrWalletInfo"`
}

// QuoteOf renders a quote with its transaction.
func QuoteOf(q db.QuoteWithTransaction) Quote {
	t := q.Transaction
	receivingCode, receiving := receivedOf(t)
	out := Quote{ID: ids.Format(ids.Quote, q.Quote.ID), Status: t.Status, CreatedAt: q.Quote.CreatedAt, ExpiresAt: q.Quote.ExpiresAt,
		Source:          QuoteEnd{SourceType: q.Quote.SourceKind, Currency: t.Currency},
		Destination:     QuoteEnd{DestinationType: q.Quote.DestinationKind, Currency: receivingCode},
		SendingCurrency: currencyOf(t.Currency), ReceivingCurrency: currencyOf(receivingCode),
		TotalSendingAmount: t.Amount, TotalReceivingAmount: receiving, TransactionID: ids.Format(ids.Transaction, t.ID),
		CounterpartyInformation: t.CounterpartyInformation, RateDetails: rateDetailsOf(t.RateDetails),
		LockedCurrencySide: q.Quote.LockedSide, LockedCurrencyAmount: q.Quote.LockedAmount, SenderCustomerInfo: q.Quote.SenderCustomerInfo,
		Description: q.Quote.Description, PurposeOfPayment: q.Quote.PurposeOfPayment}
	if t.ExchangeRate.Valid {
		out.ExchangeRate = json.Number(t.ExchangeRate.Decimal.String())
	}
	if t.Fees != nil {
		out.FeesIncluded = *t.Fees
	}
	if t.PlatformFees != nil {
		out.PlatformFeesIncluded = *t.PlatformFees
	}
	if q.Quote.SourceAccountID.Valid {
		out.Source.AccountID = ids.Format(ids.InternalAccount, q.Quote.SourceAccountID.UUID)
	}
	if q.Quote.CustomerID.Valid {
		out.Source.CustomerID = ids.Format(ids.Customer, q.Quote.CustomerID.UUID)
	}
	if q.Quote.CryptoNetwork != nil {
		out.Source.CryptoNetwork = *q.Quote.CryptoNetwork
	}
	if q.Quote.DestinationAccountID.Valid {
		prefix := ids.ExternalAccount
		if q.Quote.DestinationInternal {
			prefix = ids.InternalAccount
		}
		out.Destination.AccountID = ids.Format(prefix, q.Quote.DestinationAccountID.UUID)
	}
	if q.Quote.PaymentRail != nil {
		out.Destination.PaymentRail = *q.Quote.PaymentRail
	}
	if q.Quote.DestinationUma != nil {
		out.Destination.UmaAddress = *q.Quote.DestinationUma
	}
	if len(q.Quote.PaymentInstructions) > 0 {
		_ = json.Unmarshal(q.Quote.PaymentInstructions, &out.PaymentInstructions) // written by QuoteCreate from the same shape
	}
	if q.PayloadToSign != "" {
		out.PaymentInstructions = []PaymentInstruction{{
			InstructionsNotes:   "Sign payloadToSign with the wallet's session key and send the signature in the Service-Wallet-Signature header of POST /quotes/{quoteId}/execute.",
			AccountOrWalletInfo: map[string]any{"accountType": "EMBEDDED_WALLET", "payloadToSign": q.PayloadToSign}}}
	}
	return out
}

// receivedOf is what a transaction's recipient receives: the receiving currency and
// amount of a conversion, the transaction's own otherwise.
func receivedOf(t db.Transaction) (string, int64) {
	if t.ReceivingCurrency != nil && t.ReceivingAmount != nil {
		return *t.ReceivingCurrency, *t.ReceivingAmount
	}
	return t.Currency, t.Amount
}

// Refund is the refund of a failed outgoing payment, or of a completed incoming payment
// its platform sent back.
type Refund struct {
	Reference   string     `json:"reference"`
	InitiatedAt time.Time  `json:"initiatedAt"`
	SettledAt   *time.Time `json:"settledAt,omitempty"`
	Status      string     `json:"status"`
	Reason      *string    `json:"reason,omitempty"`
}

// refundOf is a transaction's refund, nil when it has none.
func refundOf(t db.Transaction) *Refund {
	if t.RefundStatus == nil || t.RefundInitiatedAt == nil {
		return nil
	}
	return &Refund{Reference: strings.Replace(t.Reference, "PCT-", "PCR-", 1), InitiatedAt: *t.RefundInitiatedAt,
		SettledAt: t.RefundSettledAt, Status: *t.RefundStatus, Reason: t.RefundReason}
}
