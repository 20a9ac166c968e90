// Package platformconfig holds the platform's stored configuration documents, the
// supported currencies and the embedded-wallet configuration, with the one decoder of
// each, and the rules that read them (which transactions a currency allows, in what
// amounts). A document that does not decode is an error, never a silent default.
package platformconfig

import (
	"encoding/json"
	"fmt"
	"slices"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// CounterpartyField is one required counterparty field of a currency.
type CounterpartyField struct {
	Name      string `json:"name"`
	Mandatory *bool  `json:"mandatory"`
}

// Currency is one item of the platform's supported currencies (PlatformConfig.supportedCurrencies).
type Currency struct {
	CurrencyCode                               string              `json:"currencyCode"`
	MinAmount                                  int64               `json:"minAmount"`
	MaxAmount                                  int64               `json:"maxAmount"`
	EnabledTransactionTypes                    []string            `json:"enabledTransactionTypes"`
	RequiredCounterpartyFields                 []CounterpartyField `json:"requiredCounterpartyFields"`
	ProviderRequiredCustomerFields             []string            `json:"providerRequiredCustomerFields"`
	ProviderRequiredCounterpartyCustomerFields []string            `json:"providerRequiredCounterpartyCustomerFields"`
}

// Currencies is the stored list of supported currencies.
type Currencies []Currency

// DecodeCurrencies is the one decoder of the stored supported currencies.
func DecodeCurrencies(raw json.RawMessage) (Currencies, error) {
	var cur Currencies
	if err := json.Unmarshal(raw, &cur); err != nil {
		return nil, fmt.Errorf("decode supported currencies: %w", err)
	}
	return cur, nil
}

// Find is the configuration of one currency; ok is false when the platform does not support it.
func (cs Currencies) Find(code string) (Currency, bool) {
	for _, c := range cs {
		if c.CurrencyCode == code {
			return c, true
		}
	}
	return Currency{}, false
}

// Codes are the supported currency codes in configuration order.
func (cs Currencies) Codes() []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.CurrencyCode)
	}
	return out
}

// CheckAmount applies the configuration to a transaction of txType in currency: the
// currency must be supported, the type enabled and the amount within [minAmount, maxAmount].
func (cs Currencies) CheckAmount(currency string, txType catalog.TransactionType, amount int64) error {
	c, ok := cs.Find(currency)
	if !ok {
		return problem.Refuse(catalog.InvalidInput, "the platform does not support %s", currency)
	}
	if !slices.Contains(c.EnabledTransactionTypes, string(txType)) {
		return problem.Refuse(catalog.InvalidInput, "%s transactions are not enabled for %s in the platform configuration", txType, currency)
	}
	if amount < c.MinAmount || amount > c.MaxAmount {
		return problem.FieldCode(catalog.AmountOutOfRange, "amount", "amount must be from %d to %d %s (platform configuration)", c.MinAmount, c.MaxAmount, currency).
			With(map[string]any{"minAmount": c.MinAmount, "maxAmount": c.MaxAmount})
	}
	return nil
}

// Bounds of embeddedWalletConfig.otpLength.
const (
	// MinOTPLength is the shortest one-time code a platform may configure (and the
	// default): 6 digits leave 1 in 10^6 per guess.
	MinOTPLength = 6
	// MaxOTPLength is the longest configurable code.
	MaxOTPLength = 12
)

// OIDCProvider is an identity provider OAUTH credentials may come from.
type OIDCProvider struct {
	Issuer   string `json:"issuer"`
	Audience string `json:"audience"`
}

// Wallet configures embedded wallets: e-mails and OTPs, sessions, passkeys and OIDC providers.
type Wallet struct {
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

// WalletsEnabled reports whether the stored embedded-wallet configuration is present: a
// platform with one gives its customers EMBEDDED_WALLET accounts.
func WalletsEnabled(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// DecodeWallet is the one decoder of the stored embedded-wallet configuration; nil when
// the platform has none.
func DecodeWallet(raw json.RawMessage) (*Wallet, error) {
	if !WalletsEnabled(raw) {
		return nil, nil
	}
	var w Wallet
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("decode embedded wallet config: %w", err)
	}
	return &w, nil
}
