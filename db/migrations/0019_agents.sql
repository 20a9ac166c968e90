-- +goose Up

-- Agents: programmatic actors of one platform, bound to one of its customers and acting
-- under policy (internal/agentpolicy, stored as the JSON it renders). An agent connects by
-- redeeming a device code: connected_at and token_hash (the SHA-256 digest of its access
-- token's secret) are set together, once. Deleting an agent marks deleted_at, which
-- revokes its token at once; deleted agents are neither listed nor found.
CREATE TABLE agents (
    id           uuid PRIMARY KEY,
    platform_id  uuid        NOT NULL REFERENCES platforms (id),
    customer_id  uuid        NOT NULL REFERENCES customers (id),
    name         text        NOT NULL CHECK (name <> ''),
    policy       jsonb       NOT NULL CHECK (jsonb_typeof(policy) = 'object'),
    is_paused    boolean     NOT NULL DEFAULT false,
    connected_at timestamptz,
    token_hash   bytea,
    deleted_at   timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT agents_connected CHECK ((connected_at IS NULL) = (token_hash IS NULL))
);
CREATE INDEX agents_platform_idx ON agents (platform_id, id) WHERE deleted_at IS NULL;
CREATE INDEX agents_customer_idx ON agents (platform_id, customer_id, id) WHERE deleted_at IS NULL;

-- Device codes, kept as the SHA-256 digest of their shown form. A code is redeemed once,
-- before expires_at; issuing a new code for the agent marks its unredeemed ones replaced.
CREATE TABLE agent_device_codes (
    code_hash   bytea PRIMARY KEY,
    agent_id    uuid        NOT NULL REFERENCES agents (id),
    expires_at  timestamptz NOT NULL,
    redeemed_at timestamptz,
    replaced_at timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT agent_device_codes_one_end CHECK (redeemed_at IS NULL OR replaced_at IS NULL)
);
CREATE INDEX agent_device_codes_agent_idx ON agent_device_codes (agent_id) WHERE redeemed_at IS NULL AND replaced_at IS NULL;

-- Fixed-window rate-limit counters shared by every API instance (device-code redeem
-- attempts per source address and per code). A window starts with the first attempt after
-- the previous one ended; the worker's janitor deletes windows that ended.
CREATE TABLE rate_limits (
    key         text PRIMARY KEY,
    attempts    integer     NOT NULL CHECK (attempts > 0),
    window_ends timestamptz NOT NULL
);
CREATE INDEX rate_limits_window_ends_idx ON rate_limits (window_ends);

-- +goose Down
DROP TABLE rate_limits;
DROP TABLE agent_device_codes;
DROP TABLE agents;
