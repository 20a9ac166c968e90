// Package account holds the rules of internal accounts that do not need the ledger: which
// type of account a currency gets, which changes an account accepts, and when what the
// ledger holds of an account lets it close.
package account

import (
	"fmt"
	"strings"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/money"
	"paycore/internal/problem"
)

// WalletSealLabel is the sealbox label of embedded-wallet key material.
const WalletSealLabel = "embedded-wallet-entropy"

// Opening is an internal account to open: its currency and type.
type Opening struct {
	Currency string
	Type     catalog.AccountType
}

// TypeFor is the type of a customer's account in currency: fiat currencies get
// INTERNAL_FIAT; crypto gets an EMBEDDED_WALLET when the platform has embedded wallets,
// else INTERNAL_CRYPTO.
func TypeFor(currency string, embeddedWallets bool) catalog.AccountType {
	switch {
	case money.IsFiat(currency):
		return catalog.InternalFiat
	case embeddedWallets:
		return catalog.EmbeddedWallet
	default:
		return catalog.InternalCrypto
	}
}

// ForCustomer are the accounts a customer holding currencies gets.
func ForCustomer(currencies []string, embeddedWallets bool) []Opening {
	out := make([]Opening, 0, len(currencies))
	for _, c := range currencies {
		out = append(out, Opening{Currency: c, Type: TypeFor(c, embeddedWallets)})
	}
	return out
}

// ForPlatform is the platform's own account in currency: the platform never holds an
// embedded wallet.
func ForPlatform(currency string) Opening {
	if money.IsCrypto(currency) {
		return Opening{Currency: currency, Type: catalog.InternalCrypto}
	}
	return Opening{Currency: currency, Type: catalog.InternalFiat}
}

// CheckPrivatePatch checks a change of privateEnabled on an account of type typ: the
// member is required and belongs to embedded wallets.
func CheckPrivatePatch(typ catalog.AccountType, privateEnabled *bool) error {
	if privateEnabled == nil {
		return problem.Refuse(catalog.InvalidInput, "send at least one field to update (privateEnabled)")
	}
	if typ != catalog.EmbeddedWallet {
		return problem.Field("privateEnabled", "privateEnabled applies only to EMBEDDED_WALLET accounts; this account is %s", typ)
	}
	return nil
}

// CustomerAccountExists is the refusal of a second open account of one currency and type
// for a customer.
func CustomerAccountExists() error {
	return problem.Refuse(catalog.Conflict, "the customer already has an open account of this currency and type")
}

// PlatformAccountExists is the refusal of a second account of one currency and type for a
// platform.
func PlatformAccountExists() error {
	return problem.Refuse(catalog.Conflict, "the platform already has an account of this currency and type")
}

// Contents is what an internal account holds when its close is checked (under the lock
// every posting takes): its posted Balance and the part of it Held by pending transfers out,
// in the currency's smallest unit, and the Incoming transactions still on their way in.
type Contents struct {
	AccountID uuid.UUID
	Currency  string
	Balance   int64
	Held      int64
	Incoming  int64
}

// CheckClose is the rule of closing an internal account: it closes only when it holds
// nothing, has nothing held and nothing on its way in. Otherwise 409 ACCOUNT_NOT_EMPTY says
// why in words and carries the contents in its details.
func CheckClose(c Contents) error {
	if c.Balance == 0 && c.Held == 0 && c.Incoming == 0 {
		return nil
	}
	id := ids.Format(ids.InternalAccount, c.AccountID)
	return problem.Refuse(catalog.AccountNotEmpty, "the %s account %s cannot be closed: %s; move the money out and let pending transfers finish first",
		c.Currency, id, c.reason()).
		With(map[string]any{"accountId": id, "currency": c.Currency, "balance": c.Balance, "held": c.Held, "pendingIncomingTransactions": c.Incoming})
}

// reason lists, in words, everything that keeps the account open.
func (c Contents) reason() string {
	var why []string
	if c.Balance != 0 {
		why = append(why, fmt.Sprintf("it holds a balance of %d (smallest unit of %s)", c.Balance, c.Currency))
	}
	if c.Held != 0 {
		why = append(why, fmt.Sprintf("%d of it is held by pending transfers out", c.Held))
	}
	if c.Incoming == 1 {
		why = append(why, "1 incoming transaction to it is still pending")
	} else if c.Incoming > 1 {
		why = append(why, fmt.Sprintf("%d incoming transactions to it are still pending", c.Incoming))
	}
	return strings.Join(why, "; ")
}

// Closed is the refusal of a movement of money that touches a CLOSED internal account: a
// closed account never receives, holds or sends money.
func Closed() error {
	return problem.Refuse(catalog.InvalidInput, "the internal account is CLOSED and can neither receive nor send money")
}

// NotFound is the refusal of an internal account the caller's platform does not have
// (another platform's included): 404 ACCOUNT_NOT_FOUND.
func NotFound() error { return problem.NotFound(catalog.AccountNotFound, "internal account") }

// BalanceTooLow is the ledger's refusal of a movement that would take an account's
// available balance below zero: INSUFFICIENT_FUNDS on amount. (The payment's own rule,
// checked first under the same lock, names the amount; the ledger refuses only when a rule
// let it through.)
func BalanceTooLow() error {
	return problem.FieldCode(catalog.InsufficientFunds, "amount", "the account's available balance is too low")
}

// SignatureRequired is the ledger's refusal of money leaving an embedded wallet without
// the customer's wallet signature bound to the payment: WALLET_SIGNATURE_REQUIRED.
func SignatureRequired() error {
	return problem.Refuse(catalog.WalletSignatureRequired, "moving money out of an embedded wallet needs the customer's wallet signature")
}
