package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/agent"
	"paycore/internal/agentpolicy"
	"paycore/internal/customer"
)

// NewAgent is an agent to create with its first device code (the code's digest).
type NewAgent struct {
	ID         uuid.UUID
	PlatformID uuid.UUID
	CustomerID uuid.UUID
	Name       string
	Policy     agentpolicy.Policy
	// CodeHash and CodeExpiresAt are the first device code's digest and expiry.
	CodeHash      []byte
	CodeExpiresAt time.Time
}

// AgentCreate writes a new agent and its first device code in one transaction. The
// customer must be one of the platform's (else 404 USER_NOT_FOUND) and not deleted (else
// 410 CUSTOMER_DELETED), and every internal account the policy names must be an open
// account of that customer (else a 400 naming the policy field). A refused agent writes
// nothing.
func AgentCreate(ctx context.Context, pool *pgxpool.Pool, n NewAgent) (Agent, error) {
	var out Agent
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		c, err := q.AgentCustomerLock(ctx, AgentCustomerLockParams{PlatformID: n.PlatformID, ID: n.CustomerID})
		if err != nil && !IsNotFound(err) {
			return fmt.Errorf("lock customer: %w", err)
		}
		if err := agent.CheckCustomer(err == nil, c.IsDeleted, n.CustomerID); err != nil {
			return err
		}
		if err := checkPolicyAccounts(ctx, q, n.CustomerID, n.Policy, "policy"); err != nil {
			return err
		}
		out, err = q.AgentInsert(ctx, AgentInsertParams{ID: n.ID, PlatformID: n.PlatformID, CustomerID: n.CustomerID, Name: n.Name, Policy: n.Policy.Encode()})
		if err != nil {
			return fmt.Errorf("insert agent: %w", err)
		}
		if err := q.AgentDeviceCodeInsert(ctx, AgentDeviceCodeInsertParams{CodeHash: n.CodeHash, AgentID: n.ID, ExpiresAt: n.CodeExpiresAt}); err != nil {
			return fmt.Errorf("insert device code: %w", err)
		}
		return nil
	})
	return out, err
}

// checkPolicyAccounts reads which of the internal accounts the policy names (under root),
// those of known aside, are open accounts of the customer, and lets
// agentpolicy.CheckAccounts refuse one that is not, naming the policy field that names it.
func checkPolicyAccounts(ctx context.Context, q *queries, customerID uuid.UUID, p agentpolicy.Policy, root string, known ...agentpolicy.AccountRef) error {
	refs := p.NewAccountRefs(root, known...)
	if len(refs) == 0 {
		return nil
	}
	want := make([]uuid.UUID, 0, len(refs))
	for _, r := range refs {
		want = append(want, r.ID)
	}
	found, err := q.AgentCustomerAccounts(ctx, AgentCustomerAccountsParams{CustomerID: uuid.NullUUID{UUID: customerID, Valid: true}, Ids: want})
	if err != nil {
		return fmt.Errorf("read the policy's accounts: %w", err)
	}
	have := make(map[uuid.UUID]bool, len(found))
	for _, id := range found {
		have[id] = true
	}
	return agentpolicy.CheckAccounts(customerID, refs, have)
}

// AgentGetLive reads an agent of the platform that is not deleted (else AGENT_NOT_FOUND).
func AgentGetLive(ctx context.Context, d DBTX, platformID, id uuid.UUID) (Agent, error) {
	q := newQueries(d)
	a, err := q.AgentGet(ctx, AgentGetParams{PlatformID: platformID, ID: id})
	if IsNotFound(err) {
		return a, agent.ErrNotFound()
	}
	if err != nil {
		return a, fmt.Errorf("get agent: %w", err)
	}
	return a, nil
}

// AgentChange is a PATCH /agents/{agentId}: nil members are left as they are.
type AgentChange struct {
	Name     *string
	IsPaused *bool
}

// AgentUpdate renames, pauses or resumes an agent of the platform. A paused agent's
// requests are refused from the next one on.
func AgentUpdate(ctx context.Context, d DBTX, platformID, id uuid.UUID, c AgentChange) (Agent, error) {
	q := newQueries(d)
	a, err := q.AgentUpdate(ctx, AgentUpdateParams{PlatformID: platformID, ID: id, Name: c.Name, IsPaused: c.IsPaused})
	if IsNotFound(err) {
		return a, agent.ErrNotFound()
	}
	if err != nil {
		return a, fmt.Errorf("update agent: %w", err)
	}
	return a, nil
}

// AgentPolicyUpdate merges u into the agent's policy under the agent's row lock (so two
// updates merge one after the other, neither losing the other's members), checks the
// result, including that the accounts it names are open accounts of the agent's customer,
// and stores it; it takes effect with the agent's next request. A change that widens the
// policy is refused unless canTransact (agentpolicy.CheckChange).
func AgentPolicyUpdate(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID, u agentpolicy.Update, canTransact bool) (Agent, error) {
	var out Agent
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		a, err := q.AgentGetForUpdate(ctx, AgentGetForUpdateParams{PlatformID: platformID, ID: id})
		if IsNotFound(err) {
			return agent.ErrNotFound()
		}
		if err != nil {
			return fmt.Errorf("lock agent: %w", err)
		}
		stored, err := agentpolicy.Decode(a.Policy)
		if err != nil {
			return err
		}
		merged, err := stored.Apply("", u)
		if err != nil {
			return err
		}
		if err := agentpolicy.CheckChange(stored, merged, canTransact); err != nil {
			return err
		}
		// Only accounts the update adds are checked: an account the policy already named
		// that was closed since must not block an update that restricts the agent.
		if err := checkPolicyAccounts(ctx, q, a.CustomerID, merged, "", stored.AccountRefs("")...); err != nil {
			return err
		}
		out, err = q.AgentSetPolicy(ctx, AgentSetPolicyParams{ID: id, Policy: merged.Encode()})
		if err != nil {
			return fmt.Errorf("store agent policy: %w", err)
		}
		return nil
	})
	return out, err
}

// AgentDelete deletes an agent of the platform at now; its access token stops working at
// once.
func AgentDelete(ctx context.Context, d DBTX, platformID, id uuid.UUID, now time.Time) error {
	q := newQueries(d)
	n, err := q.AgentMarkDeleted(ctx, AgentMarkDeletedParams{PlatformID: platformID, ID: id, Now: now})
	if err != nil {
		return fmt.Errorf("delete agent: %w", err)
	}
	if n == 0 {
		return agent.ErrNotFound()
	}
	return nil
}

// AgentDeviceCodeIssue issues a new device code (its digest) for an agent of the platform
// that is not connected (else 409 AGENT_ALREADY_CONNECTED); the agent's codes that were not
// redeemed are replaced (at now) and can no longer be redeemed. An agent whose policy moves
// money needs canTransact (agentpolicy.CheckMoneyAgent).
func AgentDeviceCodeIssue(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID, codeHash []byte, expiresAt, now time.Time, canTransact bool) error {
	return withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		a, err := q.AgentGetForUpdate(ctx, AgentGetForUpdateParams{PlatformID: platformID, ID: id})
		if IsNotFound(err) {
			return agent.ErrNotFound()
		}
		if err != nil {
			return fmt.Errorf("lock agent: %w", err)
		}
		if err := agent.CheckRegenerate(a.ConnectedAt != nil); err != nil {
			return err
		}
		policy, err := agentpolicy.Decode(a.Policy)
		if err != nil {
			return err
		}
		if err := agentpolicy.CheckMoneyAgent(policy, canTransact, "a device code for an agent"); err != nil {
			return err
		}
		if c, err := q.CustomerGetByIDForUpdate(ctx, a.CustomerID); err != nil {
			return fmt.Errorf("read the agent's customer: %w", err)
		} else if c.IsDeleted {
			return customer.AlreadyDeleted()
		}
		if err := q.AgentDeviceCodesReplace(ctx, AgentDeviceCodesReplaceParams{AgentID: id, Now: now}); err != nil {
			return fmt.Errorf("replace device codes: %w", err)
		}
		if err := q.AgentDeviceCodeInsert(ctx, AgentDeviceCodeInsertParams{CodeHash: codeHash, AgentID: id, ExpiresAt: expiresAt}); err != nil {
			return fmt.Errorf("insert device code: %w", err)
		}
		return nil
	})
}

// AgentRedeem redeems the device code with digest codeHash at now: under the code's and
// its agent's locks the redeem rule (agent.CheckRedeem) decides, then the code is marked
// redeemed and the agent connected with the digest of its new access token (mint issues
// the token for the agent and returns the digest to store), in one transaction. A code
// works once: a second redeem, even a concurrent one, is refused.
func AgentRedeem(ctx context.Context, pool *pgxpool.Pool, codeHash []byte, now time.Time, mint func(agentID uuid.UUID) []byte) (Agent, error) {
	var out Agent
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		// The agent first, then the code: the order issuing a code takes, so a redeem
		// racing an issue waits instead of deadlocking.
		agentID, err := q.AgentDeviceCodeAgent(ctx, codeHash)
		if err == nil {
			if _, err = q.AgentLockByID(ctx, agentID); err != nil && !IsNotFound(err) {
				return fmt.Errorf("lock agent: %w", err)
			}
		} else if !IsNotFound(err) {
			return fmt.Errorf("find device code: %w", err)
		}
		c, err := q.AgentDeviceCodeLock(ctx, codeHash)
		if err != nil && !IsNotFound(err) {
			return fmt.Errorf("lock device code: %w", err)
		}
		st := agent.CodeState{Found: err == nil, Redeemed: c.RedeemedAt != nil, Replaced: c.ReplacedAt != nil,
			ExpiresAt: c.ExpiresAt, AgentConnected: c.ConnectedAt != nil}
		if err := agent.CheckRedeem(st, now); err != nil {
			return err
		}
		if c.CustomerDeleted {
			return customer.AlreadyDeleted()
		}
		if n, err := q.AgentDeviceCodeMarkRedeemed(ctx, AgentDeviceCodeMarkRedeemedParams{CodeHash: codeHash, Now: now}); err != nil {
			return fmt.Errorf("mark device code redeemed: %w", err)
		} else if n != 1 {
			return fmt.Errorf("mark device code redeemed: %d rows changed under the lock", n)
		}
		out, err = q.AgentConnect(ctx, AgentConnectParams{ID: c.AgentID, TokenHash: mint(c.AgentID), Now: now})
		if err != nil {
			return fmt.Errorf("connect agent: %w", err)
		}
		return nil
	})
	return out, err
}

// RateLimitHit counts one attempt under key now (the database's clock) in a window of the
// given length and returns the window's count, this attempt included.
func RateLimitHit(ctx context.Context, d DBTX, key string, window time.Duration) (agent.Counted, error) {
	q := newQueries(d)
	r, err := q.RateLimitHit(ctx, RateLimitHitParams{Key: key, WindowMs: float64(window.Milliseconds())})
	if err != nil {
		return agent.Counted{}, fmt.Errorf("count attempt under %s: %w", key, err)
	}
	return agent.Counted{Attempts: int(r.Attempts), WindowEnds: r.WindowEnds}, nil
}

// AgentFilter selects the live agents of one platform; nil fields do not filter.
type AgentFilter struct {
	PlatformID                  uuid.UUID
	CustomerID                  uuid.NullUUID
	IsPaused                    *bool
	IsConnected                 *bool
	CreatedAfter, CreatedBefore *time.Time // inclusive
	UpdatedAfter, UpdatedBefore *time.Time // inclusive
}

// AgentPage reads one page of a platform's agents, newest first, counted row by row.
func AgentPage(ctx context.Context, conn ListDB, f AgentFilter, p Page[IDPos]) (Result[Agent], error) {
	q := listQuery{from: "agents g", alias: "g", columns: "g.*",
		dates: dateRange{column: "created_at", from: f.CreatedAfter, to: f.CreatedBefore}}
	q.and("g.platform_id = ?", f.PlatformID)
	q.and("g.deleted_at IS NULL")
	if f.CustomerID.Valid {
		q.and("g.customer_id = ?", f.CustomerID.UUID)
	}
	if f.IsPaused != nil {
		q.and("g.is_paused = ?", *f.IsPaused)
	}
	if f.IsConnected != nil {
		if *f.IsConnected {
			q.and("g.connected_at IS NOT NULL")
		} else {
			q.and("g.connected_at IS NULL")
		}
	}
	if f.UpdatedAfter != nil {
		q.and("g.updated_at >= ?", *f.UpdatedAfter)
	}
	if f.UpdatedBefore != nil {
		q.and("g.updated_at <= ?", *f.UpdatedBefore)
	}
	return listByID(ctx, conn, q, p, pgx.RowToStructByPos[Agent])
}
