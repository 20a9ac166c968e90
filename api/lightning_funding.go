package api

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/infra/lightningrail"
	"paycore/internal/infra/lnd"
	"paycore/internal/lightning"
	"paycore/internal/rail"
)

// internalAccountView renders an internal account of the caller's platform (in the
// environment env) with its funding instructions, which for a BTC account whose
// payments go through the deployment's Lightning node include the account's Lightning
// invoice (withLightningInvoice).
func (s *Server) internalAccountView(ctx context.Context, env catalog.Environment, a db.InternalAccount, balance, held int64) view.InternalAccount {
	v := view.InternalAccountOf(a, balance, held)
	if invoice, ok := s.lightningInvoice(ctx, env, a); ok {
		v.FundingPaymentInstructions = appendInstruction(v.FundingPaymentInstructions, lightning.FundingInstruction(invoice, !a.CustomerID.Valid))
	}
	return v
}

// lightningInvoice is the account's open funding invoice: the one the node created for it
// earlier while it stays payable for an hour more (lightning.FundingInvoiceReuse), else a
// new amountless one the node creates now (payable for a day). None when the account is
// not an open BTC account, when its platform's BTC payments do not go through the
// Lightning rail, or when the node cannot be reached (logged: the instructions are shown
// without it).
func (s *Server) lightningInvoice(ctx context.Context, env catalog.Environment, a db.InternalAccount) (string, bool) {
	if !lightning.Funded(a.Currency, a.Status) || !s.receivesOverLightning(env, a.PlatformID) {
		return "", false
	}
	now := s.now()
	if pr, ok, err := s.store.LightningFundingInvoice(ctx, a.ID, now.Add(lightning.FundingInvoiceReuse)); err != nil || ok {
		if err != nil {
			s.Logger.WarnContext(ctx, "lightning: read the funding invoice", "account", a.ID, "error", err)
		}
		return pr, ok
	}
	inv, err := s.Lightning.AddInvoice(ctx, lnd.NewInvoice{Memo: "Fund " + ids.Format(ids.InternalAccount, a.ID), Expiry: lightning.FundingInvoiceExpiry})
	if err != nil {
		s.Logger.WarnContext(ctx, "lightning: create a funding invoice", "account", a.ID, "error", err)
		return "", false
	}
	if err := s.store.LightningInvoiceAdd(ctx, lightning.FundingInvoice{Hash: inv.RHash, PlatformID: a.PlatformID, AccountID: a.ID,
		PaymentRequest: inv.PaymentRequest, ExpiresAt: now.Add(lightning.FundingInvoiceExpiry), CreatedAt: now}); err != nil {
		s.Logger.WarnContext(ctx, "lightning: record a funding invoice", "account", a.ID, "error", err)
		return "", false
	}
	return inv.PaymentRequest, true
}

// receivesOverLightning reports whether the deployment's Lightning node receives the BTC
// payments of a platform (of env): a node is configured, and the platform's BTC payments go
// to the Lightning rail.
func (s *Server) receivesOverLightning(env catalog.Environment, platform uuid.UUID) bool {
	if s.Lightning == nil {
		return false
	}
	rl, ok := s.Rails.For(rail.Target{Environment: env, Platform: platform, Currency: "BTC", Kind: rail.ExternalAccount, AccountType: "LIGHTNING"})
	return ok && rl.Name() == lightningrail.Name
}

// appendInstruction adds one PaymentInstructions item to a JSON array of them.
func appendInstruction(list json.RawMessage, item map[string]any) json.RawMessage {
	var items []any
	if len(list) > 0 {
		if err := json.Unmarshal(list, &items); err != nil {
			return list
		}
	}
	out, err := json.Marshal(append(items, item))
	if err != nil {
		return list
	}
	return out
}
