package api

import (
	"net/http"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/banking"
	"paycore/internal/country"
	"paycore/internal/fx"
	"paycore/internal/money"
)

// listExchangeRates is GET /exchange-rates: the priced rates from the platform's sending
// currencies (or sourceCurrency) to its other supported currencies (or the repeatable
// destinationCurrency), each with what sendingAmount (default 10,000 minor units, fees
// included) delivers. Sandbox platforms see rates move a little every minute.
func (s *Server) listExchangeRates(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "sourceCurrency", "destinationCurrency", "sendingAmount")
	req := fx.ListRequest{Destinations: q.strs("destinationCurrency"), SendingAmount: q.int64("sendingAmount", fx.DefaultSendingAmount, 0)}
	if src := q.str("sourceCurrency"); src != nil {
		req.Source = *src
	}
	if q.err != nil {
		return q.err
	}
	p := principalFrom(r.Context())
	set, err := db.PlatformSettingsGet(r.Context(), s.Pool, p.PlatformID)
	if err != nil {
		return err
	}
	offers, err := fx.Offers(s.rates(p.Sandbox), s.Config.FXPricing, set.Currencies, req, s.now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, dataOf(offers, view.ExchangeRateOf))
	return nil
}

// rates is the rate table a sandbox platform (moving) or a production one sees.
func (s *Server) rates(sandbox bool) *fx.Table {
	if sandbox {
		return s.sandboxRates
	}
	return s.Rates
}

// listDiscoveries is GET /discoveries: the banks payouts reach, by country and currency
// (neither: all of them).
func (s *Server) listDiscoveries(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "country", "currency")
	ctry, cur := q.str("country"), q.str("currency")
	switch {
	case q.err != nil:
		return q.err
	case ctry != nil && !country.Valid(*ctry):
		return invalidField("country", "country must be an ISO 3166-1 alpha-2 code in upper case, such as MX")
	case cur != nil && !money.IsFiat(*cur):
		return invalidField("currency", "currency must be an ISO 4217 fiat currency code, such as MXN")
	}
	var c, k string
	if ctry != nil {
		c = *ctry
	}
	if cur != nil {
		k = *cur
	}
	writeJSON(w, http.StatusOK, dataOf(banking.Institutions(c, k), view.DiscoveryOf))
	return nil
}
