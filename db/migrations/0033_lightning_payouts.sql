-- +goose Up

-- The invoice a payout to a Lightning address resolved to, by the payment's rail key (its
-- transaction): recorded before it is paid, so that submitting the payment again pays the
-- same invoice (the node never pays one hash twice) instead of resolving a new one.
CREATE TABLE lightning_payouts (
    key             text        PRIMARY KEY,
    payment_request text        NOT NULL,
    created_at      timestamptz NOT NULL
);

-- +goose Down
DROP TABLE lightning_payouts;
