// Package account holds the rules of internal accounts that do not need the ledger: which
// type of account a currency gets, and which changes an account accepts.
package account

import (
	"paycore/internal/catalog"
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

// NotFound is the refusal of an internal account the caller's platform does not have
// (another platform's included): 404 ACCOUNT_NOT_FOUND.
func NotFound() error { return problem.NotFound(catalog.AccountNotFound, "internal account") }
