package api

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"paycore/internal/agentpolicy"
	"paycore/internal/catalog"
	"paycore/internal/extaccount"
)

// An agent's reads and its customer's external accounts, under /agents/me with the
// agent's Bearer token. Each route is the platform route's list, reader or rule with the
// customer fixed to the agent's: another customer's (or another platform's) object is 404.
// Balances and transactions need VIEW_TRANSACTIONS, external accounts
// MANAGE_EXTERNAL_ACCOUNTS, checked against the agent's current policy on each request.

// agentReadRoutes registers the routes on the Bearer group of agentSelfRoutes.
func (s *Server) agentReadRoutes(r chi.Router, base string) {
	view := r.With(requireAgentPermission(agentpolicy.ViewTransactions))
	view.Get(base+"/agents/me/internal-accounts", handler(s.listAgentInternalAccounts))
	view.Get(base+"/agents/me/transactions", handler(s.listAgentTransactions))
	view.Get(base+"/agents/me/transactions/{transactionId}", handler(s.getAgentTransaction))
	manage := r.With(requireAgentPermission(agentpolicy.ManageExternalAccounts))
	manage.Get(base+"/agents/me/external-accounts", handler(s.listAgentExternalAccounts))
	manage.Post(base+"/agents/me/external-accounts", handler(s.createAgentExternalAccount))
	manage.Get(base+"/agents/me/external-accounts/{externalAccountId}", handler(s.getAgentExternalAccount))
	manage.Delete(base+"/agents/me/external-accounts/{externalAccountId}", handler(s.deleteAgentExternalAccount))
}

// agentCustomer is the customer the request's agent acts for.
func agentCustomer(r *http.Request) uuid.NullUUID {
	return uuid.NullUUID{UUID: agentPrincipalFrom(r.Context()).CustomerID, Valid: true}
}

// listAgentInternalAccounts is GET /agents/me/internal-accounts: the customer's accounts
// that are not closed, newest first (currency and type filters).
func (s *Server) listAgentInternalAccounts(w http.ResponseWriter, r *http.Request) error {
	env := catalog.Production
	if agentPrincipalFrom(r.Context()).Sandbox {
		env = catalog.Sandbox
	}
	return serveList(s, w, r, s.customerInternalAccountList(r.Context(), env, agentCustomer(r)))
}

// listAgentTransactions is GET /agents/me/transactions: the customer's transactions,
// newest first unless sortOrder=asc, with the filters of GET /transactions but customerId
// and platformCustomerId.
func (s *Server) listAgentTransactions(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, transactionList(agentCustomer(r)))
}

// getAgentTransaction is GET /agents/me/transactions/{transactionId}.
func (s *Server) getAgentTransaction(w http.ResponseWriter, r *http.Request) error {
	return s.serveTransactionOf(w, r, agentCustomer(r))
}

// listAgentExternalAccounts is GET /agents/me/external-accounts.
func (s *Server) listAgentExternalAccounts(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, externalAccountList(extOwner{customer: agentCustomer(r)}))
}

// getAgentExternalAccount is GET /agents/me/external-accounts/{externalAccountId}.
func (s *Server) getAgentExternalAccount(w http.ResponseWriter, r *http.Request) error {
	return s.serveExternalAccount(w, r, extOwner{customer: agentCustomer(r)})
}

// createAgentExternalAccount is POST /agents/me/external-accounts: the body of POST
// /customers/external-accounts, for the agent's customer (customerId may be omitted; another
// customer's is refused).
func (s *Server) createAgentExternalAccount(w http.ResponseWriter, r *http.Request) error {
	in, err := ReadJSON[extaccount.Request](r)
	if err != nil {
		return err
	}
	p := agentPrincipalFrom(r.Context())
	n, err := in.CheckForCustomer(p.CustomerID)
	if err != nil {
		return err
	}
	return s.addExternalAccount(w, r, p.PlatformID, p.Sandbox, n)
}

// deleteAgentExternalAccount is DELETE /agents/me/external-accounts/{externalAccountId}.
func (s *Server) deleteAgentExternalAccount(w http.ResponseWriter, r *http.Request) error {
	return s.removeExternalAccount(w, r, agentPrincipalFrom(r.Context()).PlatformID, extOwner{customer: agentCustomer(r)})
}
