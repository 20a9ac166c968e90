package api

import (
	"context"
	"net/http"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/extaccount"
	"paycore/internal/ids"

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
	if n.CustomerID.Valid {
		c, err := db.CustomerRecordGet(r.Context(), s.q, pr.PlatformID, n.CustomerID.UUID)
		if err != nil {
			return err
		}
		if err := c.CheckNotDeleted(); err != nil {
			return err
		}
	}
	if n, err = n.Verify(pr.Sandbox); err != nil {
		return err
	}
	out, err := db.ExternalAccountAdd(r.Context(), s.Pool, pr.PlatformID, n)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, view.ExternalAccountOf(out))
	return nil
}

func (s *Server) listCustomerExternalAccounts(w http.ResponseWriter, r *http.Request) error {
	return s.listExternalAccounts(w, r, false)
}

func (s *Server) listPlatformExternalAccounts(w http.ResponseWriter, r *http.Request) error {
	return s.listExternalAccounts(w, r, true)
}

// listExternalAccounts is GET /customers/external-accounts or, platformOwned,
// /platform/external-accounts, newest first.
func (s *Server) listExternalAccounts(w http.ResponseWriter, r *http.Request, platformOwned bool) error {
	params := []string{"currency", "limit", "cursor"}
	if !platformOwned {
		params = append(params, "customerId")
	}
	return serveList(s, w, r, listSpec[db.ExternalAccountFilter, db.IDPos, db.ExternalAccount, ExternalAccount]{
		name: "external-accounts", params: params,
		filter: func(q *query, pid uuid.UUID) db.ExternalAccountFilter {
			return db.ExternalAccountFilter{PlatformID: pid, PlatformOwned: platformOwned, Currency: q.str("currency"),
				CustomerID: q.customerID("customerId")}
		},
		read: db.ExternalAccountPage, pos: idPos(func(e db.ExternalAccount) uuid.UUID { return e.ID }), view: view.ExternalAccountOf,
	})
}

func (s *Server) getExternalAccount(platformOwned bool) http.HandlerFunc {
	return handler(func(w http.ResponseWriter, r *http.Request) error {
		return serveOne(w, r, "externalAccountId", ids.ExternalAccount, errExternalNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.ExternalAccount, error) {
			e, err := s.q.ExternalAccountGet(ctx, db.ExternalAccountGetParams{PlatformID: pid, ID: id})
			if err == nil && e.CustomerID.Valid == platformOwned {
				return e, errExternalNotFound // a customer's account under /platform, or the reverse
			}
			return e, err
		}, view.ExternalAccountOf)
	})
}

func (s *Server) deleteExternalAccount(platformOwned bool) http.HandlerFunc {
	return handler(func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, "externalAccountId", ids.ExternalAccount, errExternalNotFound)
		if err != nil {
			return err
		}
		n, err := s.q.ExternalAccountDelete(r.Context(), db.ExternalAccountDeleteParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id, PlatformOwned: platformOwned})
		if err != nil {
			return err
		}
		if n == 0 {
			return errExternalNotFound
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
}
