package api

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/platformconfig"
	"paycore/internal/quote"
)

// lookupUmaReceiver is GET /receiver/uma/{receiverUmaAddress}: what a UMA receiver takes
// (its currency, an indicative rate from the sender's currency, the amounts allowed) and
// requires of the payer, with a lookupId for POST /quotes. The sender is the customer
// named (customerId) or the platform; senderUmaAddress is accepted and not needed. Sandbox
// platforms reach the sandbox's counterparties; an address of another provider is looked up
// over the UMA protocol (lookupRemoteUma).
func (s *Server) lookupUmaReceiver(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "senderUmaAddress", "customerId")
	customer := q.customerID("customerId")
	if q.err != nil {
		return q.err
	}
	address := pathParam(r, "receiverUmaAddress")
	p := principalFrom(r.Context())
	env := catalog.Production
	if p.Sandbox {
		env = catalog.Sandbox
	}
	fields := []view.PayerField{}
	var currencies []string
	found, err := db.CustomerFindByUma(r.Context(), s.Pool, db.CustomerFindByUmaParams{UmaAddress: address, Environment: env})
	switch {
	case err != nil:
		return fmt.Errorf("find UMA receiver: %w", err)
	case len(found) > 1 && !quote.IsSandboxUma(address):
		return quote.LookupAmbiguous(address)
	case len(found) == 1 && !quote.IsSandboxUma(address):
		// A customer of a platform of the same environment on this deployment: paid internally.
		if currencies = found[0].Currencies; len(currencies) == 0 {
			return quote.LookupNoCurrency()
		}
	case len(found) == 0 && !quote.IsSandboxUma(address):
		// A customer of another UMA provider: its provider answers (UMAD-03, UMAD-04).
		return s.lookupRemoteUma(w, r, env, address, customer)
	default:
		dest, err := quote.UmaDestination("receiverUmaAddress", address, env)
		if err != nil {
			return err
		}
		currencies = []string{dest.Currency}
		for _, f := range dest.PayerFields {
			fields = append(fields, view.PayerField{Name: f, Mandatory: true})
		}
	}
	set, err := db.PlatformSettingsGet(r.Context(), s.Pool, p.PlatformID)
	if err != nil {
		return err
	}
	out, err := s.lookup(r.Context(), set, customer, currencies, fields, db.ReceiverLookupCreateParams{ReceiverUma: &address})
	if err != nil {
		return err
	}
	out.ReceiverUmaAddress = address
	writeJSON(w, http.StatusOK, out)
	return nil
}

// lookupExternalReceiver is GET /receiver/external-account/{accountId}: the same for an
// external account of the platform; the payer details are the platform's
// requiredCounterpartyFields of the account's currency.
func (s *Server) lookupExternalReceiver(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "senderUmaAddress", "customerId")
	customer := q.customerID("customerId")
	if q.err != nil {
		return q.err
	}
	acct, err := loadOne(r, "accountId", ids.ExternalAccount, errExternalNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.ExternalAccount, error) {
		return db.ExternalAccountGet(ctx, s.Pool, db.ExternalAccountGetParams{PlatformID: pid, ID: id})
	})
	if err != nil {
		return err
	}
	set, err := db.PlatformSettingsGet(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID)
	if err != nil {
		return err
	}
	fields := []view.PayerField{}
	if c, ok := set.Currencies.Find(acct.Currency); ok {
		for _, f := range c.RequiredCounterpartyFields {
			fields = append(fields, view.PayerField{Name: f.Name, Mandatory: f.Mandatory != nil && *f.Mandatory})
		}
	}
	out, err := s.lookup(r.Context(), set, customer, []string{acct.Currency}, fields, db.ReceiverLookupCreateParams{ExternalAccountID: uuid.NullUUID{UUID: acct.ID, Valid: true}})
	if err != nil {
		return err
	}
	out.AccountID = ids.Format(ids.ExternalAccount, acct.ID)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// lookup prices receiving from the sender's currency (customer's, or the platform's, whose
// settings are set) and stores the lookup.
func (s *Server) lookup(ctx context.Context, set platformconfig.Settings, customer uuid.NullUUID, receiving []string, fields []view.PayerField, l db.ReceiverLookupCreateParams) (view.ReceiverLookup, error) {
	p := principalFrom(ctx)
	var senderCurrencies []string
	if customer.Valid {
		c, err := db.CustomerGet(ctx, s.Pool, db.CustomerGetParams{PlatformID: p.PlatformID, ID: customer.UUID})
		if isNoRows(err) {
			return view.ReceiverLookup{}, errCustomerNotFound
		}
		if err != nil {
			return view.ReceiverLookup{}, fmt.Errorf("load customer: %w", err)
		}
		senderCurrencies = c.Currencies
	}
	sending, err := quote.SendingCurrency(set.Currencies, senderCurrencies, receiving[0])
	if err != nil {
		return view.ReceiverLookup{}, err
	}
	prefs, err := quote.Preferences(s.rates(p.Sandbox), s.Config.FXPricing, set.Currencies, sending, receiving, s.now())
	if err != nil {
		return view.ReceiverLookup{}, err
	}
	l.ID, l.PlatformID, l.Currencies = ids.New(), p.PlatformID, receiving
	if err := db.ReceiverLookupCreate(ctx, s.Pool, l); err != nil {
		return view.ReceiverLookup{}, fmt.Errorf("store lookup: %w", err)
	}
	return view.ReceiverLookupOf(l.ID, prefs, fields), nil
}
