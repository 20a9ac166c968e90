package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"paycore/db"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/money"
	"paycore/internal/netguard"
	"paycore/internal/walletauth"
)

// CounterpartyField is one required counterparty field of a currency.
type CounterpartyField struct {
	Name      string `json:"name"`
	Mandatory *bool  `json:"mandatory"`
}

// CurrencyConfig is one item of PlatformConfig.supportedCurrencies.
type CurrencyConfig struct {
	CurrencyCode                               string              `json:"currencyCode"`
	MinAmount                                  int64               `json:"minAmount"`
	MaxAmount                                  int64               `json:"maxAmount"`
	EnabledTransactionTypes                    []string            `json:"enabledTransactionTypes"`
	RequiredCounterpartyFields                 []CounterpartyField `json:"requiredCounterpartyFields"`
	ProviderRequiredCustomerFields             []string            `json:"providerRequiredCustomerFields"`
	ProviderRequiredCounterpartyCustomerFields []string            `json:"providerRequiredCounterpartyCustomerFields"`
}

// EmbeddedWalletConfig configures embedded-wallet e-mails and OTPs.
type EmbeddedWalletConfig struct {
	AppName                 *string `json:"appName,omitempty"`
	OtpLength               *int    `json:"otpLength,omitempty"`
	Alphanumeric            *bool   `json:"alphanumeric,omitempty"`
	ExpirationSeconds       *int    `json:"expirationSeconds,omitempty"`
	SendFromEmailAddress    *string `json:"sendFromEmailAddress,omitempty"`
	SendFromEmailSenderName *string `json:"sendFromEmailSenderName,omitempty"`
	ReplyToEmailAddress     *string `json:"replyToEmailAddress,omitempty"`
	LogoURL                 *string `json:"logoUrl,omitempty"`
	// OidcProviders are the identity providers OAUTH credentials may come from.
	OidcProviders *[]OIDCProvider `json:"oidcProviders,omitempty"`
	// SessionExpirationSeconds is the lifetime of wallet sessions (default 900).
	SessionExpirationSeconds *int `json:"sessionExpirationSeconds,omitempty"`
	// PasskeyRpID and PasskeyOrigins define the WebAuthn relying party of PASSKEY credentials.
	PasskeyRpID    *string   `json:"passkeyRpId,omitempty"`
	PasskeyOrigins *[]string `json:"passkeyOrigins,omitempty"`
}

// PlatformConfig is the platform configuration resource.
type PlatformConfig struct {
	ID                              string                `json:"id"`
	PlatformID                      string                `json:"platformId"`
	UmaDomain                       string                `json:"umaDomain"`
	ProxyUmaSubdomain               string                `json:"proxyUmaSubdomain,omitempty"`
	WebhookEndpoint                 string                `json:"webhookEndpoint,omitempty"`
	WebhookEndpointDisabledAt       *time.Time            `json:"webhookEndpointDisabledAt,omitempty"`
	SupportedCurrencies             []CurrencyConfig      `json:"supportedCurrencies"`
	IsRegulatedFinancialInstitution bool                  `json:"isRegulatedFinancialInstitution"`
	EmbeddedWalletConfig            *EmbeddedWalletConfig `json:"embeddedWalletConfig,omitempty"`
	CreatedAt                       time.Time             `json:"createdAt"`
	UpdatedAt                       time.Time             `json:"updatedAt"`
}

// customerInfoFields is the CustomerInfoFieldName enum.
var customerInfoFields = []string{"FULL_NAME", "BIRTH_DATE", "NATIONALITY", "PHONE_NUMBER", "EMAIL", "POSTAL_ADDRESS",
	"TAX_ID", "REGISTRATION_NUMBER", "USER_TYPE", "COUNTRY_OF_RESIDENCE", "ACCOUNT_IDENTIFIER", "FI_LEGAL_ENTITY_NAME",
	"FI_ADDRESS", "PURPOSE_OF_PAYMENT", "ULTIMATE_INSTITUTION_COUNTRY", "IDENTIFIER", "BUSINESS_TYPE", "COMPANY_LEGAL_NAME"}

var transactionTypes = []string{"INCOMING", "OUTGOING"}

// providerFields are the read-only fields the payout providers need per currency.
func providerFields(code string) (customer, counterparty []string) {
	if money.IsCrypto(code) {
		return []string{"FULL_NAME", "COUNTRY_OF_RESIDENCE"}, []string{"FULL_NAME"}
	}
	customer = []string{"FULL_NAME", "BIRTH_DATE", "NATIONALITY", "POSTAL_ADDRESS"}
	counterparty = []string{"FULL_NAME"}
	switch code {
	case "INR":
		counterparty = append(counterparty, "PURPOSE_OF_PAYMENT")
	case "BRL", "MXN", "COP":
		counterparty = append(counterparty, "TAX_ID")
	}
	return customer, counterparty
}

func platformConfigOf(p db.Platform) (PlatformConfig, error) {
	c := PlatformConfig{
		ID: ids.Format(ids.PlatformConfig, p.ConfigID), PlatformID: ids.Format(ids.Platform, p.ID), UmaDomain: p.UmaDomain, ProxyUmaSubdomain: p.ProxyUmaSubdomain,
		WebhookEndpoint: p.WebhookEndpoint, WebhookEndpointDisabledAt: p.WebhookDisabledAt,
		IsRegulatedFinancialInstitution: p.IsRegulatedFinancialInstitution, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
	if err := json.Unmarshal(p.SupportedCurrencies, &c.SupportedCurrencies); err != nil {
		return c, fmt.Errorf("decode supported currencies of platform %s: %w", p.ID, err)
	}
	for i := range c.SupportedCurrencies {
		cc := &c.SupportedCurrencies[i]
		cc.ProviderRequiredCustomerFields, cc.ProviderRequiredCounterpartyCustomerFields = providerFields(cc.CurrencyCode)
	}
	if len(p.EmbeddedWalletConfig) > 0 && string(p.EmbeddedWalletConfig) != "null" {
		c.EmbeddedWalletConfig = &EmbeddedWalletConfig{}
		if err := json.Unmarshal(p.EmbeddedWalletConfig, c.EmbeddedWalletConfig); err != nil {
			return c, fmt.Errorf("decode embedded wallet config of platform %s: %w", p.ID, err)
		}
	}
	return c, nil
}

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) error {
	p, err := s.q.PlatformGet(r.Context(), principalFrom(r.Context()).PlatformID)
	if err != nil {
		return fmt.Errorf("load platform: %w", err)
	}
	c, err := platformConfigOf(p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// configPatch is the PATCH /config body. Read-only fields are captured so they can be
// refused by name instead of as unknown fields.
type configPatch struct {
	UmaDomain            *string               `json:"umaDomain"`
	ProxyUmaSubdomain    *string               `json:"proxyUmaSubdomain"`
	WebhookEndpoint      *string               `json:"webhookEndpoint"`
	SupportedCurrencies  *[]currencyPatch      `json:"supportedCurrencies"`
	EmbeddedWalletConfig *EmbeddedWalletConfig `json:"embeddedWalletConfig"`

	ID                              json.RawMessage `json:"id"`
	CreatedAt                       json.RawMessage `json:"createdAt"`
	UpdatedAt                       json.RawMessage `json:"updatedAt"`
	IsRegulatedFinancialInstitution json.RawMessage `json:"isRegulatedFinancialInstitution"`
	WebhookEndpointDisabledAt       json.RawMessage `json:"webhookEndpointDisabledAt"`
}

type currencyPatch struct {
	CurrencyCode                               *string              `json:"currencyCode"`
	MinAmount                                  *int64               `json:"minAmount"`
	MaxAmount                                  *int64               `json:"maxAmount"`
	EnabledTransactionTypes                    *[]string            `json:"enabledTransactionTypes"`
	RequiredCounterpartyFields                 *[]CounterpartyField `json:"requiredCounterpartyFields"`
	ProviderRequiredCustomerFields             json.RawMessage      `json:"providerRequiredCustomerFields"`
	ProviderRequiredCounterpartyCustomerFields json.RawMessage      `json:"providerRequiredCounterpartyCustomerFields"`
}

func (s *Server) patchConfig(w http.ResponseWriter, r *http.Request) error {
	body, err := ReadJSON[configPatch](r)
	if err != nil {
		return err
	}
	for name, v := range map[string]json.RawMessage{"id": body.ID, "createdAt": body.CreatedAt, "updatedAt": body.UpdatedAt,
		"isRegulatedFinancialInstitution": body.IsRegulatedFinancialInstitution, "webhookEndpointDisabledAt": body.WebhookEndpointDisabledAt} {
		if v != nil {
			if name == "isRegulatedFinancialInstitution" {
				return invalidField(name, "isRegulatedFinancialInstitution is read-only: only the service operator sets it, at platform creation")
			}
			return invalidField(name, "%s is read-only", name)
		}
	}
	var currencies []CurrencyConfig
	if body.SupportedCurrencies != nil {
		if currencies, err = validateCurrencies(*body.SupportedCurrencies); err != nil {
			return err
		}
	}
	if body.UmaDomain != nil {
		if err := checkDomain(*body.UmaDomain); err != nil {
			return invalidField("umaDomain", "umaDomain %v", err)
		}
	}
	if body.ProxyUmaSubdomain != nil && *body.ProxyUmaSubdomain != "" && !dnsLabel.MatchString(*body.ProxyUmaSubdomain) {
		return invalidField("proxyUmaSubdomain", "proxyUmaSubdomain must be a DNS label: lower-case letters, digits and inner hyphens, at most 63 characters")
	}
	pr := principalFrom(r.Context())
	if body.EmbeddedWalletConfig != nil {
		if err := validateWalletConfig(body.EmbeddedWalletConfig); err != nil {
			return err
		}
		if body.EmbeddedWalletConfig.OidcProviders != nil {
			if err := s.validateProviders(r.Context(), *body.EmbeddedWalletConfig.OidcProviders, pr.Sandbox); err != nil {
				return err
			}
		}
	}
	if body.WebhookEndpoint != nil && *body.WebhookEndpoint != "" {
		allowPrivate := pr.Sandbox && s.Config.SandboxPrivateOK
		if err := netguard.ValidateURL(r.Context(), s.Resolver, *body.WebhookEndpoint, !pr.Sandbox, allowPrivate); err != nil {
			return invalidField("webhookEndpoint", "webhookEndpoint refused: %v", err)
		}
	}
	var updated db.Platform
	err = db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		p, err := q.PlatformGetForUpdate(r.Context(), pr.PlatformID)
		if err != nil {
			return fmt.Errorf("lock platform: %w", err)
		}
		params := db.PlatformUpdateConfigParams{
			ID: p.ID, UmaDomain: p.UmaDomain, ProxyUmaSubdomain: p.ProxyUmaSubdomain, WebhookEndpoint: p.WebhookEndpoint,
			WebhookDisabledAt: p.WebhookDisabledAt, SupportedCurrencies: p.SupportedCurrencies, EmbeddedWalletConfig: p.EmbeddedWalletConfig,
		}
		if body.UmaDomain != nil {
			params.UmaDomain = *body.UmaDomain
		}
		if body.ProxyUmaSubdomain != nil {
			params.ProxyUmaSubdomain = *body.ProxyUmaSubdomain
		}
		endpointChanged := false
		if body.WebhookEndpoint != nil {
			endpointChanged = *body.WebhookEndpoint != p.WebhookEndpoint || p.WebhookDisabledAt != nil
			params.WebhookEndpoint = *body.WebhookEndpoint
			params.WebhookDisabledAt = nil // setting the endpoint (again) re-enables it
		}
		if currencies != nil {
			params.SupportedCurrencies, _ = json.Marshal(currencies)
		}
		if body.EmbeddedWalletConfig != nil {
			merged := EmbeddedWalletConfig{}
			if len(p.EmbeddedWalletConfig) > 0 {
				_ = json.Unmarshal(p.EmbeddedWalletConfig, &merged)
			}
			mergeWalletConfig(&merged, body.EmbeddedWalletConfig)
			params.EmbeddedWalletConfig, _ = json.Marshal(merged)
		}
		updated, err = q.PlatformUpdateConfig(r.Context(), params)
		if err != nil {
			return fmt.Errorf("update platform config: %w", err)
		}
		if currencies != nil {
			if err := ensurePlatformAccounts(r.Context(), q, s.Box, updated); err != nil {
				return err
			}
		}
		if endpointChanged && params.WebhookEndpoint != "" {
			// A new endpoint gets a one-off TEST event, delivered by the relay after commit.
			if _, err := db.EventRecord(r.Context(), q, p.ID, events.Test, map[string]any{}, false); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c, err := platformConfigOf(updated)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

func validateCurrencies(in []currencyPatch) ([]CurrencyConfig, error) {
	out := make([]CurrencyConfig, 0, len(in))
	seen := map[string]bool{}
	for i, c := range in {
		f := func(name string) string { return fmt.Sprintf("supportedCurrencies[%d].%s", i, name) }
		// providerRequiredCustomerFields and providerRequiredCounterpartyCustomerFields are
		// read-only: accepted (a client may send back what GET /config answered) and ignored.
		switch {
		case c.CurrencyCode == nil:
			return nil, invalidField(f("currencyCode"), "%s is required", f("currencyCode"))
		case c.MinAmount == nil:
			return nil, invalidField(f("minAmount"), "%s is required", f("minAmount"))
		case c.MaxAmount == nil:
			return nil, invalidField(f("maxAmount"), "%s is required", f("maxAmount"))
		case c.EnabledTransactionTypes == nil:
			return nil, invalidField(f("enabledTransactionTypes"), "%s is required", f("enabledTransactionTypes"))
		case c.RequiredCounterpartyFields == nil:
			return nil, invalidField(f("requiredCounterpartyFields"), "%s is required (it may be an empty array)", f("requiredCounterpartyFields"))
		}
		if _, ok := money.Lookup(*c.CurrencyCode); !ok {
			return nil, invalidField(f("currencyCode"), "%s: %q is not a supported ISO 4217 code or crypto ticker", f("currencyCode"), *c.CurrencyCode)
		}
		if seen[*c.CurrencyCode] {
			return nil, invalidField(f("currencyCode"), "currency %s is listed twice", *c.CurrencyCode)
		}
		seen[*c.CurrencyCode] = true
		if *c.MinAmount < 0 || *c.MaxAmount < 0 {
			return nil, invalidField(f("minAmount"), "%s: amounts must not be negative", f(""))
		}
		if *c.MinAmount > *c.MaxAmount {
			return nil, invalidField(f("minAmount"), "%s (%d) must not exceed maxAmount (%d)", f("minAmount"), *c.MinAmount, *c.MaxAmount)
		}
		if len(*c.EnabledTransactionTypes) == 0 {
			return nil, invalidField(f("enabledTransactionTypes"), "%s must list INCOMING, OUTGOING or both", f("enabledTransactionTypes"))
		}
		types := map[string]bool{}
		for _, t := range *c.EnabledTransactionTypes {
			if !slices.Contains(transactionTypes, t) {
				return nil, invalidField(f("enabledTransactionTypes"), "%s: unknown transaction type %q (allowed: INCOMING, OUTGOING)", f("enabledTransactionTypes"), t)
			}
			if types[t] {
				return nil, invalidField(f("enabledTransactionTypes"), "%s lists %s twice", f("enabledTransactionTypes"), t)
			}
			types[t] = true
		}
		names := map[string]bool{}
		for j, rf := range *c.RequiredCounterpartyFields {
			if !slices.Contains(customerInfoFields, rf.Name) {
				return nil, invalidField(fmt.Sprintf("%s[%d].name", f("requiredCounterpartyFields"), j),
					"%s[%d].name: unknown field name %q", f("requiredCounterpartyFields"), j, rf.Name)
			}
			if rf.Mandatory == nil {
				return nil, invalidField(fmt.Sprintf("%s[%d].mandatory", f("requiredCounterpartyFields"), j),
					"%s[%d].mandatory is required", f("requiredCounterpartyFields"), j)
			}
			if names[rf.Name] {
				return nil, invalidField(f("requiredCounterpartyFields"), "%s lists %s twice", f("requiredCounterpartyFields"), rf.Name)
			}
			names[rf.Name] = true
		}
		out = append(out, CurrencyConfig{
			CurrencyCode: *c.CurrencyCode, MinAmount: *c.MinAmount, MaxAmount: *c.MaxAmount,
			EnabledTransactionTypes: *c.EnabledTransactionTypes, RequiredCounterpartyFields: *c.RequiredCounterpartyFields,
		})
	}
	return out, nil
}

func validateWalletConfig(c *EmbeddedWalletConfig) error {
	if c.AppName != nil && (len(*c.AppName) == 0 || len(*c.AppName) > 255) {
		return invalidField("embeddedWalletConfig.appName", "embeddedWalletConfig.appName must be 1 to 255 characters")
	}
	if c.OtpLength != nil && (*c.OtpLength < walletauth.MinOTPLength || *c.OtpLength > walletauth.MaxOTPLength) {
		return invalidField("embeddedWalletConfig.otpLength", "embeddedWalletConfig.otpLength must be from %d to %d: shorter codes are too easy to guess",
			walletauth.MinOTPLength, walletauth.MaxOTPLength)
	}
	if c.ExpirationSeconds != nil && (*c.ExpirationSeconds < 1 || *c.ExpirationSeconds > 86400) {
		return invalidField("embeddedWalletConfig.expirationSeconds", "embeddedWalletConfig.expirationSeconds must be from 1 to 86400")
	}
	for name, v := range map[string]*string{"sendFromEmailAddress": c.SendFromEmailAddress, "replyToEmailAddress": c.ReplyToEmailAddress} {
		if v == nil {
			continue
		}
		if a, err := mail.ParseAddress(*v); err != nil || a.Address != *v || len(*v) > 255 {
			return invalidField("embeddedWalletConfig."+name, "embeddedWalletConfig.%s must be a plain e-mail address", name)
		}
	}
	if c.SendFromEmailSenderName != nil && len(*c.SendFromEmailSenderName) > 255 {
		return invalidField("embeddedWalletConfig.sendFromEmailSenderName", "embeddedWalletConfig.sendFromEmailSenderName must be at most 255 characters")
	}
	if c.SessionExpirationSeconds != nil && (*c.SessionExpirationSeconds < 60 || *c.SessionExpirationSeconds > 86400) {
		return invalidField("embeddedWalletConfig.sessionExpirationSeconds", "embeddedWalletConfig.sessionExpirationSeconds must be from 60 to 86400")
	}
	if c.PasskeyRpID != nil && checkDomain(*c.PasskeyRpID) != nil && *c.PasskeyRpID != "localhost" {
		return invalidField("embeddedWalletConfig.passkeyRpId", "embeddedWalletConfig.passkeyRpId must be a domain such as wallet.example.com")
	}
	if c.PasskeyOrigins != nil {
		if len(*c.PasskeyOrigins) == 0 || len(*c.PasskeyOrigins) > 10 {
			return invalidField("embeddedWalletConfig.passkeyOrigins", "embeddedWalletConfig.passkeyOrigins must list 1 to 10 origins")
		}
		for _, o := range *c.PasskeyOrigins {
			u, err := url.Parse(o)
			if err != nil || u.Host == "" || u.Path != "" || (u.Scheme != "https" && u.Scheme != "http") {
				return invalidField("embeddedWalletConfig.passkeyOrigins", "embeddedWalletConfig.passkeyOrigins must hold origins such as https://wallet.example.com")
			}
		}
	}
	if c.LogoURL != nil {
		u, err := url.Parse(*c.LogoURL)
		if err != nil || len(*c.LogoURL) > 512 || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return invalidField("embeddedWalletConfig.logoUrl", "embeddedWalletConfig.logoUrl must be an absolute http(s) URL of at most 512 characters")
		}
	}
	return nil
}

func mergeWalletConfig(dst, src *EmbeddedWalletConfig) {
	if src.AppName != nil {
		dst.AppName = src.AppName
	}
	if src.OtpLength != nil {
		dst.OtpLength = src.OtpLength
	}
	if src.Alphanumeric != nil {
		dst.Alphanumeric = src.Alphanumeric
	}
	if src.ExpirationSeconds != nil {
		dst.ExpirationSeconds = src.ExpirationSeconds
	}
	if src.SendFromEmailAddress != nil {
		dst.SendFromEmailAddress = src.SendFromEmailAddress
	}
	if src.SendFromEmailSenderName != nil {
		dst.SendFromEmailSenderName = src.SendFromEmailSenderName
	}
	if src.ReplyToEmailAddress != nil {
		dst.ReplyToEmailAddress = src.ReplyToEmailAddress
	}
	if src.LogoURL != nil {
		dst.LogoURL = src.LogoURL
	}
	if src.OidcProviders != nil {
		dst.OidcProviders = src.OidcProviders
	}
	if src.PasskeyRpID != nil {
		dst.PasskeyRpID = src.PasskeyRpID
	}
	if src.SessionExpirationSeconds != nil {
		dst.SessionExpirationSeconds = src.SessionExpirationSeconds
	}
	if src.PasskeyOrigins != nil {
		dst.PasskeyOrigins = src.PasskeyOrigins
	}
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// checkDomain accepts a lower-case DNS name with at least two labels.
func checkDomain(d string) error {
	if len(d) == 0 || len(d) > 253 {
		return fmt.Errorf("must be a domain name of 1 to 253 characters")
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return fmt.Errorf("must be a fully qualified domain name such as pay.example.com")
	}
	for _, l := range labels {
		if !dnsLabel.MatchString(l) {
			return fmt.Errorf("must be a lower-case domain name; %q is not a valid label", l)
		}
	}
	return nil
}
