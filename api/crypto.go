package api

import (
	"fmt"
	"net/http"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/fx"
	"paycore/internal/ids"
)

// estimateWithdrawalFee is POST /crypto/estimate-withdrawal-fee: what withdrawing an
// amount of an internal account's crypto currency to an address on a network costs, and
// what arrives. It reads the account (another platform's is 404) and changes nothing.
func (s *Server) estimateWithdrawalFee(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[fx.WithdrawalRequest](r)
	if err != nil {
		return err
	}
	wd, accountID, err := b.Check()
	if err != nil {
		return err
	}
	p := principalFrom(r.Context())
	acct, err := db.InternalAccountGet(r.Context(), s.Pool, db.InternalAccountGetParams{PlatformID: p.PlatformID, ID: accountID})
	if isNoRows(err) {
		return errAccountNotFound
	}
	if err != nil {
		return fmt.Errorf("get %s %s: %w", ids.InternalAccount, accountID, err)
	}
	e, err := fx.EstimateWithdrawal(s.rates(p.Sandbox), s.Config.FXPricing, wd, acct.InternalAccount.Currency, s.now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view.WithdrawalEstimateOf(e))
	return nil
}
