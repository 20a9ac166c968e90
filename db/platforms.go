package db

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/kit/sealbox"
	"paycore/internal/kit/secrets"
	"paycore/internal/platformconfig"
	"paycore/internal/platformfee"
)

// IssuedToken is a freshly issued API token; Secret is shown once and never stored.
type IssuedToken struct {
	Token  ApiToken
	Secret string
}

// tokenIssue creates an API token with a fresh secret (only its digest is stored).
func tokenIssue(ctx context.Context, q *queries, platformID uuid.UUID, name string, perms []string) (IssuedToken, error) {
	secret, digest := secrets.New()
	row, err := q.TokenCreate(ctx, TokenCreateParams{ID: ids.New(), PlatformID: platformID, Name: name, Permissions: perms, SecretHash: digest})
	if err != nil {
		return IssuedToken{}, fmt.Errorf("create token: %w", err)
	}
	return IssuedToken{Token: row, Secret: secret}, nil
}

// TokenIssueForPlatform issues a token for an existing platform (the operator's command).
func TokenIssueForPlatform(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID, name string, perms []string) (IssuedToken, error) {
	var tok IssuedToken
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		if _, err := q.PlatformGet(ctx, platformID); err != nil {
			return fmt.Errorf("platform %s: %w", platformID, err)
		}
		var err error
		tok, err = tokenIssue(ctx, q, platformID, name, perms)
		return err
	})
	return tok, err
}

// PlatformProvision creates a checked platform in one transaction: the platform, its
// webhook secret, its own account of each currency it starts with, and a first token
// named "default" with tokenPerms (every platform always has at least one token).
func PlatformProvision(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, p platformconfig.Provisioning, tokenPerms []string) (Platform, IssuedToken, error) {
	currencies, err := json.Marshal(p.Currencies)
	if err != nil {
		return Platform{}, IssuedToken{}, fmt.Errorf("encode supported currencies: %w", err)
	}
	var plat Platform
	var tok IssuedToken
	err = withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		id := ids.New()
		if err := umaDomainClaim(ctx, q, id, p.UmaDomain); err != nil {
			return err
		}
		var err error
		plat, err = q.PlatformCreate(ctx, PlatformCreateParams{ID: id, Name: p.Name, Environment: p.Environment,
			IsRegulatedFinancialInstitution: p.IsRegulated, ConfigID: ids.New(), UmaDomain: p.UmaDomain, SupportedCurrencies: currencies})
		if err != nil {
			return MapConstraint(fmt.Errorf("create platform: %w", err))
		}
		if err := webhookSecretAdd(ctx, q, box, plat.ID); err != nil {
			return err
		}
		if err := platformAccountsEnsure(ctx, q, box, plat.ID, p.Currencies); err != nil {
			return err
		}
		tok, err = tokenIssue(ctx, q, plat.ID, "default", tokenPerms)
		return err
	})
	return plat, tok, err
}

// PlatformSettings decodes a platform's configuration as the rules of other domains read it.
func PlatformSettings(p Platform) (platformconfig.Settings, error) {
	s, err := platformconfig.Decode(p.UmaDomain, p.SupportedCurrencies, p.EmbeddedWalletConfig)
	if err != nil {
		return s, fmt.Errorf("platform %s: %w", p.ID, err)
	}
	s.Environment, s.Regulated = p.Environment, p.IsRegulatedFinancialInstitution
	return s, nil
}

// platformSettingsGet reads a platform's configuration as the rules of other domains read it.
func platformSettingsGet(ctx context.Context, q *queries, id uuid.UUID) (platformconfig.Settings, error) {
	p, err := q.PlatformGet(ctx, id)
	if err != nil {
		return platformconfig.Settings{}, fmt.Errorf("load platform: %w", err)
	}
	return PlatformSettings(p)
}

// PlatformConfigPatch applies a checked PATCH /config under the platform's row lock, in
// one transaction: the new configuration, the platform's own account of each currency
// it newly supports, and a TEST event to a new (or re-enabled) webhook endpoint, which
// the relay delivers after commit.
func PlatformConfigPatch(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, id uuid.UUID, ch platformconfig.Change) (Platform, error) {
	var updated Platform
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		p, err := q.PlatformGetForUpdate(ctx, id)
		if err != nil {
			return fmt.Errorf("lock platform: %w", err)
		}
		params, announce, err := configUpdate(p, ch)
		if err != nil {
			return err
		}
		if platformconfig.NormalDomain(params.UmaDomain) != platformconfig.NormalDomain(p.UmaDomain) {
			if err := umaDomainClaim(ctx, q, p.ID, params.UmaDomain); err != nil {
				return err
			}
		}
		if updated, err = q.PlatformUpdateConfig(ctx, params); err != nil {
			return MapConstraint(fmt.Errorf("update platform config: %w", err))
		}
		if ch.Currencies != nil {
			if err := platformAccountsEnsure(ctx, q, box, p.ID, ch.Currencies); err != nil {
				return err
			}
		}
		if announce {
			if _, err := eventRecord(ctx, q, p.ID, events.Test, map[string]any{}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	return updated, err
}

// umaDomainClaim lets platformconfig.CheckDomainClaim decide whether platform id may take
// domain, given who else holds it. Two claims at once both pass here; the unique index on
// the platforms' domains refuses the later one (MapConstraint: UMA_DOMAIN_TAKEN).
func umaDomainClaim(ctx context.Context, q *queries, id uuid.UUID, domain string) error {
	h, err := q.UmaDomainHolders(ctx, UmaDomainHoldersParams{Domain: domain, PlatformID: id})
	if err != nil {
		return fmt.Errorf("read who holds umaDomain %s: %w", domain, err)
	}
	return platformconfig.CheckDomainClaim(domain, platformconfig.DomainHolders{Platform: h.Platform, Customers: h.Customers})
}

// configUpdate is the stored configuration of p after ch; announce reports whether the
// webhook endpoint gets a TEST event. Documents ch leaves alone are kept as stored.
func configUpdate(p Platform, ch platformconfig.Change) (params PlatformUpdateConfigParams, announce bool, err error) {
	params = PlatformUpdateConfigParams{ID: p.ID, UmaDomain: p.UmaDomain, ProxyUmaSubdomain: p.ProxyUmaSubdomain,
		SupportedCurrencies: p.SupportedCurrencies, EmbeddedWalletConfig: p.EmbeddedWalletConfig, EndUserTermsRequired: p.EndUserTermsRequired,
		FeeConfigs: p.FeeConfigs}
	if ch.TermsRequired != nil {
		params.EndUserTermsRequired = *ch.TermsRequired
	}
	if ch.UmaDomain != nil {
		params.UmaDomain = *ch.UmaDomain
	}
	if ch.ProxyUmaSubdomain != nil {
		params.ProxyUmaSubdomain = *ch.ProxyUmaSubdomain
	}
	hook, announce := ch.ApplyWebhook(platformconfig.Webhook{Endpoint: p.WebhookEndpoint, DisabledAt: p.WebhookDisabledAt})
	params.WebhookEndpoint, params.WebhookDisabledAt = hook.Endpoint, hook.DisabledAt
	if ch.Currencies != nil {
		if params.SupportedCurrencies, err = json.Marshal(ch.Currencies); err != nil {
			return params, false, fmt.Errorf("encode supported currencies: %w", err)
		}
	}
	if ch.Fees != nil {
		stored, err := platformfee.Decode(p.FeeConfigs)
		if err != nil {
			return params, false, fmt.Errorf("platform %s: %w", p.ID, err)
		}
		currencies, err := platformconfig.DecodeCurrencies(params.SupportedCurrencies)
		if err != nil {
			return params, false, fmt.Errorf("platform %s: %w", p.ID, err)
		}
		fees, err := ch.ApplyFees(stored, currencies)
		if err != nil {
			return params, false, err
		}
		if params.FeeConfigs, err = json.Marshal(fees); err != nil {
			return params, false, fmt.Errorf("encode fee configs: %w", err)
		}
	}
	if ch.Wallet != nil {
		stored, err := platformconfig.DecodeWallet(p.EmbeddedWalletConfig)
		if err != nil {
			return params, false, fmt.Errorf("platform %s: %w", p.ID, err)
		}
		if params.EmbeddedWalletConfig, err = json.Marshal(ch.ApplyWallet(stored)); err != nil {
			return params, false, fmt.Errorf("encode embedded wallet config: %w", err)
		}
	}
	return params, announce, nil
}
