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
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/kit/clientip"
)

// The agent's side: POST /agents/device-codes/{code}/redeem, without authentication (the
// code is the proof), and /agents/me with the bearer access token the redeem returned.
// Both are outside the platform routes' HTTP Basic group.

// agentSelfRoutes registers the redeem route and the Bearer routes on the root router, by
// their full paths (a group, not a mounted subrouter, so that OPTIONS and 405 see exactly
// the methods each path serves).
func (s *Server) agentSelfRoutes(r chi.Router) {
	base := s.Config.BasePath()
	r.Post(base+"/agents/device-codes/{code}/redeem", handler(s.redeemDeviceCode))
	r.Group(func(r chi.Router) {
		r.Use(s.authenticateAgent)
		r.Get(base+"/agents/me", handler(s.getAgentMe))
		s.agentReadRoutes(r, base)
		s.agentMoneyRoutes(r, base)
	})
}

// redeemLimits are the configured limits on redeem attempts.
func (s *Server) redeemLimits() agent.RedeemLimits {
	l := agent.DefaultRedeemLimits()
	if s.Config.AgentRedeemWindow > 0 {
		l.PerAddress.Window, l.PerCode.Window = s.Config.AgentRedeemWindow, s.Config.AgentRedeemWindow
	}
	if s.Config.AgentRedeemPerAddress > 0 {
		l.PerAddress.Attempts = s.Config.AgentRedeemPerAddress
	}
	if s.Config.AgentRedeemPerCode > 0 {
		l.PerCode.Attempts = s.Config.AgentRedeemPerCode
	}
	return l
}

// redeemDeviceCode is POST /agents/device-codes/{code}/redeem. Every attempt counts first
// against its source address, when that names a client (the client a trusted proxy forwards:
// PAYCORE_TRUSTED_PROXIES; never a peer that may be a shared ingress), then against the
// first group of the code typed, from any address; over either limit it is 429 RATE_LIMITED
// with Retry-After, whatever the code, and a live code over its limit is retired for good.
// Then the code is redeemed once: the agent is connected and its access token shown this
// once (only its digest is kept). Unknown codes are 404; redeemed, expired or replaced ones
// 400.
func (s *Server) redeemDeviceCode(w http.ResponseWriter, r *http.Request) error {
	now := s.now()
	addr, ok := clientip.Resolve(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), s.Config.TrustedProxies)
	if !ok {
		return fmt.Errorf("redeem: the peer address %q is not an IP address", r.RemoteAddr)
	}
	limits := s.redeemLimits()
	if clientip.Attributable(addr, s.Config.TrustedProxies) {
		if err := s.countAttempt(r.Context(), agent.AddressKey(addr), limits.PerAddress, now, "from this address"); err != nil {
			return err
		}
	}
	code, ok := agent.ParseDeviceCode(pathParam(r, "code"))
	if !ok {
		return errDeviceCodeNotFound
	}
	if err := s.countAttempt(r.Context(), agent.CodeKey(code), limits.PerCode, now, "of this code (a live code tried this often is retired: ask the platform for a new one)"); err != nil {
		if _, rerr := db.AgentDeviceCodeRetire(r.Context(), s.Pool, agent.CodeHash(code), now); rerr != nil {
			return fmt.Errorf("retire device code: %w", rerr)
		}
		return err
	}
	var token string
	a, err := db.AgentRedeem(r.Context(), s.Pool, agent.CodeHash(code), now, func(agentID uuid.UUID) []byte {
		t, digest := agent.NewAccessToken(agentID)
		token = t
		return digest
	})
	if err != nil {
		return err
	}
	noStore(w)
	writeJSON(w, http.StatusOK, view.AgentRedeemed{AgentID: ids.Format(ids.Agent, a.ID), AgentName: a.Name, AccessToken: token, Policy: a.Policy})
	return nil
}

// countAttempt counts one redeem attempt under key and refuses it over limit.
func (s *Server) countAttempt(ctx context.Context, key string, limit agent.Limit, now time.Time, what string) error {
	c, err := db.RateLimitHit(ctx, s.Pool, key, limit.Window)
	if err != nil {
		return err
	}
	return limit.Check(c, now, what)
}

// agentPrincipal is the authenticated agent of an /agents/me request: it acts for one
// customer of one platform.
type agentPrincipal struct {
	AgentID    uuid.UUID
	PlatformID uuid.UUID
	CustomerID uuid.UUID
	Sandbox    bool
	// Policy is the agent's current policy, read with the agent on every request, so that
	// a policy change applies to the next one.
	Policy agentpolicy.Policy
}

type agentPrincipalKey struct{}

func agentPrincipalFrom(ctx context.Context) agentPrincipal {
	p, _ := ctx.Value(agentPrincipalKey{}).(agentPrincipal)
	return p
}

// callerPlatformID is the platform of the request's caller: the platform's API token, or
// the agent of /agents/me (acting for a customer of its platform).
func callerPlatformID(ctx context.Context) uuid.UUID {
	if p, ok := ctx.Value(agentPrincipalKey{}).(agentPrincipal); ok {
		return p.PlatformID
	}
	return principalFrom(ctx).PlatformID
}

// requireAgentPermission refuses, with 403 FORBIDDEN naming it in details.permission, an
// agent whose current policy (read by authenticateAgent on this request) lacks perm.
func requireAgentPermission(perm agentpolicy.Permission) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := agentPrincipalFrom(r.Context()).Policy.Require(perm); err != nil {
				writeError(w, r, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// authenticateAgent checks "Authorization: Bearer <access token>": a missing or malformed
// header, an unknown token or a deleted agent's is 401 UNAUTHORIZED; a paused agent, or
// one whose customer was deleted, is 403 FORBIDDEN.
func (s *Server) authenticateAgent(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearerToken(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="paycore"`)
			writeError(w, r, refusal(catalog.Unauthorized, "missing or malformed Authorization header: send the agent's access token as Bearer <token>", nil))
			return
		}
		id, secret, ok := agent.ParseAccessToken(token)
		var st agent.BearerState
		var row db.AgentAuthenticateRow
		if ok {
			var err error
			row, err = db.AgentAuthenticate(r.Context(), s.Pool, id)
			if err != nil && !isNoRows(err) {
				writeError(w, r, fmt.Errorf("authenticate agent: %w", err))
				return
			}
			st = agent.BearerState{Found: err == nil, Digest: row.TokenHash, Paused: row.IsPaused, CustomerGone: row.CustomerDeleted}
		}
		if err := agent.CheckBearer(st, secret); err != nil {
			if e := errorOf(err); e != nil && e.Status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="paycore", error="invalid_token"`)
			}
			writeError(w, r, err)
			return
		}
		policy, err := agentpolicy.Decode(row.Policy)
		if err != nil {
			writeError(w, r, fmt.Errorf("authenticate agent %s: %w", row.ID, err))
			return
		}
		p := agentPrincipal{AgentID: row.ID, PlatformID: row.PlatformID, CustomerID: row.CustomerID, Sandbox: row.Environment == catalog.Sandbox, Policy: policy}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), agentPrincipalKey{}, p)))
	})
}

// bearerToken reads the token of an "Authorization: Bearer <token>" header (the scheme in
// any case).
func bearerToken(header string) (string, bool) { return authorization(header, "Bearer") }

// getAgentMe is GET /agents/me: the authenticated agent.
func (s *Server) getAgentMe(w http.ResponseWriter, r *http.Request) error {
	p := agentPrincipalFrom(r.Context())
	a, err := db.AgentGetLive(r.Context(), s.Pool, p.PlatformID, p.AgentID)
	if err != nil {
		return err
	}
	return s.writeAgent(r.Context(), w, a)
}
