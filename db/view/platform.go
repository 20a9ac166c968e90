package view

import (
	"time"

	"paycore/db"
	"paycore/internal/ids"
	"paycore/internal/money"
	"paycore/internal/platformconfig"
	"paycore/internal/platformfee"
)

// PlatformConfig is the platform configuration resource.
type PlatformConfig struct {
	ID                              string                    `json:"id"`
	PlatformID                      string                    `json:"platformId"`
	UmaDomain                       string                    `json:"umaDomain"`
	ProxyUmaSubdomain               string                    `json:"proxyUmaSubdomain,omitempty"`
	WebhookEndpoint                 string                    `json:"webhookEndpoint,omitempty"`
	WebhookEndpointDisabledAt       *time.Time                `json:"webhookEndpointDisabledAt,omitempty"`
	SupportedCurrencies             []platformconfig.Currency `json:"supportedCurrencies"`
	IsRegulatedFinancialInstitution bool                      `json:"isRegulatedFinancialInstitution"`
	EmbeddedWalletConfig            *platformconfig.Wallet    `json:"embeddedWalletConfig,omitempty"`
	// EndUserTermsConsentRequired: customers move money only once their acceptance of the
	// End User Terms is recorded.
	EndUserTermsConsentRequired bool `json:"endUserTermsConsentRequired"`
	// FeeConfigs are the platform's standing fees, charged on top of the service's.
	FeeConfigs platformfee.Configs `json:"feeConfigs"`
	// UmaDomainProof is how the platform proves it controls umaDomain, which is served only
	// once proven (platformconfig.ProofPath).
	UmaDomainProof *UmaDomainProof `json:"umaDomainProof,omitempty"`
	CreatedAt      time.Time       `json:"createdAt"`
	UpdatedAt      time.Time       `json:"updatedAt"`
}

// PlatformConfigOf renders a platform's configuration: the supported currencies with the
// fields their payout providers need, and the embedded-wallet configuration. A stored
// document that does not decode is an error.
func PlatformConfigOf(p db.Platform) (PlatformConfig, error) {
	s, err := db.PlatformSettings(p)
	if err != nil {
		return PlatformConfig{}, err
	}
	fees, err := platformfee.Decode(p.FeeConfigs)
	if err != nil {
		return PlatformConfig{}, err
	}
	return PlatformConfig{FeeConfigs: fees,
		ID: ids.Format(ids.PlatformConfig, p.ConfigID), PlatformID: ids.Format(ids.Platform, p.ID), UmaDomain: p.UmaDomain,
		ProxyUmaSubdomain: p.ProxyUmaSubdomain, WebhookEndpoint: p.WebhookEndpoint, WebhookEndpointDisabledAt: p.WebhookDisabledAt,
		SupportedCurrencies: s.Currencies.WithProviderFields(), IsRegulatedFinancialInstitution: p.IsRegulatedFinancialInstitution,
		EmbeddedWalletConfig: s.Wallet, EndUserTermsConsentRequired: p.EndUserTermsRequired, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}, nil
}

// UmaDomainProof is the proof of a platform's umaDomain: PENDING until the domain publishes
// Token at URL and the platform asks the service to check (POST /config/uma-domain/verify),
// then VERIFIED.
type UmaDomainProof struct {
	Status     string     `json:"status"`
	Token      string     `json:"token"`
	URL        string     `json:"url"`
	VerifiedAt *time.Time `json:"verifiedAt,omitempty"`
}

// UmaDomainProofOf renders the proof of domain d.
func UmaDomainProofOf(p db.UmaDomainProof, url string) *UmaDomainProof {
	out := &UmaDomainProof{Status: "PENDING", Token: p.Token, URL: url, VerifiedAt: p.VerifiedAt}
	if p.VerifiedAt != nil {
		out.Status = "VERIFIED"
	}
	return out
}

// UmaProvider is one UMA provider a platform can discover.
type UmaProvider struct {
	Name                string           `json:"name"`
	Domain              string           `json:"domain"`
	LogoURL             string           `json:"logoUrl"`
	SupportedRegions    []string         `json:"supportedRegions"`
	SupportedCurrencies []money.Currency `json:"supportedCurrencies"`
	Lei                 string           `json:"lei"`
	AllowListStatus     bool             `json:"allowListStatus"`
}

// Vasp is one VASP of the directory (GET /vasps).
type Vasp struct {
	VaspName string `json:"vaspName"`
	URL      string `json:"url,omitempty"`
}

// VaspOf renders a provider as a VASP of the directory: its name and its domain's site.
func VaspOf(p db.UmaProvider) Vasp {
	return Vasp{VaspName: p.Name, URL: "https://" + p.Domain}
}

// UmaProviderOf renders a provider; currency codes the service does not know are left out.
func UmaProviderOf(p db.UmaProvider) UmaProvider {
	cur := make([]money.Currency, 0, len(p.SupportedCurrencies))
	for _, c := range p.SupportedCurrencies {
		if m, ok := money.Lookup(c); ok {
			cur = append(cur, m)
		}
	}
	return UmaProvider{Name: p.Name, Domain: p.Domain, LogoURL: p.LogoUrl, SupportedRegions: p.SupportedRegions,
		SupportedCurrencies: cur, Lei: p.Lei, AllowListStatus: p.AllowListStatus}
}
