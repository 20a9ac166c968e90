package walletauth

import (
	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// CheckWalletAccount refuses credentials on accounts other than embedded wallets: only a
// self-custodial wallet has an owner to authenticate.
func CheckWalletAccount(t catalog.AccountType) error {
	if t != catalog.EmbeddedWallet {
		return problem.Field("accountId", "credentials authenticate EMBEDDED_WALLET accounts; this account is %s", t)
	}
	return nil
}

// CheckExportable refuses to export an account that is not an embedded wallet with key
// material.
func CheckExportable(t catalog.AccountType, hasKeyMaterial bool) error {
	if t != catalog.EmbeddedWallet || !hasKeyMaterial {
		return problem.Refuse(catalog.InvalidInput, "only EMBEDDED_WALLET accounts can be exported")
	}
	return nil
}
