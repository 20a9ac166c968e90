-- +goose Up

-- What each agent spent in its current usage windows (agentpolicy.Usage): the daily amount
-- and transaction count of day, the monthly amount of month, in the smallest unit of its
-- policy currency (currency). One row per agent, created by its first reservation; a
-- reservation locks the row, resets a window that has passed (UTC) or a currency that is
-- no longer the policy's (from currency_since on, the amounts count in the new one), and
-- adds the amount only if every limit still holds; a release gives it back to the window
-- it was taken from, unless the amounts restarted in a currency since.
CREATE TABLE agent_usage (
    agent_id      uuid PRIMARY KEY REFERENCES agents (id),
    currency       text        NOT NULL CHECK (currency <> ''),
    currency_since timestamptz NOT NULL,
    day           text   NOT NULL CHECK (day ~ '^\d{4}-\d{2}-\d{2}$'),
    daily_spend   bigint NOT NULL DEFAULT 0 CHECK (daily_spend >= 0),
    daily_count   bigint NOT NULL DEFAULT 0 CHECK (daily_count >= 0),
    month         text   NOT NULL CHECK (month ~ '^\d{4}-\d{2}$'),
    monthly_spend bigint NOT NULL DEFAULT 0 CHECK (monthly_spend >= 0),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE agent_usage;
