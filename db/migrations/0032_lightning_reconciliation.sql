-- +goose Up

-- Where reconciling the ledger with a Lightning node starts from: the node's funds and
-- the ledger's LIGHTNING accounts (all platforms, BTC) at one moment. From then on what
-- the node holds must change by exactly what the ledger posts (paycore rails reconcile).
-- Recorded on the first reconciliation, and again when an operator re-bases it after
-- moving the node's funds outside the ledger (opening a channel, paying on-chain fees).
CREATE TABLE lightning_reconciliation_baselines (
    node_pubkey text        PRIMARY KEY,
    node_sats   bigint      NOT NULL,
    ledger_sats bigint      NOT NULL,
    recorded_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE lightning_reconciliation_baselines;
