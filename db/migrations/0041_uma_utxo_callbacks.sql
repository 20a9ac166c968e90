-- +goose Up

-- What the sending provider of a payment received over UMA reported, once the payment
-- settled, about the channels that carried it (its post-transaction callback, UMAD-07): kept
-- as it came, once per payment, for the receiving platform's compliance records.
CREATE TABLE uma_utxo_callbacks (
    transaction_id uuid        PRIMARY KEY REFERENCES transactions (id),
    vasp_domain    text        NOT NULL,
    utxos          jsonb       NOT NULL,
    received_at    timestamptz NOT NULL
);

-- +goose Down
DROP TABLE uma_utxo_callbacks;
