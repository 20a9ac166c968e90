package api

import (
	"context"
	"fmt"
	"net/http"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/infra/netguard"
	"paycore/internal/platformconfig"
)

// The stored configuration documents (platformconfig decodes them) as the API names them.
type (
	// CurrencyConfig is one item of PlatformConfig.supportedCurrencies.
	CurrencyConfig = platformconfig.Currency
	// EmbeddedWalletConfig configures embedded-wallet e-mails, OTPs, sessions, passkeys and OIDC.
	EmbeddedWalletConfig = platformconfig.Wallet
	// OIDCProvider is an identity provider OAUTH credentials may come from.
	OIDCProvider = platformconfig.OIDCProvider
	// PlatformConfig is the platform configuration resource (rendered by db/view).
	PlatformConfig = view.PlatformConfig
)

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) error {
	p, err := db.PlatformGet(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID)
	if err != nil {
		return fmt.Errorf("load platform: %w", err)
	}
	return s.writeConfig(r.Context(), w, p)
}

// writeConfig renders a platform's configuration, with the proof of its umaDomain (its
// token made on first use).
func (s *Server) writeConfig(ctx context.Context, w http.ResponseWriter, p db.Platform) error {
	c, err := view.PlatformConfigOf(p)
	if err != nil {
		return err
	}
	proof, err := s.store.UmaDomainProof(ctx, p.ID, p.UmaDomain, platformconfig.NewProofToken, s.now())
	if err != nil {
		return err
	}
	c.UmaDomainProof = view.UmaDomainProofOf(proof, umaDomainProofURL(p.UmaDomain))
	writeJSON(w, http.StatusOK, c)
	return nil
}

// patchConfig checks the patch (platformconfig.CheckPatch), then what needs the network
// (the OIDC providers' discovery, the webhook endpoint's address), and applies it.
func (s *Server) patchConfig(w http.ResponseWriter, r *http.Request) error {
	body, err := ReadJSON[platformconfig.Patch](r)
	if err != nil {
		return err
	}
	ch, err := platformconfig.CheckPatch(body)
	if err != nil {
		return err
	}
	pr := principalFrom(r.Context())
	if ch.Wallet != nil && ch.Wallet.OidcProviders != nil {
		if err := s.validateProviders(r.Context(), *ch.Wallet.OidcProviders, pr.Sandbox); err != nil {
			return err
		}
	}
	if ch.WebhookEndpoint != nil && *ch.WebhookEndpoint != "" {
		allowPrivate := pr.Sandbox && s.Config.SandboxPrivateOK
		if err := netguard.ValidateURL(r.Context(), s.Resolver, *ch.WebhookEndpoint, !pr.Sandbox, allowPrivate); err != nil {
			return invalidField("webhookEndpoint", "webhookEndpoint refused: %v", err)
		}
	}
	updated, err := db.PlatformConfigPatch(r.Context(), s.Pool, s.Box, pr.PlatformID, ch)
	if err != nil {
		return err
	}
	return s.writeConfig(r.Context(), w, updated)
}
