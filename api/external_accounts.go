package api

import (
	"context"
	"net/http"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/extaccount"
	"paycore/internal/ids"
	"paycore/internal/ownership"

	"github.com/google/uuid"
)

// ExternalAccount is an account outside the service that money moves to or from
// (rendered by db/view).
type ExternalAccount = view.ExternalAccount

func (s *Server) createCustomerExternalAccount(w http.ResponseWriter, r *http.Request) error {
	return s.createExternalAccount(w, r, false)
}

func (s *Server) createPlatformExternalAccount(w http.ResponseWriter, r *http.Request) error {
	return s.createExternalAccount(w, r, true)
}

func (s *Server) createExternalAccount(w http.ResponseWriter, r *http.Request, platformOwned bool) error {
	in, err := ReadJSON[extaccount.Request](r)
	if err != nil {
		return err
	}
	n, err := in.Check(platformOwned)
	if err != nil {
		return err
	}
	pr := principalFrom(r.Context())
	return s.addExternalAccount(w, r, pr.PlatformID, pr.Sandbox, n)
}

// addExternalAccount registers the checked account n of the platform: its customer, if
// any, must not be deleted; then the beneficiary check and the insert, PENDING_OWNERSHIP_VERIFICATION
// when its ownership is to be proven (ownership.InitialStatus).
func (s *Server) addExternalAccount(w http.ResponseWriter, r *http.Request, platformID uuid.UUID, sandbox bool, n extaccount.New) error {
	if n.CustomerID.Valid {
		c, err := db.CustomerRecordGet(r.Context(), s.Pool, platformID, n.CustomerID.UUID)
		if err != nil {
			return err
		}
		if err := c.CheckNotDeleted(); err != nil {
			return err
		}
	}
	n, err := n.Verify(sandbox)
	if err != nil {
		return err
	}
	n.Status = ownership.InitialStatus(n.Info.AccountType, ownership.Type(n.Ownership), n.Info.Custodial)
	out, err := db.ExternalAccountAdd(r.Context(), s.Pool, platformID, n)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, view.ExternalAccountOf(out))
	return nil
}

func (s *Server) listCustomerExternalAccounts(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, externalAccountList(extOwner{}))
}

func (s *Server) listPlatformExternalAccounts(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, externalAccountList(extOwner{platform: true}))
}

// extOwner says whose external accounts a route serves: the platform's own (platform),
// one customer's (customer: an agent's), or else any customer's of the platform.
type extOwner struct {
	platform bool
	customer uuid.NullUUID
}

// owns reports whether the account e is one the route serves.
func (o extOwner) owns(e db.ExternalAccount) bool {
	if o.customer.Valid {
		return e.CustomerID == o.customer
	}
	return e.CustomerID.Valid != o.platform
}

// externalAccountList is GET /customers/external-accounts, /platform/external-accounts or
// /agents/me/external-accounts, newest first. Only the customers' list takes customerId.
func externalAccountList(o extOwner) listSpec[db.ExternalAccountFilter, db.IDPos, db.ExternalAccount, ExternalAccount] {
	name, params := "external-accounts", []string{"currency", "limit", "cursor"}
	switch {
	case o.customer.Valid:
		name = "agent-external-accounts"
	case !o.platform:
		params = append(params, "customerId")
	}
	return listSpec[db.ExternalAccountFilter, db.IDPos, db.ExternalAccount, ExternalAccount]{
		name: name, params: params,
		filter: func(q *query, pid uuid.UUID) db.ExternalAccountFilter {
			f := db.ExternalAccountFilter{PlatformID: pid, PlatformOwned: o.platform, Currency: q.str("currency"), CustomerID: o.customer}
			if !o.platform && !o.customer.Valid {
				f.CustomerID = q.customerID("customerId")
			}
			return f
		},
		read: db.ExternalAccountPage, pos: idPos(func(e db.ExternalAccount) uuid.UUID { return e.ID }), view: view.ExternalAccountOf,
	}
}

func (s *Server) getExternalAccount(platformOwned bool) http.HandlerFunc {
	return handler(func(w http.ResponseWriter, r *http.Request) error {
		return s.serveExternalAccount(w, r, extOwner{platform: platformOwned})
	})
}

// serveExternalAccount is the GET of one external account the route serves (o); any other
// is 404.
func (s *Server) serveExternalAccount(w http.ResponseWriter, r *http.Request, o extOwner) error {
	return serveOne(w, r, "externalAccountId", ids.ExternalAccount, errExternalNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.ExternalAccount, error) {
		e, err := db.ExternalAccountGet(ctx, s.Pool, db.ExternalAccountGetParams{PlatformID: pid, ID: id})
		if err == nil && !o.owns(e) {
			return e, errExternalNotFound // a customer's account under /platform, another customer's, or the reverse
		}
		return e, err
	}, view.ExternalAccountOf)
}

func (s *Server) deleteExternalAccount(platformOwned bool) http.HandlerFunc {
	return handler(func(w http.ResponseWriter, r *http.Request) error {
		return s.removeExternalAccount(w, r, principalFrom(r.Context()).PlatformID, extOwner{platform: platformOwned})
	})
}

// removeExternalAccount deletes the external account of the platform in the path if the
// route serves it (o); any other is 404.
func (s *Server) removeExternalAccount(w http.ResponseWriter, r *http.Request, platformID uuid.UUID, o extOwner) error {
	id, err := pathID(r, "externalAccountId", ids.ExternalAccount, errExternalNotFound)
	if err != nil {
		return err
	}
	n, err := db.ExternalAccountDelete(r.Context(), s.Pool, db.ExternalAccountDeleteParams{PlatformID: platformID, ID: id, PlatformOwned: o.platform, CustomerID: o.customer})
	if err != nil {
		return err
	}
	if n == 0 {
		return errExternalNotFound
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
