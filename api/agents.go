package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/agent"
	"paycore/internal/agentpolicy"
	"paycore/internal/ids"
)

// The platform's side of agents (HTTP Basic): create, list, read, rename, pause and
// delete agents, change their policy, issue device codes and read a code's status. The
// agent's own side (the device-code redeem and /agents/me) is in agents_me.go.

var (
	errAgentNotFound      = errorOf(agent.ErrNotFound())
	errDeviceCodeNotFound = errorOf(agent.ErrDeviceCodeNotFound())
)

// agentPlatformRoutes registers the platform's agent routes (inside the HTTP Basic group).
func (s *Server) agentPlatformRoutes(r chi.Router) {
	manage := require(PermManage)
	r.With(manage, s.idempotent).Post("/agents", handler(s.createAgent))
	r.Get("/agents", handler(s.listAgents))
	r.Get("/agents/approvals", handler(s.listAgentApprovals))
	r.With(require(PermTransact)).Post("/agents/{agentId}/actions/{actionId}/approve", handler(s.approveAgentAction))
	r.With(require(PermTransact)).Post("/agents/{agentId}/actions/{actionId}/reject", handler(s.rejectAgentAction))
	r.Get("/agents/device-codes/{code}/status", handler(s.getDeviceCodeStatus))
	r.Get("/agents/{agentId}", handler(s.getAgent))
	r.With(manage).Patch("/agents/{agentId}", handler(s.patchAgent))
	r.With(manage).Delete("/agents/{agentId}", handler(s.deleteAgent))
	r.With(manage).Patch("/agents/{agentId}/policy", handler(s.patchAgentPolicy))
	r.With(manage, s.idempotent).Post("/agents/{agentId}/device-codes", handler(s.issueDeviceCode))
}

type agentCreateBody struct {
	Name       *string             `json:"name"`
	CustomerID *string             `json:"customerId"`
	Policy     *agentpolicy.Update `json:"policy"`
}

// createAgent is POST /agents: the agent of a customer of the platform with its policy,
// and its first device code (shown this once). An agent whose policy moves money needs
// TRANSACT.
func (s *Server) createAgent(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[agentCreateBody](r)
	if err != nil {
		return err
	}
	switch {
	case b.Name == nil:
		return invalidField("name", "name is required")
	case b.CustomerID == nil:
		return invalidField("customerId", "customerId is required: the customer the agent acts for")
	case b.Policy == nil:
		return invalidField("policy", "policy is required")
	}
	if err := agent.CheckName("name", *b.Name); err != nil {
		return err
	}
	customerID, err := ids.Parse(ids.Customer, *b.CustomerID)
	if err != nil {
		return invalidField("customerId", "customerId must be a Customer id (Customer:<uuid>)")
	}
	policy, err := agentpolicy.New("policy", *b.Policy)
	if err != nil {
		return err
	}
	if err := agentpolicy.CheckMoneyAgent(policy, canTransact(r), "creating an agent"); err != nil {
		return err
	}
	now := s.now()
	code := agent.NewDeviceCode()
	expires := s.codeExpiry(now)
	a, err := db.AgentCreate(r.Context(), s.Pool, db.NewAgent{ID: ids.New(), PlatformID: principalFrom(r.Context()).PlatformID,
		CustomerID: customerID, Name: *b.Name, Policy: policy, CodeHash: agent.CodeHash(code), CodeExpiresAt: expires})
	if err != nil {
		return err
	}
	noStore(w)
	writeJSON(w, http.StatusCreated, view.AgentCreated{Agent: view.AgentOf(db.AgentWithUsage{Agent: a, Usage: agentpolicy.Fresh(now, policy.SpendingLimits.Currency)}),
		DeviceCode: view.AgentDeviceCode{Code: code, AgentID: ids.Format(ids.Agent, a.ID), ExpiresAt: expires}})
	return nil
}

// codeExpiry is when a device code issued at now expires (PAYCORE_AGENT_DEVICE_CODE_LIFETIME),
// in the microseconds Postgres keeps.
func (s *Server) codeExpiry(now time.Time) time.Time {
	lifetime := s.Config.AgentDeviceCodeLifetime
	if lifetime <= 0 {
		lifetime = agent.DefaultCodeLifetime
	}
	return now.Add(lifetime).UTC().Truncate(time.Microsecond)
}

// noStore keeps an answer carrying a secret (a device code, an access token) out of caches.
func noStore(w http.ResponseWriter) { w.Header().Set("Cache-Control", "no-store") }

// listAgents is GET /agents: the platform's agents (not deleted), newest first.
func (s *Server) listAgents(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, listSpec[db.AgentFilter, db.IDPos, db.AgentWithUsage, view.Agent]{
		name: "agents", params: []string{"customerId", "isPaused", "isConnected", "createdAfter", "createdBefore",
			"updatedAfter", "updatedBefore", "limit", "cursor"},
		filter: func(q *query, pid uuid.UUID) db.AgentFilter {
			return db.AgentFilter{PlatformID: pid, CustomerID: q.customerID("customerId"),
				IsPaused: q.optBool("isPaused"), IsConnected: q.optBool("isConnected"),
				CreatedAfter: q.time("createdAfter"), CreatedBefore: q.time("createdBefore"),
				UpdatedAfter: q.time("updatedAfter"), UpdatedBefore: q.time("updatedBefore")}
		},
		read: s.agentPage, pos: idPos(func(a db.AgentWithUsage) uuid.UUID { return a.ID }), view: view.AgentOf,
	})
}

// agentPage reads a page of agents with their usage now.
func (s *Server) agentPage(ctx context.Context, conn db.ListDB, f db.AgentFilter, p db.Page[db.IDPos]) (db.Result[db.AgentWithUsage], error) {
	res, err := db.AgentPage(ctx, conn, f, p)
	if err != nil {
		return db.Result[db.AgentWithUsage]{}, err
	}
	rows, err := db.AgentsWithUsage(ctx, s.Pool, s.now(), res.Rows...)
	return db.Result[db.AgentWithUsage]{Rows: rows, HasMore: res.HasMore, Total: res.Total}, err
}

// optBool reads an optional boolean parameter (true or false); nil when absent.
func (q *query) optBool(name string) *bool {
	if !q.v.Has(name) {
		return nil
	}
	b := q.boolean(name, false)
	return &b
}

// readAgent reads an agent of the caller's platform: another platform's, a deleted one or
// a malformed id is 404 AGENT_NOT_FOUND.
func (s *Server) readAgent(ctx context.Context, pid, id uuid.UUID) (db.AgentWithUsage, error) {
	a, err := db.AgentGet(ctx, s.Pool, db.AgentGetParams{PlatformID: pid, ID: id})
	if err != nil {
		return db.AgentWithUsage{}, err
	}
	return s.withUsage(ctx, a)
}

// withUsage adds the agent's usage now, to render it.
func (s *Server) withUsage(ctx context.Context, a db.Agent) (db.AgentWithUsage, error) {
	rows, err := db.AgentsWithUsage(ctx, s.Pool, s.now(), a)
	if err != nil {
		return db.AgentWithUsage{}, err
	}
	return rows[0], nil
}

// writeAgent answers 200 with the agent and its usage now.
func (s *Server) writeAgent(ctx context.Context, w http.ResponseWriter, a db.Agent) error {
	withUsage, err := s.withUsage(ctx, a)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view.AgentOf(withUsage))
	return nil
}

// getAgent is GET /agents/{agentId}.
func (s *Server) getAgent(w http.ResponseWriter, r *http.Request) error {
	return serveOne(w, r, "agentId", ids.Agent, errAgentNotFound, s.readAgent, view.AgentOf)
}

type agentPatchBody struct {
	Name     *string `json:"name"`
	IsPaused *bool   `json:"isPaused"`
}

// patchAgent is PATCH /agents/{agentId}: rename, pause or resume. A paused agent's next
// request is refused (403). Resuming needs TRANSACT (pausing does not).
func (s *Server) patchAgent(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "agentId", ids.Agent, errAgentNotFound)
	if err != nil {
		return err
	}
	b, err := ReadJSON[agentPatchBody](r)
	if err != nil {
		return err
	}
	if b.Name != nil {
		if err := agent.CheckName("name", *b.Name); err != nil {
			return err
		}
	}
	if err := agentpolicy.CheckResume(b.IsPaused, canTransact(r)); err != nil {
		return err
	}
	a, err := db.AgentUpdate(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID, id, db.AgentChange{Name: b.Name, IsPaused: b.IsPaused})
	if err != nil {
		return err
	}
	return s.writeAgent(r.Context(), w, a)
}

// deleteAgent is DELETE /agents/{agentId}: the agent's access token stops working at once.
func (s *Server) deleteAgent(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "agentId", ids.Agent, errAgentNotFound)
	if err != nil {
		return err
	}
	if err := db.AgentDelete(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID, id, s.now()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// patchAgentPolicy is PATCH /agents/{agentId}/policy: the members given are merged into
// the agent's policy (agentpolicy.Policy.Apply), effective from the agent's next request. A
// change that widens the policy needs TRANSACT (agentpolicy.CheckChange).
func (s *Server) patchAgentPolicy(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "agentId", ids.Agent, errAgentNotFound)
	if err != nil {
		return err
	}
	u, err := ReadJSON[agentpolicy.Update](r)
	if err != nil {
		return err
	}
	a, err := db.AgentPolicyUpdate(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID, id, u, canTransact(r))
	if err != nil {
		return err
	}
	return s.writeAgent(r.Context(), w, a)
}

// issueDeviceCode is POST /agents/{agentId}/device-codes: a new device code for an agent
// that is not connected yet (409 once it is); its earlier codes can no longer be redeemed.
// A code for an agent whose policy moves money needs TRANSACT.
func (s *Server) issueDeviceCode(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "agentId", ids.Agent, errAgentNotFound)
	if err != nil {
		return err
	}
	code := agent.NewDeviceCode()
	now := s.now()
	expires := s.codeExpiry(now)
	if err := db.AgentDeviceCodeIssue(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID, id, agent.CodeHash(code), expires, now, canTransact(r)); err != nil {
		return err
	}
	noStore(w)
	writeJSON(w, http.StatusCreated, view.AgentDeviceCode{Code: code, AgentID: ids.Format(ids.Agent, id), ExpiresAt: expires})
	return nil
}

// getDeviceCodeStatus is GET /agents/device-codes/{code}/status: whether a code of one of
// the platform's agents was redeemed. Another platform's code, a replaced one, a deleted
// agent's or a malformed code is 404 DEVICE_CODE_NOT_FOUND.
func (s *Server) getDeviceCodeStatus(w http.ResponseWriter, r *http.Request) error {
	code, ok := agent.ParseDeviceCode(pathParam(r, "code"))
	if !ok {
		return errDeviceCodeNotFound
	}
	st, err := db.AgentDeviceCodeStatus(r.Context(), s.Pool, db.AgentDeviceCodeStatusParams{CodeHash: agent.CodeHash(code),
		PlatformID: principalFrom(r.Context()).PlatformID})
	if isNoRows(err) {
		return errDeviceCodeNotFound
	}
	if err != nil {
		return fmt.Errorf("read device code status: %w", err)
	}
	writeJSON(w, http.StatusOK, view.AgentDeviceCodeStatusOf(code, st))
	return nil
}
