-- name: AgentActionInsert :one
INSERT INTO agent_actions (id, workflow_id, platform_id, agent_id, customer_id, type, status, quote_id, transaction_id,
                           internal_account_id, external_account_id, amount, currency, description,
                           reserved_amount, reserved_currency, reserved_at, approval_expires_at)
VALUES (@id, @workflow_id, @platform_id, @agent_id, @customer_id, @type, @status, sqlc.narg(quote_id), @transaction_id,
        @internal_account_id, sqlc.narg(external_account_id), @amount, @currency, sqlc.narg(description),
        @reserved_amount, @reserved_currency, @reserved_at, sqlc.narg(approval_expires_at))
RETURNING *;

-- name: AgentActionGetByID :one
SELECT * FROM agent_actions WHERE id = @id;

-- name: AgentActionGetByWorkflow :one
-- The action a workflow submitted, of the platform.
SELECT * FROM agent_actions WHERE platform_id = @platform_id AND workflow_id = @workflow_id;

-- name: AgentActionGet :one
-- An action of one of the platform's agents.
SELECT * FROM agent_actions WHERE platform_id = @platform_id AND agent_id = @agent_id AND id = @id;

-- name: AgentActionLock :one
SELECT * FROM agent_actions WHERE id = @id FOR UPDATE;

-- name: AgentActionLockLiveByTransaction :one
-- The approved action whose transaction this is, locked (none when no agent action made it).
SELECT * FROM agent_actions WHERE transaction_id = @transaction_id AND status = 'APPROVED' FOR UPDATE;

-- name: AgentActionSetStatus :one
-- Moves an action from one of the expected statuses to the next; no row means it moved
-- already. release marks its reservation given back.
UPDATE agent_actions
SET status = @status, rejection_reason = coalesce(sqlc.narg(rejection_reason), rejection_reason),
    failure_reason = coalesce(sqlc.narg(failure_reason), failure_reason),
    released_at = CASE WHEN @release::boolean THEN coalesce(released_at, @now::timestamptz) ELSE released_at END,
    updated_at = now()
WHERE id = @id AND status = ANY(@from_statuses::text[])
RETURNING *;

-- name: AgentActionCustomerRefs :many
-- The platform's own ids of actions' customers.
SELECT id, platform_customer_id FROM customers WHERE id = ANY(@ids::uuid[]);

-- name: AgentActionQuotes :many
-- Actions' quotes with their transactions, as QuoteGetByID reads one.
SELECT sqlc.embed(q), sqlc.embed(t), coalesce(s.payload, '')::text AS payload_to_sign
FROM quotes q
JOIN transactions t ON t.id = q.transaction_id
LEFT JOIN signed_requests s ON s.id = q.signed_request_id
WHERE q.id = ANY(@ids::uuid[]);

-- name: AgentActionTransactions :many
-- The transactions actions made (executed by their agent).
SELECT * FROM transactions WHERE id = ANY(@ids::uuid[]) AND agent_id IS NOT NULL;

-- name: AgentActionAgentState :one
-- Whether an action's agent may still act, read under a share lock as the approval
-- executes it.
SELECT is_paused, (deleted_at IS NOT NULL)::boolean AS deleted FROM agents WHERE id = @id FOR SHARE;
