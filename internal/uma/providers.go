package uma

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"paycore/internal/country"
	"paycore/internal/money"
)

// Provider is a UMA provider as the operator lists it (GET /uma-providers shows the list;
// AllowListStatus says whether the deployment transacts with it, see CheckCounterparty).
type Provider struct {
	Name                string   `json:"name"`
	Domain              string   `json:"domain"`
	LogoURL             string   `json:"logoUrl,omitempty"`
	SupportedRegions    []string `json:"supportedRegions"`
	SupportedCurrencies []string `json:"supportedCurrencies"`
	// Lei is its Legal Entity Identifier (ISO 17442: 20 characters), "" when it has none.
	Lei             string `json:"lei,omitempty"`
	AllowListStatus bool   `json:"allowListStatus"`
}

// ErrInvalidProviders is an operator's provider list that cannot be taken.
var ErrInvalidProviders = errors.New("uma: invalid provider list")

var leiPattern = regexp.MustCompile(`^[A-Z0-9]{20}$`)

// Check refuses a provider the list cannot hold: a name (200 characters at most), a domain
// (ValidDomain), an https logo URL or none, ISO 3166-1 regions, known currencies, and an LEI
// of 20 letters and digits or none.
func (p Provider) Check() error {
	switch {
	case strings.TrimSpace(p.Name) == "" || len(p.Name) > 200:
		return fmt.Errorf("%w: %q: a name of 1 to 200 characters is required", ErrInvalidProviders, p.Domain)
	case !ValidDomain(p.Domain):
		return fmt.Errorf("%w: %q is not a domain", ErrInvalidProviders, p.Domain)
	case p.Lei != "" && !leiPattern.MatchString(p.Lei):
		return fmt.Errorf("%w: %s: the LEI %q is not 20 capital letters and digits", ErrInvalidProviders, p.Domain, p.Lei)
	}
	if p.LogoURL != "" {
		if u, err := url.Parse(p.LogoURL); err != nil || u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("%w: %s: the logo URL %q is not an https URL", ErrInvalidProviders, p.Domain, p.LogoURL)
		}
	}
	for _, r := range p.SupportedRegions {
		if !country.Valid(r) {
			return fmt.Errorf("%w: %s: %q is not an ISO 3166-1 alpha-2 region", ErrInvalidProviders, p.Domain, r)
		}
	}
	for _, c := range p.SupportedCurrencies {
		if _, ok := money.Lookup(c); !ok {
			return fmt.Errorf("%w: %s: %q is not a known currency", ErrInvalidProviders, p.Domain, c)
		}
	}
	return nil
}

// ParseProviders reads an operator's provider list: a JSON array of providers, each
// checked (Provider.Check), domains lower-cased and listed once.
func ParseProviders(b []byte) ([]Provider, error) {
	var list []Provider
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	if err := d.Decode(&list); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidProviders, err)
	}
	seen := map[string]bool{}
	for i := range list {
		p := &list[i]
		p.Domain = strings.ToLower(p.Domain)
		if p.SupportedRegions == nil {
			p.SupportedRegions = []string{}
		}
		if p.SupportedCurrencies == nil {
			p.SupportedCurrencies = []string{}
		}
		if err := p.Check(); err != nil {
			return nil, err
		}
		if seen[p.Domain] {
			return nil, fmt.Errorf("%w: %s is listed twice", ErrInvalidProviders, p.Domain)
		}
		seen[p.Domain] = true
	}
	return list, nil
}
