package api

import (
	"net/http"
	"time"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/fx"
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
	acct, set, err := db.InternalAccountWithSettings(r.Context(), s.q, principalFrom(r.Context()).PlatformID, accountID)
	if err != nil {
		return err
	}
	e, err := fx.EstimateWithdrawal(s.rates(set.Environment), s.Config.FXPricing, wd, acct.InternalAccount.Currency, time.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view.WithdrawalEstimateOf(e))
	return nil
}
