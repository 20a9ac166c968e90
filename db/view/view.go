// Package view renders stored rows as the API's resources. The API answers with them and
// the activities put them in webhook events, so both always show the same shape.
package view

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/ids"
	"paycore/internal/money"
	"paycore/internal/quote"
	"paycore/internal/rail"

	"paycore/internal/catalog"
)

// CurrencyAmount is an amount in the smallest unit of a currency.
type CurrencyAmount struct {
	Amount   int64          `json:"amount"`
	Currency money.Currency `json:"currency"`
}

// AmountOf is amount in the currency with that code.
func AmountOf(amount int64, code string) CurrencyAmount {
	return CurrencyAmount{Amount: amount, Currency: currencyOf(code)}
}

// currencyOf is the catalogue currency of a code (the code alone for one the catalogue
// does not have).
func currencyOf(code string) money.Currency {
	if c, ok := money.Lookup(code); ok {
		return c
	}
	return money.Currency{Code: code}
}

// InternalAccount is an account held by the service for a customer or the platform.
type InternalAccount struct {
	ID                         string                `json:"id"`
	CustomerID                 string                `json:"customerId,omitempty"`
	Type                       catalog.AccountType   `json:"type"`
	Status                     catalog.AccountStatus `json:"status"`
	Balance                    CurrencyAmount        `json:"balance"`
	TotalBalance               CurrencyAmount        `json:"totalBalance"`
	FundingPaymentInstructions json.RawMessage       `json:"fundingPaymentInstructions"`
	PrivateEnabled             *bool                 `json:"privateEnabled,omitempty"`
	CreatedAt                  time.Time             `json:"createdAt"`
	UpdatedAt                  time.Time             `json:"updatedAt"`
}

// InternalAccountOf renders an account; the balance shown is what can be spent (posted
// balance minus funds held by pending transfers out), the total balance what is posted.
func InternalAccountOf(a db.InternalAccount, balance, held int64) InternalAccount {
	out := InternalAccount{ID: ids.Format(ids.InternalAccount, a.ID), Type: a.Type, Status: a.Status,
		Balance: AmountOf(balance-held, a.Currency), TotalBalance: AmountOf(balance, a.Currency), FundingPaymentInstructions: a.FundingInstructions,
		PrivateEnabled: a.PrivateEnabled, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	if a.CustomerID.Valid {
		out.CustomerID = ids.Format(ids.Customer, a.CustomerID.UUID)
	}
	return out
}

// TransactionEnd is the source or destination of a transaction.
type TransactionEnd struct {
	SourceType      string `json:"sourceType,omitempty"`
	DestinationType string `json:"destinationType,omitempty"`
	AccountID       string `json:"accountId,omitempty"`
	UmaAddress      string `json:"umaAddress,omitempty"`
	Currency        string `json:"currency"`
	CustomerID      string `json:"customerId,omitempty"`
	// Originator is who sent the deposit of a REALTIME_FUNDING source, as its rail
	// reported it (its fields sit on the source; nil: nothing known).
	*quote.Originator
	// OnChainTransaction is the on-chain transaction that delivered the money to an
	// external crypto wallet (a destination), or the crypto deposit that funded a quote (a
	// REALTIME_FUNDING source).
	OnChainTransaction *rail.OnChain `json:"onChainTransaction,omitempty"`
}

// FailureDetails says precisely why a transaction failed (an addition to failureReason).
type FailureDetails struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Transaction is one money movement.
type Transaction struct {
	ID                         string                    `json:"id"`
	Status                     catalog.TransactionStatus `json:"status"`
	Type                       catalog.TransactionType   `json:"type"`
	Direction                  catalog.Direction         `json:"direction"`
	Source                     TransactionEnd            `json:"source"`
	Destination                TransactionEnd            `json:"destination"`
	CustomerID                 string                    `json:"customerId"`
	PlatformCustomerID         string                    `json:"platformCustomerId"`
	SentAmount                 *CurrencyAmount           `json:"sentAmount,omitempty"`
	ReceivedAmount             CurrencyAmount            `json:"receivedAmount"`
	SettledAt                  *time.Time                `json:"settledAt,omitempty"`
	CreatedAt                  time.Time                 `json:"createdAt"`
	UpdatedAt                  time.Time                 `json:"updatedAt"`
	Description                *string                   `json:"description,omitempty"`
	ReconciliationInstructions *Reconciliation           `json:"reconciliationInstructions,omitempty"`
	FailureReason              *string                   `json:"failureReason,omitempty"`
	FailureDetails             *FailureDetails           `json:"failureDetails,omitempty"`
	// PendingReason is why a payment waiting at its rail is not settled yet (compliance
	// review, an action of the customer), while it waits.
	PendingReason *string `json:"pendingReason,omitempty"`
	// A conversion's terms (exchangeRate: sending units per receiving unit; fees in the
	// sending currency's smallest unit), its quote, and the refund of a failed payment.
	ExchangeRate *json.Number `json:"exchangeRate,omitempty"`
	Fees         *int64       `json:"fees,omitempty"`
	// PlatformFees is the platform's share of Fees (0: none), shown wherever Fees is.
	PlatformFees *int64 `json:"platformFees,omitempty"`
	QuoteID      string `json:"quoteId,omitempty"`
	// AgentID is the agent that initiated the transaction, when one did.
	AgentID                 string          `json:"agentId,omitempty"`
	RateDetails             json.RawMessage `json:"rateDetails,omitempty"`
	CounterpartyInformation json.RawMessage `json:"counterpartyInformation,omitempty"`
	Refund                  *Refund         `json:"refund,omitempty"`
	// The payment rail an outgoing payment to a bank account travels on, how it was chosen
	// (AUTO, MANUAL), when it is expected to settle (omitted for an instant rail) and its
	// usual timeline in seconds; all omitted where no network rail applies.
	PaymentRail               *string    `json:"paymentRail,omitempty"`
	RailSelectionMode         *string    `json:"railSelectionMode,omitempty"`
	ExpectedSettlementAt      *time.Time `json:"expectedSettlementAt,omitempty"`
	SettlementTimelineSeconds *int64     `json:"settlementTimelineSeconds,omitempty"`
}

// Reconciliation carries the reference that ties a transaction to bank statements.
type Reconciliation struct {
	Reference string `json:"reference"`
}

// TransactionReference is the reconciliation reference of a transaction.
func TransactionReference(id uuid.UUID) string {
	return "PCT-" + strings.ToUpper(strings.ReplaceAll(id.String(), "-", "")[:20])
}

func endOf(kind string, id uuid.NullUUID, currency string, source bool) TransactionEnd {
	e := TransactionEnd{Currency: currency}
	typ := "ACCOUNT"
	switch kind {
	case "INTERNAL":
		e.AccountID = ids.Format(ids.InternalAccount, id.UUID)
	case "EXTERNAL":
		e.AccountID = ids.Format(ids.ExternalAccount, id.UUID)
	case "REALTIME_FUNDING":
		typ = "REALTIME_FUNDING"
	case "UMA_ADDRESS":
		typ = "UMA_ADDRESS"
	}
	if source {
		e.SourceType = typ
	} else {
		e.DestinationType = typ
	}
	return e
}

// onChainOf decodes a stored on-chain transaction (nil: none, or not one).
func onChainOf(raw []byte) *rail.OnChain {
	var oc rail.OnChain
	if len(raw) == 0 || json.Unmarshal(raw, &oc) != nil {
		return nil
	}
	return &oc
}

// TransactionOf renders a transaction. The platform's own transactions have the platform
// id as customerId and an empty platformCustomerId.
func TransactionOf(t db.Transaction) Transaction {
	receivingCode, receiving := receivedOf(t)
	out := Transaction{ID: ids.Format(ids.Transaction, t.ID), Status: t.Status, Type: t.Type, Direction: t.Type.Direction(),
		Source:             endOf(t.SourceKind, t.SourceAccountID, t.Currency, true),
		Destination:        endOf(t.DestinationKind, t.DestinationAccountID, receivingCode, false),
		PlatformCustomerID: t.PlatformCustomerID, ReceivedAmount: AmountOf(receiving, receivingCode),
		SettledAt: t.SettledAt, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Description: t.Description,
		FailureReason: t.FailureReason, PendingReason: t.PendingReason, Fees: t.Fees, RateDetails: rateDetailsOf(t.RateDetails), CounterpartyInformation: t.CounterpartyInformation,
		Refund: refundOf(t), PaymentRail: t.PaymentRail, RailSelectionMode: t.RailSelectionMode, ExpectedSettlementAt: t.ExpectedSettlementAt,
		SettlementTimelineSeconds: t.SettlementTimelineSeconds}
	if t.Fees != nil {
		pf := db.Deref(t.PlatformFees)
		out.PlatformFees = &pf
	}
	if t.ExchangeRate.Valid {
		rate := json.Number(t.ExchangeRate.Decimal.String())
		out.ExchangeRate = &rate
	}
	if t.QuoteID.Valid {
		out.QuoteID = ids.Format(ids.Quote, t.QuoteID.UUID)
	}
	if t.AgentID.Valid {
		out.AgentID = ids.Format(ids.Agent, t.AgentID.UUID)
	}
	if t.SourceUmaAddress != nil {
		out.Source.UmaAddress = *t.SourceUmaAddress
	}
	if t.DestinationKind == string(catalog.EndpointExternal) {
		out.Destination.OnChainTransaction = onChainOf(t.DestinationOnChain)
	}
	if t.SourceKind == string(catalog.EndpointRealtimeFunding) {
		out.Source.OnChainTransaction = onChainOf(t.SourceOnChain)
	}
	if len(t.Originator) > 0 && t.SourceKind == string(catalog.EndpointRealtimeFunding) {
		var o quote.Originator
		if json.Unmarshal(t.Originator, &o) == nil {
			out.Source.Originator = &o
		}
	}
	if t.DestinationUmaAddress != nil {
		out.Destination.UmaAddress = *t.DestinationUmaAddress
	}
	if t.CustomerID.Valid {
		out.CustomerID = ids.Format(ids.Customer, t.CustomerID.UUID)
	} else {
		out.CustomerID = ids.Format(ids.Platform, t.PlatformID)
	}
	if t.Type == catalog.Outgoing {
		sent := AmountOf(t.Amount, t.Currency)
		out.SentAmount = &sent
	} else if t.SentCurrency != nil && t.SentAmount != nil {
		// What the payer sent a collecting rail (a UMA payment's satoshis).
		sent := AmountOf(*t.SentAmount, *t.SentCurrency)
		out.SentAmount = &sent
	}
	if t.Status != "CREATED" {
		out.ReconciliationInstructions = &Reconciliation{Reference: t.Reference}
	}
	if t.FailureDetail != nil {
		code, msg, _ := strings.Cut(*t.FailureDetail, ": ")
		out.FailureDetails = &FailureDetails{Code: code, Message: msg}
	}
	return out
}

// rateDetailsOf is stored rate details as shown: the service's parts also under the peer
// API's names (gridApiMultiplier, gridApiFixedFee, gridApiVariableFeeRate,
// gridApiVariableFeeAmount), which its clients require, with the same values. Details that
// do not decode are shown as stored.
func rateDetailsOf(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return raw
	}
	for _, part := range []string{"Multiplier", "FixedFee", "VariableFeeRate", "VariableFeeAmount"} {
		if v, ok := m["serviceApi"+part]; ok {
			if _, given := m["gridApi"+part]; !given {
				m["gridApi"+part] = v
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}
