package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/fx"
	"paycore/internal/ids"
	"paycore/internal/problem"
	"paycore/internal/rail"
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
	if wd.ProbedFee, err = s.probeLightningFee(r.Context(), p.environment(), p.PlatformID, wd); err != nil {
		return err
	}
	e, err := fx.EstimateWithdrawal(s.rates(p.Sandbox), s.Config.FXPricing, wd, acct.InternalAccount.Currency, s.now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view.WithdrawalEstimateOf(e))
	return nil
}

// probeLightningFee is the network fee the rail that would pay a Lightning withdrawal
// finds by probing its route (the Lightning rail: the routing fee to the invoice, in
// satoshis); nil (the typical fee) where the rail does not probe. A probe that finds the
// destination cannot be paid refuses the estimate.
func (s *Server) probeLightningFee(ctx context.Context, env catalog.Environment, platform uuid.UUID, wd fx.Withdrawal) (*int64, error) {
	if wd.Network != "LIGHTNING" {
		return nil, nil
	}
	in := rail.Instruction{Environment: env, Platform: platform, Currency: wd.Currency.Code, Kind: rail.ExternalAccount, AccountType: "LIGHTNING",
		Identifier: wd.Destination, Amount: wd.Amount}
	rl, ok := s.Rails.For(in.Target())
	prober, can := rl.(rail.FeeProber)
	if !ok || !can {
		return nil, nil
	}
	fee, probed, err := prober.ProbeFee(ctx, in)
	if unpayable := (*rail.Unpayable)(nil); errors.As(err, &unpayable) {
		return nil, problem.Field("destinationAddress", "destinationAddress cannot be paid: %s", unpayable.Reason)
	}
	if err != nil {
		return nil, fmt.Errorf("probe the fee of a Lightning withdrawal: %w", err)
	}
	if !probed {
		return nil, nil
	}
	return &fee, nil
}
