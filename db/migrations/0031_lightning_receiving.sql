-- +goose Up

-- Money received over Lightning into internal accounts. Each invoice the deployment's node
-- created for an account is recorded with it; once the node reports it settled, its
-- payment credits the account once, as a LIGHTNING_IN transaction (transaction_id, set
-- when that transaction is created, makes the credit happen only once).
CREATE TABLE lightning_invoices (
    payment_hash    bytea       PRIMARY KEY CHECK (length(payment_hash) = 32),
    platform_id     uuid        NOT NULL REFERENCES platforms (id),
    account_id      uuid        NOT NULL REFERENCES internal_accounts (id),
    payment_request text        NOT NULL,
    -- In satoshis; NULL: the payer chooses the amount.
    amount          bigint      CHECK (amount > 0),
    expires_at      timestamptz NOT NULL,
    created_at      timestamptz NOT NULL,
    transaction_id  uuid        UNIQUE REFERENCES transactions (id)
);
-- The open invoice of an account that its funding instructions show.
CREATE INDEX lightning_invoices_open_idx ON lightning_invoices (account_id, expires_at DESC) WHERE transaction_id IS NULL AND amount IS NULL;

-- How far the watcher of each node has read the node's settled invoices (LND's settle
-- index): after a restart it asks the node for every invoice settled since.
CREATE TABLE lightning_settle_cursors (
    node_pubkey  text   PRIMARY KEY,
    settle_index bigint NOT NULL CHECK (settle_index >= 0)
);

ALTER TABLE transactions DROP CONSTRAINT transactions_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_kind_check
    CHECK (kind IN ('TRANSFER_IN', 'TRANSFER_OUT', 'SANDBOX_FUNDING', 'QUOTE', 'UMA_IN', 'LIGHTNING_IN'));

-- +goose Down
ALTER TABLE transactions DROP CONSTRAINT transactions_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_kind_check
    CHECK (kind IN ('TRANSFER_IN', 'TRANSFER_OUT', 'SANDBOX_FUNDING', 'QUOTE', 'UMA_IN'));
DROP TABLE lightning_settle_cursors;
DROP TABLE lightning_invoices;
