package api

import (
	"fmt"
	"net/http"

	"github.com/tyler-smith/go-bip39"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/walletauth"
	"paycore/internal/walletcrypto"
)

// updateWalletAccount applies a PATCH to an embedded wallet once the signed retry checks out.
func (s *Server) updateWalletAccount(w http.ResponseWriter, r *http.Request, a db.InternalAccountGetRow, private bool) error {
	req := signedRequest{accountID: a.InternalAccount.ID, kind: walletauth.KindUpdateAccount}
	if answered, err := s.requireSignature(w, r, req); answered || err != nil {
		return err
	}
	updated, err := db.InternalAccountSetPrivate(r.Context(), s.Pool, db.InternalAccountSetPrivateParams{PlatformID: a.InternalAccount.PlatformID, ID: a.InternalAccount.ID, PrivateEnabled: &private})
	if err != nil {
		return fmt.Errorf("update wallet account: %w", err)
	}
	writeJSON(w, http.StatusOK, s.internalAccountView(r.Context(), principalFrom(r.Context()).environment(), updated, a.Balance, a.Held))
	return nil
}

// exportWallet seals the wallet's recovery phrase (BIP-39, from the key material created
// with the account) to the client key given in the request, by signed retry. The phrase is
// never logged or returned in clear.
func (s *Server) exportWallet(w http.ResponseWriter, r *http.Request) error {
	a, err := s.loadInternalAccount(r, "id")
	if err != nil {
		return err
	}
	clientKey, err := readClientKey(r)
	if err != nil {
		return err
	}
	if err := walletauth.CheckExportable(a.InternalAccount.Type, a.InternalAccount.WalletSealed != nil); err != nil {
		return err
	}
	req := signedRequest{accountID: a.InternalAccount.ID, kind: walletauth.KindExportWallet}
	if answered, err := s.requireSignature(w, r, req); answered || err != nil {
		return err
	}
	bundle, err := s.sealRecoveryPhrase(a.InternalAccount.WalletSealed, clientKey)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view.ExportedWallet{ID: ids.Format(ids.InternalAccount, a.InternalAccount.ID), EncryptedWalletCredentials: bundle})
	return nil
}

// sealRecoveryPhrase opens a wallet's sealed key material and seals its recovery phrase
// to the client key.
func (s *Server) sealRecoveryPhrase(sealed, clientKey []byte) (string, error) {
	entropy, err := s.Box.Open(walletSealLabel, sealed)
	if err != nil {
		return "", fmt.Errorf("open wallet key material: %w", err)
	}
	phrase, err := bip39.NewMnemonic(entropy)
	if err != nil {
		return "", fmt.Errorf("derive recovery phrase: %w", err)
	}
	return walletcrypto.SealBundle(clientKey, []byte(phrase))
}
