package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/agent"
	"paycore/internal/agentpolicy"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/transfer"
	"paycore/workflows"
	"paycore/workflows/start"
)

// An agent's money movements, under /agents/me with its Bearer token: quotes it creates
// and reads (CREATE_QUOTES, EXECUTE_QUOTES), and the actions that move money (executing a
// quote, transfers in and out: EXECUTE_QUOTES, CREATE_TRANSFERS). Every action goes through
// its own durable workflow (workflows.AgentAction), which applies the policy and limits,
// reserves the amount and executes it through the payment's own workflow, at once or once
// the platform approves it.

// agentMoneyRoutes registers the routes on the Bearer group of agentSelfRoutes.
func (s *Server) agentMoneyRoutes(r chi.Router, base string) {
	r.With(requireAgentPermission(agentpolicy.CreateQuotes), s.idempotent).Post(base+"/agents/me/quotes", handler(s.createAgentQuote))
	r.With(requireAnyAgentPermission(agentpolicy.CreateQuotes, agentpolicy.ExecuteQuotes)).Get(base+"/agents/me/quotes/{quoteId}", handler(s.getAgentQuote))
	r.With(requireAgentPermission(agentpolicy.ExecuteQuotes), s.idempotent, noBody).Post(base+"/agents/me/quotes/{quoteId}/execute", handler(s.executeAgentQuote))
	transfers := r.With(requireAgentPermission(agentpolicy.CreateTransfers), s.idempotent)
	transfers.Post(base+"/agents/me/transfer-out", handler(s.agentTransferOut))
	transfers.Post(base+"/agents/me/transfer-in", handler(s.agentTransferIn))
	r.Get(base+"/agents/me/actions", handler(s.listAgentActions))
	r.Get(base+"/agents/me/actions/{actionId}", handler(s.getAgentAction))
}

// requireAnyAgentPermission refuses an agent whose policy grants none of perms (403
// FORBIDDEN naming the first).
func requireAnyAgentPermission(perms ...agentpolicy.Permission) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			policy := agentPrincipalFrom(r.Context()).Policy
			for _, p := range perms {
				if policy.Allows(p) {
					next.ServeHTTP(w, r)
					return
				}
			}
			writeError(w, r, policy.Require(perms[0]))
		})
	}
}

// createAgentQuote is POST /agents/me/quotes: the body of POST /quotes, paid from an
// internal account of the agent's customer that its policy allows (agent.CheckQuote), and
// not executed at creation. Creating a quote moves no money: it is not an action.
func (s *Server) createAgentQuote(w http.ResponseWriter, r *http.Request) error {
	req, err := s.quoteRequest(r)
	if err != nil {
		return err
	}
	p := agentPrincipalFrom(r.Context())
	acc, err := db.QuoteAccountsGet(r.Context(), s.Pool, req)
	if err != nil {
		return err
	}
	if err := agent.CheckQuote(p.CustomerID, req, acc); err != nil {
		return err
	}
	if err := p.Policy.AllowsAccount(ids.Format(ids.InternalAccount, req.Source.AccountID)); err != nil {
		return err
	}
	req.CustomerID = ids.Some(p.CustomerID)
	return s.startQuote(w, r, req)
}

// getAgentQuote is GET /agents/me/quotes/{quoteId}: a quote of the agent's customer.
func (s *Server) getAgentQuote(w http.ResponseWriter, r *http.Request) error {
	own := agentCustomer(r)
	return serveOne(w, r, "quoteId", ids.Quote, errQuoteNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.QuoteGetRow, error) {
		q, err := db.QuoteGet(ctx, s.Pool, db.QuoteGetParams{PlatformID: pid, ID: id})
		if err == nil && q.Quote.CustomerID != own {
			return q, pgx.ErrNoRows // another customer's quote is not found (loadOne's 404)
		}
		return q, err
	}, func(q db.QuoteGetRow) view.Quote { return view.QuoteOf(db.QuoteWithTransaction(q)) })
}

// executeAgentQuote is POST /agents/me/quotes/{quoteId}/execute: an EXECUTE_QUOTE action.
func (s *Server) executeAgentQuote(w http.ResponseWriter, r *http.Request) error {
	quoteID, err := pathID(r, "quoteId", ids.Quote, errQuoteNotFound)
	if err != nil {
		return err
	}
	req := s.agentRequest(r, agent.ExecuteQuote)
	req.QuoteID = uuid.NullUUID{UUID: quoteID, Valid: true}
	return s.submitAgentAction(w, r, http.StatusOK, req)
}

// agentTransferOut is POST /agents/me/transfer-out: a TRANSFER_OUT action, the body of
// POST /transfer-out.
func (s *Server) agentTransferOut(w http.ResponseWriter, r *http.Request) error {
	return s.agentTransfer(w, r, transfer.Out, agent.TransferOut)
}

// agentTransferIn is POST /agents/me/transfer-in: a TRANSFER_IN action, the body of
// POST /transfer-in.
func (s *Server) agentTransferIn(w http.ResponseWriter, r *http.Request) error {
	return s.agentTransfer(w, r, transfer.In, agent.TransferIn)
}

func (s *Server) agentTransfer(w http.ResponseWriter, r *http.Request, kind transfer.Kind, typ agent.ActionType) error {
	t, err := s.transferRequest(r, kind)
	if err != nil {
		return err
	}
	req := s.agentRequest(r, typ)
	req.InternalAccountID, req.ExternalAccountID = t.InternalAccountID, uuid.NullUUID{UUID: t.ExternalAccountID, Valid: true}
	req.Amount, req.Description, req.SlowDelay = t.Amount, t.Description, s.Config.SandboxSlowDelay
	req.PaymentRail, req.RemittanceInformation, req.PurposeOfPayment = t.PaymentRail, t.RemittanceInformation, t.PurposeOfPayment
	return s.submitAgentAction(w, r, http.StatusCreated, req)
}

// agentRequest is a new action of the request's agent. Its workflow is keyed by the
// request's Idempotency-Key (scoped to the agent) when it has one, so that a repeat after
// a crash joins the action the first request made.
func (s *Server) agentRequest(r *http.Request, typ agent.ActionType) agent.Request {
	p := agentPrincipalFrom(r.Context())
	req := agent.Request{ActionID: ids.New(), PlatformID: p.PlatformID, AgentID: p.AgentID, Type: typ, ApprovalLifetime: s.Config.AgentApprovalLifetime}
	keyHash := ""
	if key := r.Header.Get(headerIdempotencyKey); key != "" {
		keyHash = ids.Derive(p.PlatformID.String(), "AGENT_ACTION", scopedKey(r.Context(), key)).String()
	}
	req.WorkflowID = workflows.AgentActionWorkflowID(req.ActionID, keyHash)
	return req
}

// submitAgentAction starts the action's workflow and answers with the AgentAction its
// create update committed (APPROVED with its transaction, or PENDING_APPROVAL), or with
// the action an earlier request with the same Idempotency-Key made. A refusal (permission,
// account, limit, the quote or transfer rule, or the execution itself) is its error.
func (s *Server) submitAgentAction(w http.ResponseWriter, r *http.Request, status int, req agent.Request) error {
	created, err := s.start.AgentAction(r.Context(), req)
	if errors.Is(err, start.ErrPaymentExists) {
		a, err := db.AgentActionGetByWorkflow(r.Context(), s.Pool, db.AgentActionGetByWorkflowParams{PlatformID: req.PlatformID, WorkflowID: req.WorkflowID})
		if isNoRows(err) {
			return errKeyRefused
		}
		if err != nil {
			return fmt.Errorf("read agent action: %w", err)
		}
		full, err := db.AgentActionRead(r.Context(), s.Pool, a.ID)
		if err != nil {
			return err
		}
		writeJSON(w, status, view.AgentActionOf(full))
		return nil
	}
	if err != nil {
		return err
	}
	writeRaw(w, status, created)
	return nil
}

// listAgentActions is GET /agents/me/actions: the agent's actions, newest first (status
// filter).
func (s *Server) listAgentActions(w http.ResponseWriter, r *http.Request) error {
	me := agentPrincipalFrom(r.Context()).AgentID
	return serveList(s, w, r, agentActionList("agent-actions", []string{"status", "limit", "cursor"}, false,
		func(q *query, pid uuid.UUID) db.AgentActionFilter {
			f := db.AgentActionFilter{PlatformID: pid, AgentID: uuid.NullUUID{UUID: me, Valid: true}}
			if st := q.enum("status", catalog.Names(agent.ActionStatuses)...); st != nil {
				status := agent.ActionStatus(*st)
				f.Status = &status
			}
			return f
		}))
}

// getAgentAction is GET /agents/me/actions/{actionId}: one of the agent's actions.
func (s *Server) getAgentAction(w http.ResponseWriter, r *http.Request) error {
	me := agentPrincipalFrom(r.Context()).AgentID
	id, err := pathID(r, "actionId", ids.AgentAction, errActionNotFound)
	if err != nil {
		return err
	}
	a, err := db.AgentActionGetFull(r.Context(), s.Pool, callerPlatformID(r.Context()), me, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, view.AgentActionOf(a))
	return nil
}

var errActionNotFound = errorOf(agent.ErrActionNotFound())

// agentActionList is a list of agent actions ordered by id (creation).
func agentActionList(name string, params []string, sortable bool, filter func(q *query, pid uuid.UUID) db.AgentActionFilter) listSpec[db.AgentActionFilter, db.IDPos, db.AgentActionFull, view.AgentAction] {
	return listSpec[db.AgentActionFilter, db.IDPos, db.AgentActionFull, view.AgentAction]{
		name: name, params: params, sortable: sortable, filter: filter,
		read: func(ctx context.Context, conn db.ListDB, f db.AgentActionFilter, p db.Page[db.IDPos]) (db.Result[db.AgentActionFull], error) {
			return db.AgentActionPage(ctx, conn, f, p)
		},
		pos: idPos(func(a db.AgentActionFull) uuid.UUID { return a.ID }), view: view.AgentActionOf,
	}
}

// listAgentApprovals is GET /agents/approvals: the actions of the platform's agents that
// wait for its decision, newest first unless sortOrder=asc (agentId, customerId, and
// startDate/endDate on createdAt).
func (s *Server) listAgentApprovals(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, agentActionList("agent-approvals", []string{"agentId", "customerId", "startDate", "endDate", "limit", "cursor", "sortOrder"}, true,
		func(q *query, pid uuid.UUID) db.AgentActionFilter {
			pending := agent.PendingApproval
			return db.AgentActionFilter{PlatformID: pid, AgentID: q.agentID("agentId"), CustomerID: q.customerID("customerId"),
				Status: &pending, CreatedAfter: q.time("startDate"), CreatedBefore: q.time("endDate")}
		}))
}

// agentID reads an optional Agent id parameter.
func (q *query) agentID(name string) uuid.NullUUID {
	v := q.str(name)
	if v == nil {
		return uuid.NullUUID{}
	}
	id, err := ids.Parse(ids.Agent, *v)
	if err != nil {
		q.fail(invalidField(name, "%s must be an Agent id", name))
		return uuid.NullUUID{}
	}
	return uuid.NullUUID{UUID: id, Valid: true}
}

// approveAgentAction is POST /agents/{agentId}/actions/{actionId}/approve: the action is
// executed and answered as it ended (APPROVED with its transaction, or FAILED).
func (s *Server) approveAgentAction(w http.ResponseWriter, r *http.Request) error {
	return s.decideAgentAction(w, r, agent.Decision{Approve: true})
}

// rejectAgentAction is POST /agents/{agentId}/actions/{actionId}/reject, with an optional
// reason: the action is REJECTED and its reservation given back.
func (s *Server) rejectAgentAction(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[rejectBody](r)
	if err != nil && r.ContentLength != 0 {
		return err
	}
	d := agent.Decision{}
	if b.Reason != nil {
		if err := agent.CheckReason(*b.Reason); err != nil {
			return err
		}
		d.Reason = *b.Reason
	}
	return s.decideAgentAction(w, r, d)
}

// decideAgentAction hands the platform's decision to the action's workflow, which applies
// it under the action's lock (agent.Action.Decide) and answers the action as decided. An
// action of another agent or platform is 404. Every refusal is the state machine's, as it
// is: on the stored action once its workflow has ended (decided, or expired), by the
// workflow's validator while a decision runs or after the expiry, or under the lock.
func (s *Server) decideAgentAction(w http.ResponseWriter, r *http.Request, d agent.Decision) error {
	pid := principalFrom(r.Context()).PlatformID
	agentID, err := pathID(r, "agentId", ids.Agent, errActionNotFound)
	if err != nil {
		return err
	}
	id, err := pathID(r, "actionId", ids.AgentAction, errActionNotFound)
	if err != nil {
		return err
	}
	out, err := s.decideAction(r.Context(), pid, agentID, id, d)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// decideAction sends decision d to the workflow of the platform's action id (read first:
// another platform's or agent's is 404, the action names its workflow, and one that no
// longer waits for a decision is refused by its state machine as read, since only a
// pending action's workflow takes decisions), whose validator and step apply the action's
// state machine. An action whose workflow has ended takes no decision:
// db.AgentActionDecide answers in its place, under the action's lock, with the machine's
// refusal, and writes nothing.
func (s *Server) decideAction(ctx context.Context, pid, agentID, id uuid.UUID, d agent.Decision) (json.RawMessage, error) {
	a, err := db.AgentActionGetFull(ctx, s.Pool, pid, agentID, id)
	if err != nil {
		return nil, err
	}
	if err := db.ActionState(a.AgentAction).Pending(); err != nil {
		return nil, err
	}
	out, err := s.start.DecideAgentAction(ctx, a.WorkflowID, d)
	if !errors.Is(err, start.ErrWorkflowClosed) {
		return out, err
	}
	_, err = db.AgentActionDecide(ctx, s.Pool, id, d, s.now(), false)
	if err == nil {
		return nil, fmt.Errorf("agent action %s: decided without its workflow", id)
	}
	return nil, err
}
