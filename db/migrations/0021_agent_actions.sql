-- +goose Up

-- Agent actions: every money movement an agent asks for (internal/agent), each with the
-- durable workflow that submits, awaits approval for and executes it (workflow_id: derived
-- from the request's Idempotency-Key when it had one, so a repeat joins it). An action is
-- written with the reservation of its amount in the agent's usage (agent_usage), in the
-- same database transaction: reserved_amount in reserved_currency (the policy currency
-- then) at reserved_at. released_at is set, once, when the reservation is given back (the
-- action was rejected, expired or failed), so that a retried release gives back nothing.
--
-- transaction_id is the payment the action makes: the quote's transaction for
-- EXECUTE_QUOTE, the transfer's (derived from the action's id, created on execution) for
-- TRANSFER_OUT and TRANSFER_IN. One live action (pending or approved) per transaction.
-- internal_account_id is the account the policy judged (the quote's or the transfer's
-- source, a transfer in's destination); external_account_id is a transfer's other side.
CREATE TABLE agent_actions (
    id                  uuid PRIMARY KEY,
    workflow_id         text        NOT NULL UNIQUE,
    platform_id         uuid        NOT NULL REFERENCES platforms (id),
    agent_id            uuid        NOT NULL REFERENCES agents (id),
    customer_id         uuid        NOT NULL REFERENCES customers (id),
    type                text        NOT NULL CHECK (type IN ('EXECUTE_QUOTE', 'TRANSFER_OUT', 'TRANSFER_IN')),
    status              text        NOT NULL CHECK (status IN ('PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'FAILED')),
    quote_id            uuid REFERENCES quotes (id),
    transaction_id      uuid        NOT NULL,
    internal_account_id uuid        NOT NULL,
    external_account_id uuid,
    amount              bigint      NOT NULL CHECK (amount > 0),
    currency            text        NOT NULL,
    description         text,
    reserved_amount     bigint      NOT NULL CHECK (reserved_amount >= 0),
    reserved_currency   text        NOT NULL,
    reserved_at         timestamptz NOT NULL,
    released_at         timestamptz,
    approval_expires_at timestamptz,
    rejection_reason    text,
    failure_reason      text,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT agent_actions_shape CHECK ((type = 'EXECUTE_QUOTE') = (quote_id IS NOT NULL)
                                          AND (type = 'EXECUTE_QUOTE') = (external_account_id IS NULL)),
    CONSTRAINT agent_actions_released CHECK (released_at IS NULL OR status IN ('REJECTED', 'FAILED'))
);
CREATE UNIQUE INDEX agent_actions_live_transaction_idx ON agent_actions (transaction_id)
    WHERE status IN ('PENDING_APPROVAL', 'APPROVED');
CREATE INDEX agent_actions_transaction_idx ON agent_actions (transaction_id);
CREATE INDEX agent_actions_agent_idx ON agent_actions (agent_id, id);
CREATE INDEX agent_actions_agent_status_idx ON agent_actions (agent_id, status, id);
CREATE INDEX agent_actions_pending_idx ON agent_actions (platform_id, created_at, id) WHERE status = 'PENDING_APPROVAL';

-- The agent that initiated a transaction (a transfer it made, a quote it executed).
ALTER TABLE transactions ADD COLUMN agent_id uuid REFERENCES agents (id);

-- +goose Down
ALTER TABLE transactions DROP COLUMN agent_id;
DROP TABLE agent_actions;
