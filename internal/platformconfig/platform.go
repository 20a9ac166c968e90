package platformconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"paycore/internal/catalog"
	"paycore/internal/money"
	"paycore/internal/problem"
)

// Settings are a platform's decoded configuration as the rules of other domains read it.
type Settings struct {
	UmaDomain  string
	Currencies Currencies
	// Wallet is the embedded-wallet configuration; nil when the platform has none.
	Wallet *Wallet
	// Environment is SANDBOX or PRODUCTION.
	Environment catalog.Environment
	// Regulated is isRegulatedFinancialInstitution: the platform attests its customers'
	// KYC/KYB status itself instead of having the service verify them.
	Regulated bool
	// TermsVersion is the version of the End User Terms the deployment publishes, the one a
	// customer's endUserTermsConsent accepts.
	TermsVersion string
}

// Decode decodes a platform's stored documents with their one decoders.
func Decode(umaDomain string, currencies, wallet json.RawMessage) (Settings, error) {
	cur, err := DecodeCurrencies(currencies)
	if err != nil {
		return Settings{}, err
	}
	w, err := DecodeWallet(wallet)
	if err != nil {
		return Settings{}, err
	}
	return Settings{UmaDomain: umaDomain, Currencies: cur, Wallet: w}, nil
}

// EmbeddedWallets reports whether the platform gives its customers embedded wallets (it
// has an embedded-wallet configuration).
func (s Settings) EmbeddedWallets() bool { return s.Wallet != nil }

// WithProviderFields is a copy of cs with the read-only fields the payout providers need
// filled in for each currency, as PlatformConfig shows them.
func (cs Currencies) WithProviderFields() Currencies {
	if cs == nil {
		return nil
	}
	out := make(Currencies, len(cs))
	for i, c := range cs {
		c.ProviderRequiredCustomerFields, c.ProviderRequiredCounterpartyCustomerFields = providerFields(c.CurrencyCode)
		out[i] = c
	}
	return out
}

// providerFields are the customer and counterparty fields the payout providers need for
// a currency.
// ProviderCustomerFields are the customer fields the verification provider requires of a
// customer holding the currencies codes (the union of their providerRequiredCustomerFields).
func ProviderCustomerFields(codes []string) []string {
	var out []string
	for _, code := range codes {
		fields, _ := providerFields(code)
		for _, f := range fields {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

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

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// CheckDomain accepts a lower-case DNS name with at least two labels. The error says
// what is wrong without naming the field ("must be …").
func CheckDomain(d string) error {
	if len(d) == 0 || len(d) > 253 {
		return errors.New("must be a domain name of 1 to 253 characters")
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return errors.New("must be a fully qualified domain name such as pay.example.com")
	}
	for _, l := range labels {
		if !dnsLabel.MatchString(l) {
			return fmt.Errorf("must be a lower-case domain name; %q is not a valid label", l)
		}
	}
	return nil
}

// PlatformParams describe a platform created by the operator.
type PlatformParams struct {
	Name        string
	Sandbox     bool
	IsRegulated bool // isRegulatedFinancialInstitution: only the operator can set it
	UmaDomain   string
}

// Provisioning is a checked new platform with its defaults filled in.
type Provisioning struct {
	Name        string
	Environment catalog.Environment
	IsRegulated bool
	UmaDomain   string
	// Currencies are the supported currencies it starts with: USD both ways.
	Currencies Currencies
}

// Provision checks a new platform and fills in its defaults: the environment, a UMA
// domain derived from the name when none is given (placeholderDomain), and USD as its
// first currency. Whether another platform holds the domain is decided when it is stored.
func Provision(p PlatformParams) (Provisioning, error) {
	name := strings.TrimSpace(p.Name)
	if name == "" || len(name) > 255 {
		return Provisioning{}, problem.Field("name", "platform name must be 1 to 255 characters")
	}
	out := Provisioning{Name: name, Environment: catalog.Production, IsRegulated: p.IsRegulated, UmaDomain: p.UmaDomain,
		Currencies: Currencies{{CurrencyCode: "USD", MinAmount: 1, MaxAmount: 100_000_000,
			EnabledTransactionTypes:    []string{string(catalog.Incoming), string(catalog.Outgoing)},
			RequiredCounterpartyFields: []CounterpartyField{}}}}
	if p.Sandbox {
		out.Environment = catalog.Sandbox
	}
	if out.UmaDomain == "" {
		out.UmaDomain = placeholderDomain(name)
	}
	if err := CheckUmaDomain(out.UmaDomain); err != nil {
		return Provisioning{}, err
	}
	return out, nil
}
