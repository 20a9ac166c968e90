package api

import (
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/country"
	"paycore/internal/money"
)

// UmaProvider is one UMA provider a platform can discover (rendered by db/view).
type UmaProvider = view.UmaProvider

// listVasps is GET /vasps: the providers the deployment transacts with (allowed), by name
// in ascending order.
func (s *Server) listVasps(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, listSpec[db.UmaProviderFilter, db.NamePos, db.UmaProvider, view.Vasp]{
		name: "vasps", params: []string{"limit", "cursor"}, ascending: true,
		filter: func(*query, uuid.UUID) db.UmaProviderFilter { return db.UmaProviderFilter{} },
		read:   db.UmaProviderPage, pos: db.UmaProviderPosOf, view: view.VaspOf,
	})
}

// listUmaProviders is GET /uma-providers, by name (descending unless sortOrder=asc).
func (s *Server) listUmaProviders(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, listSpec[db.UmaProviderFilter, db.NamePos, db.UmaProvider, UmaProvider]{
		name: "uma-providers", sortable: true,
		params: []string{"countryCode", "currencyCode", "hasBlockedProviders", "limit", "cursor", "sortOrder"},
		filter: func(q *query, _ uuid.UUID) db.UmaProviderFilter {
			f := db.UmaProviderFilter{Country: q.str("countryCode")}
			if f.Country != nil && !country.Valid(*f.Country) {
				q.fail(invalidField("countryCode", "countryCode must be an ISO 3166-1 alpha-2 code such as US"))
			}
			f.Currency = q.str("currencyCode")
			if f.Currency != nil {
				if _, ok := money.Lookup(*f.Currency); !ok {
					q.fail(invalidField("currencyCode", "currencyCode %q is not a known ISO 4217 code or crypto ticker", *f.Currency))
				}
			}
			f.IncludeBlocked = q.boolean("hasBlockedProviders", true)
			return f
		},
		read: db.UmaProviderPage, pos: db.UmaProviderPosOf, view: view.UmaProviderOf,
	})
}
