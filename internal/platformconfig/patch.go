package platformconfig

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/email"
	"paycore/internal/money"
	"paycore/internal/platformfee"
	"paycore/internal/problem"
)

// Patch is the body of PATCH /config. Read-only members are captured so they can be
// refused by name instead of as unknown members.
type Patch struct {
	UmaDomain *string `json:"umaDomain"`
	// An empty proxyUmaSubdomain or webhookEndpoint clears it (white space alone is refused).
	ProxyUmaSubdomain    *string          `json:"proxyUmaSubdomain" blank:"ok"`
	WebhookEndpoint      *string          `json:"webhookEndpoint" blank:"ok"`
	SupportedCurrencies  *[]CurrencyPatch `json:"supportedCurrencies"`
	EmbeddedWalletConfig *Wallet          `json:"embeddedWalletConfig"`
	// EndUserTermsConsentRequired: the platform's customers move money only once their
	// acceptance of the End User Terms is recorded.
	EndUserTermsConsentRequired *bool `json:"endUserTermsConsentRequired"`
	// FeeConfigs are merged by key into the platform's standing fees (platformfee.Merge).
	FeeConfigs *[]platformfee.ConfigInput `json:"feeConfigs"`

	ID                              json.RawMessage `json:"id"`
	CreatedAt                       json.RawMessage `json:"createdAt"`
	UpdatedAt                       json.RawMessage `json:"updatedAt"`
	IsRegulatedFinancialInstitution json.RawMessage `json:"isRegulatedFinancialInstitution"`
	WebhookEndpointDisabledAt       json.RawMessage `json:"webhookEndpointDisabledAt"`
}

// CurrencyPatch is one item of a patch's supportedCurrencies; pointers tell a missing
// member from a zero one.
type CurrencyPatch struct {
	CurrencyCode               *string              `json:"currencyCode"`
	MinAmount                  *int64               `json:"minAmount"`
	MaxAmount                  *int64               `json:"maxAmount"`
	EnabledTransactionTypes    *[]string            `json:"enabledTransactionTypes"`
	RequiredCounterpartyFields *[]CounterpartyField `json:"requiredCounterpartyFields"`
	// The provider fields are read-only: accepted (a client may send back what GET /config
	// answered) and ignored.
	ProviderRequiredCustomerFields             json.RawMessage `json:"providerRequiredCustomerFields"`
	ProviderRequiredCounterpartyCustomerFields json.RawMessage `json:"providerRequiredCounterpartyCustomerFields"`
}

// Change is a checked PATCH /config; nil members are left as they are.
type Change struct {
	UmaDomain         *string
	ProxyUmaSubdomain *string
	WebhookEndpoint   *string
	// Currencies replace the supported currencies; nil leaves them.
	Currencies Currencies
	// Wallet members replace the stored embedded-wallet configuration's; nil leaves it.
	Wallet *Wallet
	// TermsRequired sets whether customers need a recorded acceptance of the End User Terms
	// to move money; nil leaves it.
	TermsRequired *bool
	// Fees are merged into the standing fees (platformfee.Merge); nil leaves them.
	Fees []platformfee.Config
}

// CheckPatch checks everything of a PATCH /config that needs neither the network nor the
// stored configuration: read-only members, the supported currencies, the UMA domain and
// subdomain, and the embedded-wallet configuration (its OIDC providers are checked by
// whoever can reach them).
func CheckPatch(p Patch) (Change, error) {
	if err := checkReadOnly(p); err != nil {
		return Change{}, err
	}
	ch := Change{UmaDomain: p.UmaDomain, ProxyUmaSubdomain: p.ProxyUmaSubdomain, WebhookEndpoint: p.WebhookEndpoint, Wallet: p.EmbeddedWalletConfig,
		TermsRequired: p.EndUserTermsConsentRequired}
	if p.SupportedCurrencies != nil {
		cur, err := CheckCurrencies(*p.SupportedCurrencies)
		if err != nil {
			return Change{}, err
		}
		ch.Currencies = cur
	}
	if p.UmaDomain != nil {
		if err := CheckUmaDomain(*p.UmaDomain); err != nil {
			return Change{}, err
		}
	}
	if p.FeeConfigs != nil {
		fees, err := platformfee.CheckConfigs(*p.FeeConfigs, "feeConfigs")
		if err != nil {
			return Change{}, err
		}
		ch.Fees = fees
	}
	if p.WebhookEndpoint != nil && *p.WebhookEndpoint != "" && strings.TrimSpace(*p.WebhookEndpoint) == "" {
		return Change{}, problem.Field("webhookEndpoint", "webhookEndpoint must be a URL, or an empty string to remove the endpoint")
	}
	if p.ProxyUmaSubdomain != nil && *p.ProxyUmaSubdomain != "" && !dnsLabel.MatchString(*p.ProxyUmaSubdomain) {
		return Change{}, problem.Field("proxyUmaSubdomain", "proxyUmaSubdomain must be a DNS label: lower-case letters, digits and inner hyphens, at most 63 characters")
	}
	if p.EmbeddedWalletConfig != nil {
		if err := CheckWallet(p.EmbeddedWalletConfig); err != nil {
			return Change{}, err
		}
	}
	return ch, nil
}

func checkReadOnly(p Patch) error {
	if p.IsRegulatedFinancialInstitution != nil {
		return problem.Field("isRegulatedFinancialInstitution", "isRegulatedFinancialInstitution is read-only: only the service operator sets it, at platform creation")
	}
	for _, m := range []struct {
		name string
		v    json.RawMessage
	}{{"id", p.ID}, {"createdAt", p.CreatedAt}, {"updatedAt", p.UpdatedAt}, {"webhookEndpointDisabledAt", p.WebhookEndpointDisabledAt}} {
		if m.v != nil {
			return problem.Field(m.name, "%s is read-only", m.name)
		}
	}
	return nil
}

// CheckCurrencies checks a new list of supported currencies and returns it as stored.
func CheckCurrencies(in []CurrencyPatch) (Currencies, error) {
	out := make(Currencies, 0, len(in))
	seen := map[string]bool{}
	for i, c := range in {
		f := func(name string) string { return fmt.Sprintf("supportedCurrencies[%d].%s", i, name) }
		if err := checkCurrencyPresent(c, f); err != nil {
			return nil, err
		}
		if _, ok := money.Lookup(*c.CurrencyCode); !ok {
			return nil, problem.Field(f("currencyCode"), "%s: %q is not a supported ISO 4217 code or crypto ticker", f("currencyCode"), *c.CurrencyCode)
		}
		if seen[*c.CurrencyCode] {
			return nil, problem.Field(f("currencyCode"), "currency %s is listed twice", *c.CurrencyCode)
		}
		seen[*c.CurrencyCode] = true
		if *c.MinAmount < 0 || *c.MaxAmount < 0 {
			return nil, problem.Field(f("minAmount"), "%s: amounts must not be negative", f(""))
		}
		if *c.MinAmount > *c.MaxAmount {
			return nil, problem.Field(f("minAmount"), "%s (%d) must not exceed maxAmount (%d)", f("minAmount"), *c.MinAmount, *c.MaxAmount)
		}
		if err := checkTransactionTypes(*c.EnabledTransactionTypes, f("enabledTransactionTypes")); err != nil {
			return nil, err
		}
		if err := checkCounterpartyFields(*c.RequiredCounterpartyFields, f("requiredCounterpartyFields")); err != nil {
			return nil, err
		}
		out = append(out, Currency{
			CurrencyCode: *c.CurrencyCode, MinAmount: *c.MinAmount, MaxAmount: *c.MaxAmount,
			EnabledTransactionTypes: *c.EnabledTransactionTypes, RequiredCounterpartyFields: *c.RequiredCounterpartyFields,
		})
	}
	return out, nil
}

func checkCurrencyPresent(c CurrencyPatch, f func(string) string) error {
	switch {
	case c.CurrencyCode == nil:
		return problem.Field(f("currencyCode"), "%s is required", f("currencyCode"))
	case c.MinAmount == nil:
		return problem.Field(f("minAmount"), "%s is required", f("minAmount"))
	case c.MaxAmount == nil:
		return problem.Field(f("maxAmount"), "%s is required", f("maxAmount"))
	case c.EnabledTransactionTypes == nil:
		return problem.Field(f("enabledTransactionTypes"), "%s is required", f("enabledTransactionTypes"))
	case c.RequiredCounterpartyFields == nil:
		return problem.Field(f("requiredCounterpartyFields"), "%s is required (it may be an empty array)", f("requiredCounterpartyFields"))
	}
	return nil
}

func checkTransactionTypes(types []string, field string) error {
	if len(types) == 0 {
		return problem.Field(field, "%s must list INCOMING, OUTGOING or both", field)
	}
	seen := map[string]bool{}
	for _, t := range types {
		if t != string(catalog.Incoming) && t != string(catalog.Outgoing) {
			return problem.Field(field, "%s: unknown transaction type %q (allowed: INCOMING, OUTGOING)", field, t)
		}
		if seen[t] {
			return problem.Field(field, "%s lists %s twice", field, t)
		}
		seen[t] = true
	}
	return nil
}

func checkCounterpartyFields(fields []CounterpartyField, field string) error {
	names := map[string]bool{}
	for j, rf := range fields {
		if !slices.Contains(catalog.CustomerInfoFields(), rf.Name) {
			return problem.Field(fmt.Sprintf("%s[%d].name", field, j), "%s[%d].name: unknown field name %q", field, j, rf.Name)
		}
		if rf.Mandatory == nil {
			return problem.Field(fmt.Sprintf("%s[%d].mandatory", field, j), "%s[%d].mandatory is required", field, j)
		}
		if names[rf.Name] {
			return problem.Field(field, "%s lists %s twice", field, rf.Name)
		}
		names[rf.Name] = true
	}
	return nil
}

// CheckWallet checks an embedded-wallet configuration patch (its OIDC providers aside).
func CheckWallet(c *Wallet) error {
	const p = "embeddedWalletConfig."
	switch {
	case c.AppName != nil && (len(*c.AppName) == 0 || len(*c.AppName) > 255):
		return problem.Field(p+"appName", "embeddedWalletConfig.appName must be 1 to 255 characters")
	case c.OtpLength != nil && (*c.OtpLength < MinOTPLength || *c.OtpLength > MaxOTPLength):
		return problem.Field(p+"otpLength", "embeddedWalletConfig.otpLength must be from %d to %d: shorter codes are too easy to guess",
			MinOTPLength, MaxOTPLength)
	case c.ExpirationSeconds != nil && (*c.ExpirationSeconds < 1 || *c.ExpirationSeconds > 86400):
		return problem.Field(p+"expirationSeconds", "embeddedWalletConfig.expirationSeconds must be from 1 to 86400")
	}
	if err := checkWalletEmails(c); err != nil {
		return err
	}
	switch {
	case c.SendFromEmailSenderName != nil && len(*c.SendFromEmailSenderName) > 255:
		return problem.Field(p+"sendFromEmailSenderName", "embeddedWalletConfig.sendFromEmailSenderName must be at most 255 characters")
	case c.SessionExpirationSeconds != nil && (*c.SessionExpirationSeconds < 60 || *c.SessionExpirationSeconds > 86400):
		return problem.Field(p+"sessionExpirationSeconds", "embeddedWalletConfig.sessionExpirationSeconds must be from 60 to 86400")
	case c.PasskeyRpID != nil && CheckDomain(*c.PasskeyRpID) != nil && *c.PasskeyRpID != "localhost":
		return problem.Field(p+"passkeyRpId", "embeddedWalletConfig.passkeyRpId must be a domain such as wallet.example.com")
	}
	if c.PasskeyOrigins != nil {
		if err := checkOrigins(*c.PasskeyOrigins); err != nil {
			return err
		}
	}
	if c.LogoURL != nil {
		u, err := url.Parse(*c.LogoURL)
		if err != nil || len(*c.LogoURL) > 512 || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return problem.Field(p+"logoUrl", "embeddedWalletConfig.logoUrl must be an absolute http(s) URL of at most 512 characters")
		}
	}
	return nil
}

// checkWalletEmails checks the sender and reply-to addresses of one-time code e-mails.
func checkWalletEmails(c *Wallet) error {
	for _, m := range []struct {
		name string
		v    *string
	}{{"sendFromEmailAddress", c.SendFromEmailAddress}, {"replyToEmailAddress", c.ReplyToEmailAddress}} {
		if m.v == nil {
			continue
		}
		if !email.Plain(*m.v) {
			return problem.Field("embeddedWalletConfig."+m.name, "embeddedWalletConfig.%s must be a plain e-mail address", m.name)
		}
	}
	return nil
}

func checkOrigins(origins []string) error {
	const field = "embeddedWalletConfig.passkeyOrigins"
	if len(origins) == 0 || len(origins) > 10 {
		return problem.Field(field, "embeddedWalletConfig.passkeyOrigins must list 1 to 10 origins")
	}
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || u.Host == "" || u.Path != "" || (u.Scheme != "https" && u.Scheme != "http") {
			return problem.Field(field, "embeddedWalletConfig.passkeyOrigins must hold origins such as https://wallet.example.com")
		}
	}
	return nil
}

// ApplyWallet is the embedded-wallet configuration after c: every member c sets replaces
// the stored one (nil stored: none yet). Without a wallet change it is stored unchanged.
func (c Change) ApplyWallet(stored *Wallet) *Wallet {
	if c.Wallet == nil {
		return stored
	}
	merged := Wallet{}
	if stored != nil {
		merged = *stored
	}
	src := c.Wallet
	set(&merged.AppName, src.AppName)
	set(&merged.OtpLength, src.OtpLength)
	set(&merged.Alphanumeric, src.Alphanumeric)
	set(&merged.ExpirationSeconds, src.ExpirationSeconds)
	set(&merged.SendFromEmailAddress, src.SendFromEmailAddress)
	set(&merged.SendFromEmailSenderName, src.SendFromEmailSenderName)
	set(&merged.ReplyToEmailAddress, src.ReplyToEmailAddress)
	set(&merged.LogoURL, src.LogoURL)
	set(&merged.OidcProviders, src.OidcProviders)
	set(&merged.PasskeyRpID, src.PasskeyRpID)
	set(&merged.SessionExpirationSeconds, src.SessionExpirationSeconds)
	set(&merged.PasskeyOrigins, src.PasskeyOrigins)
	return &merged
}

// set replaces *dst with v when v is given.
func set[T any](dst **T, v *T) {
	if v != nil {
		*dst = v
	}
}

// Webhook is a platform's webhook endpoint: "" when none is set; DisabledAt is set when
// deliveries kept failing and the endpoint was switched off.
type Webhook struct {
	Endpoint   string
	DisabledAt *time.Time
}

// ApplyWebhook is the endpoint after c. Setting the endpoint (again) re-enables it;
// announce reports whether the endpoint changed to a non-empty one (or was re-enabled),
// which then gets a one-off TEST event.
func (c Change) ApplyWebhook(cur Webhook) (next Webhook, announce bool) {
	if c.WebhookEndpoint == nil {
		return cur, false
	}
	changed := *c.WebhookEndpoint != cur.Endpoint || cur.DisabledAt != nil
	return Webhook{Endpoint: *c.WebhookEndpoint}, changed && *c.WebhookEndpoint != ""
}

// CheckSet refuses a test send when no endpoint is configured.
func (w Webhook) CheckSet() error {
	if w.Endpoint == "" {
		return problem.Refuse(catalog.WebhookEndpointNotSet, "no webhookEndpoint is configured; set one with PATCH /config")
	}
	return nil
}

// CheckEnabled refuses a redelivery when no endpoint is configured or it is disabled.
func (w Webhook) CheckEnabled() error {
	if w.Endpoint == "" || w.DisabledAt != nil {
		return problem.Refuse(catalog.WebhookEndpointNotSet, "no enabled webhookEndpoint is configured; set one with PATCH /config")
	}
	return nil
}

// ApplyFees is the platform's standing fees after the change (stored, when it leaves them),
// each charged in a currency the platform supports (currencies, as they are after the
// change): its own account in that currency is where the fee is paid.
func (c Change) ApplyFees(stored platformfee.Configs, currencies Currencies) (platformfee.Configs, error) {
	if c.Fees == nil {
		return stored, nil
	}
	out := platformfee.Merge(stored, c.Fees)
	for _, f := range out {
		if _, ok := currencies.Find(f.SourceCurrency); !ok {
			return nil, problem.Field("feeConfigs", "a fee charged in %s is paid to the platform's own %s account: add %s to supportedCurrencies first", f.SourceCurrency, f.SourceCurrency, f.SourceCurrency)
		}
	}
	return out, nil
}
