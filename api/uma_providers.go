package api

import (
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/country"
	"paycore/internal/cursor"
	"paycore/internal/money"
)

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

func umaProviderOf(p db.UmaProvider) UmaProvider {
	cur := make([]money.Currency, 0, len(p.SupportedCurrencies))
	for _, c := range p.SupportedCurrencies {
		if m, ok := money.Lookup(c); ok {
			cur = append(cur, m)
		}
	}
	return UmaProvider{Name: p.Name, Domain: p.Domain, LogoURL: p.LogoUrl, SupportedRegions: p.SupportedRegions,
		SupportedCurrencies: cur, Lei: p.Lei, AllowListStatus: p.AllowListStatus}
}

type nameCursor struct {
	Name string    `json:"n"`
	ID   uuid.UUID `json:"id"`
}

func (s *Server) listUmaProviders(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "countryCode", "currencyCode", "hasBlockedProviders", "limit", "cursor", "sortOrder")
	countryCode := q.str("countryCode")
	if countryCode != nil && !country.Valid(*countryCode) {
		q.fail(invalidField("countryCode", "countryCode must be an ISO 3166-1 alpha-2 code such as US"))
	}
	currencyCode := q.str("currencyCode")
	if currencyCode != nil {
		if _, ok := money.Lookup(*currencyCode); !ok {
			q.fail(invalidField("currencyCode", "currencyCode %q is not a known ISO 4217 code or crypto ticker", *currencyCode))
		}
	}
	includeBlocked := q.boolean("hasBlockedProviders", true)
	order := q.enum("sortOrder", "asc", "desc")
	ascending := order != nil && *order == "asc"
	limit := q.limit()
	p := db.UmaProviderListParams{Country: countryCode, Currency: currencyCode, IncludeBlocked: includeBlocked, Ascending: ascending, RowLimit: limit + 1}
	var pos nameCursor
	list := "uma-providers-desc"
	if ascending {
		list = "uma-providers-asc"
	}
	if q.cursor(list, &pos) {
		p.AfterName = &pos.Name
		p.AfterID = uuid.NullUUID{UUID: pos.ID, Valid: true}
	}
	if q.err != nil {
		return q.err
	}
	rows, err := s.q.UmaProviderList(r.Context(), p)
	if err != nil {
		return fmt.Errorf("list uma providers: %w", err)
	}
	total, err := s.q.UmaProviderCount(r.Context(), db.UmaProviderCountParams{Country: countryCode, Currency: currencyCode, IncludeBlocked: includeBlocked})
	if err != nil {
		return fmt.Errorf("count uma providers: %w", err)
	}
	writeJSON(w, http.StatusOK, page(rows, limit, total, umaProviderOf, func(u db.UmaProvider) string {
		return cursor.Encode(list, nameCursor{Name: u.Name, ID: u.ID})
	}))
	return nil
}
