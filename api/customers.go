package api

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/country"
	"paycore/internal/customer"
	"paycore/internal/ids"
	"paycore/internal/walletauth"
)

// Customer types, the values of the customerType filter.
const (
	Individual = string(catalog.Individual)
	Business   = string(catalog.Business)
)

// Customer is an individual or business customer of a platform (rendered by db/view).
type Customer = view.Customer

var errCustomerNotFound = errorOf(customer.NotFound())

func (s *Server) createCustomer(w http.ResponseWriter, r *http.Request) error {
	in, err := ReadJSON[customer.Input](r)
	if err != nil {
		return err
	}
	pid := principalFrom(r.Context()).PlatformID
	settings, err := db.PlatformSettingsGet(r.Context(), s.Pool, pid)
	if err != nil {
		return err
	}
	settings.TermsVersion, _ = s.Config.EndUserTerms()
	n, err := customer.Create(in, settings)
	if err != nil {
		return err
	}
	out, err := db.CustomerOpen(r.Context(), s.Pool, s.Box, pid, n)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, view.CustomerOf(out))
	return nil
}

// EndUserTerms is the End User Terms the deployment publishes.
type EndUserTerms struct {
	Version string `json:"version"`
	URL     string `json:"url"`
}

// getEndUserTerms is GET /customers/end-user-terms: the version customers accept
// (endUserTermsConsent.termsVersion) and where its text is.
func (s *Server) getEndUserTerms(w http.ResponseWriter, _ *http.Request) error {
	version, link := s.Config.EndUserTerms()
	writeJSON(w, http.StatusOK, EndUserTerms{Version: version, URL: link})
	return nil
}

// getCustomer is GET /customers/{customerId}; a business is shown with its beneficial
// owners.
func (s *Server) getCustomer(w http.ResponseWriter, r *http.Request) error {
	return serveOne(w, r, "customerId", ids.Customer, errCustomerNotFound, func(ctx context.Context, pid, id uuid.UUID) (Customer, error) {
		c, err := db.CustomerGet(ctx, s.Pool, db.CustomerGetParams{PlatformID: pid, ID: id})
		if err != nil || c.CustomerType != catalog.Business {
			return view.CustomerOf(c), err
		}
		owners, err := db.OwnersOfCustomer(ctx, s.Pool, db.OwnersOfCustomerParams{PlatformID: pid, CustomerID: id})
		return view.BusinessOf(c, owners), err
	}, func(c Customer) Customer { return c })
}

// listCustomers is GET /customers, newest first.
func (s *Server) listCustomers(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, listSpec[db.CustomerFilter, db.IDPos, db.Customer, Customer]{
		name: "customers",
		params: []string{"platformCustomerId", "customerType", "createdAfter", "createdBefore", "updatedAfter", "updatedBefore",
			"limit", "cursor", "region", "currency", "umaAddress", "isIncludingDeleted"},
		filter: func(q *query, pid uuid.UUID) db.CustomerFilter {
			f := db.CustomerFilter{
				PlatformID: pid, IncludeDeleted: q.boolean("isIncludingDeleted", false),
				PlatformCustomerID: q.str("platformCustomerId"), CustomerType: q.enum("customerType", Individual, Business),
				Region: q.str("region"), Currency: q.str("currency"), UmaAddress: q.str("umaAddress"),
				CreatedAfter: q.time("createdAfter"), CreatedBefore: q.time("createdBefore"),
				UpdatedAfter: q.time("updatedAfter"), UpdatedBefore: q.time("updatedBefore"),
			}
			if f.Region != nil && !country.Valid(*f.Region) {
				q.fail(invalidField("region", "region must be an ISO 3166-1 alpha-2 country code"))
			}
			return f
		},
		read: db.CustomerPage, pos: idPos(func(c db.Customer) uuid.UUID { return c.ID }), view: view.CustomerOf,
	})
}

func (s *Server) patchCustomer(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "customerId", ids.Customer, errCustomerNotFound)
	if err != nil {
		return err
	}
	in, err := ReadJSON[customer.Input](r)
	if err != nil {
		return err
	}
	pid := principalFrom(r.Context()).PlatformID
	cur, err := db.CustomerRecordGet(r.Context(), s.Pool, pid, id)
	if err != nil {
		return err
	}
	settings, err := db.PlatformSettingsGet(r.Context(), s.Pool, pid)
	if err != nil {
		return err
	}
	settings.TermsVersion, _ = s.Config.EndUserTerms()
	// Everything that can refuse the request is checked before a wallet signature is asked
	// for, and again under the row lock.
	check := func(c customer.Record) (customer.Change, error) { return customer.Patch(c, in, settings) }
	if _, err := check(cur); err != nil {
		return err
	}
	cred, answered, err := s.emailChangeSigned(w, r, cur, in)
	if err != nil || answered {
		return err
	}
	out, err := s.store.CustomerPatch(r.Context(), s.Box, db.CustomerPatchParams{PlatformID: pid, ID: id, Check: check,
		EmailCredential: cred})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view.CustomerOf(out))
	return nil
}

// emailChangeSigned guards an update that changes the e-mail address of a customer whose
// embedded wallet has an EMAIL_OTP credential: that moves where its one-time codes go, so
// it needs a wallet session signature, and the credential follows the new address.
// cred is that credential; answered is set when the signature challenge (202) was written.
func (s *Server) emailChangeSigned(w http.ResponseWriter, r *http.Request, cur customer.Record, in customer.Input) (cred uuid.NullUUID, answered bool, err error) {
	if !in.ChangesEmail(cur) {
		return cred, false, nil
	}
	c, err := db.AuthEmailCredentialOfCustomer(r.Context(), s.Pool, uuid.NullUUID{UUID: cur.ID, Valid: true})
	if isNoRows(err) {
		return cred, false, nil
	}
	if err != nil {
		return cred, false, fmt.Errorf("find e-mail credential: %w", err)
	}
	if answered, err := s.requireSignature(w, r, signedRequest{accountID: c.AccountID, kind: walletauth.KindUpdateCustomerEmail}); answered || err != nil {
		return cred, answered, err
	}
	return uuid.NullUUID{UUID: c.ID, Valid: true}, false, nil
}

func (s *Server) deleteCustomer(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "customerId", ids.Customer, errCustomerNotFound)
	if err != nil {
		return err
	}
	c, err := db.CustomerDelete(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view.CustomerOf(c))
	return nil
}
