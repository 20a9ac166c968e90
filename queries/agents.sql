-- name: AgentCustomerLock :one
-- The customer a new agent acts for, locked (FOR SHARE) until the agent is written so that
-- it cannot be deleted meanwhile.
SELECT id, is_deleted FROM customers WHERE platform_id = @platform_id AND id = @id FOR SHARE;

-- name: AgentCustomerAccounts :many
-- Which of ids are internal accounts of the customer that are not closed.
SELECT id FROM internal_accounts
WHERE customer_id = @customer_id AND id = ANY(@ids::uuid[]) AND status <> 'CLOSED';

-- name: AgentInsert :one
INSERT INTO agents (id, platform_id, customer_id, name, policy)
VALUES (@id, @platform_id, @customer_id, @name, @policy)
RETURNING *;

-- name: AgentGet :one
SELECT * FROM agents WHERE platform_id = @platform_id AND id = @id AND deleted_at IS NULL;

-- name: AgentGetForUpdate :one
SELECT * FROM agents WHERE platform_id = @platform_id AND id = @id AND deleted_at IS NULL FOR NO KEY UPDATE;

-- name: AgentUpdate :one
-- PATCH /agents/{agentId}: the members given (name, isPaused) change.
UPDATE agents
SET name = coalesce(sqlc.narg(name)::text, name), is_paused = coalesce(sqlc.narg(is_paused)::boolean, is_paused), updated_at = now()
WHERE platform_id = @platform_id AND id = @id AND deleted_at IS NULL
RETURNING *;

-- name: AgentSetPolicy :one
UPDATE agents SET policy = @policy, updated_at = now()
WHERE id = @id AND deleted_at IS NULL
RETURNING *;

-- name: AgentMarkDeleted :execrows
-- Deleting an agent revokes its access token at once (authentication reads deleted_at).
UPDATE agents SET deleted_at = @now::timestamptz, updated_at = now()
WHERE platform_id = @platform_id AND id = @id AND deleted_at IS NULL;

-- name: AgentDeviceCodeInsert :exec
INSERT INTO agent_device_codes (code_hash, agent_id, expires_at) VALUES (@code_hash, @agent_id, @expires_at);

-- name: AgentDeviceCodesReplace :exec
-- A new code replaces the agent's codes that were not redeemed.
UPDATE agent_device_codes SET replaced_at = @now::timestamptz
WHERE agent_id = @agent_id AND redeemed_at IS NULL AND replaced_at IS NULL;

-- name: AgentDeviceCodeRetire :execrows
-- A code tried wrongly too often dies: it is marked replaced unless it was redeemed.
UPDATE agent_device_codes SET replaced_at = @now::timestamptz
WHERE code_hash = @code_hash AND redeemed_at IS NULL AND replaced_at IS NULL;

-- name: AgentDeviceCodeAgent :one
-- The agent a code was issued to (read without a lock: the redeem locks the agent first).
SELECT agent_id FROM agent_device_codes WHERE code_hash = @code_hash;

-- name: AgentLockByID :one
-- Locks an agent before its codes, the order every change of its codes takes (issuing one
-- replaces the others), so a redeem and an issue never deadlock.
SELECT id FROM agents WHERE id = @id FOR NO KEY UPDATE;

-- name: AgentDeviceCodeLock :one
-- A code being redeemed with its (live) agent and whether the agent's customer is deleted;
-- the code locked (its agent is already): two redeems of one code, or of two codes of one
-- agent, run one after the other.
SELECT c.agent_id, c.expires_at, c.redeemed_at, c.replaced_at, a.connected_at, cu.is_deleted AS customer_deleted
FROM agent_device_codes c JOIN agents a ON a.id = c.agent_id JOIN customers cu ON cu.id = a.customer_id
WHERE c.code_hash = @code_hash AND a.deleted_at IS NULL
FOR NO KEY UPDATE OF c;

-- name: AgentDeviceCodeMarkRedeemed :execrows
UPDATE agent_device_codes SET redeemed_at = @now::timestamptz
WHERE code_hash = @code_hash AND redeemed_at IS NULL AND replaced_at IS NULL;

-- name: AgentConnect :one
UPDATE agents SET connected_at = @now::timestamptz, token_hash = @token_hash, updated_at = now()
WHERE id = @id AND connected_at IS NULL AND deleted_at IS NULL
RETURNING *;

-- name: AgentDeviceCodeStatus :one
-- A code of one of the platform's live agents that was not replaced.
SELECT c.agent_id, c.expires_at, c.redeemed_at
FROM agent_device_codes c JOIN agents a ON a.id = c.agent_id
WHERE c.code_hash = @code_hash AND a.platform_id = @platform_id AND a.deleted_at IS NULL AND c.replaced_at IS NULL;

-- name: AgentAuthenticate :one
-- One indexed read per agent request: the live, connected agent with its current policy, its customer's state
-- and its platform's environment.
SELECT a.id, a.platform_id, a.customer_id, a.token_hash, a.is_paused, a.policy, c.is_deleted AS customer_deleted, p.environment
FROM agents a
JOIN customers c ON c.id = a.customer_id
JOIN platforms p ON p.id = a.platform_id
WHERE a.id = @id AND a.deleted_at IS NULL AND a.token_hash IS NOT NULL;

-- name: RateLimitHit :one
-- Counts one attempt under key now (the database's clock, the same for every API
-- instance): a window that ended starts again (at 1, for window_ms milliseconds); otherwise
-- the attempts of the current window go up by one. Atomic, so concurrent attempts on every
-- API instance are all counted.
INSERT INTO rate_limits AS r (key, attempts, window_ends)
VALUES (@key, 1, now() + make_interval(secs => sqlc.arg(window_ms)::float8 / 1000))
ON CONFLICT (key) DO UPDATE
SET attempts    = CASE WHEN r.window_ends <= now() THEN 1 ELSE least(r.attempts + 1, 1000000000) END,
    window_ends = CASE WHEN r.window_ends <= now() THEN now() + make_interval(secs => sqlc.arg(window_ms)::float8 / 1000) ELSE r.window_ends END
RETURNING attempts, window_ends;

-- name: RateLimitsDeleteEnded :execrows
DELETE FROM rate_limits WHERE window_ends <= now();

-- name: AgentUsageEnsure :exec
-- Creates the agent's usage row, empty in the given windows, unless it exists.
INSERT INTO agent_usage (agent_id, currency, currency_since, day, month) VALUES (@agent_id, @currency, @currency_since, @day, @month)
ON CONFLICT (agent_id) DO NOTHING;

-- name: AgentUsageLock :one
SELECT * FROM agent_usage WHERE agent_id = @agent_id FOR UPDATE;

-- name: AgentUsageSet :exec
UPDATE agent_usage
SET currency = @currency, currency_since = @currency_since, day = @day, daily_spend = @daily_spend, daily_count = @daily_count, month = @month,
    monthly_spend = @monthly_spend, updated_at = now()
WHERE agent_id = @agent_id;

-- name: AgentUsageGet :many
SELECT * FROM agent_usage WHERE agent_id = ANY(@agent_ids::uuid[]);

-- name: AgentShareLive :one
-- The live agent an action is submitted for, locked against a policy change (which takes
-- the row FOR NO KEY UPDATE) until the action and its reservation are written.
SELECT * FROM agents WHERE platform_id = @platform_id AND id = @id AND deleted_at IS NULL FOR SHARE;
