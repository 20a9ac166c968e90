-- +goose Up

-- A payment to a UMA address of another provider: what that provider answered the quote's
-- pay request with (quote.Remote as JSON: the conversion it locked, its invoice, where it
-- asks to be told of the payment's channels). The quote's payout pays this invoice, and
-- only it: a retried step finds it here instead of asking again.
CREATE TABLE uma_sends (
    transaction_id uuid        PRIMARY KEY REFERENCES transactions (id),
    domain         text        NOT NULL,
    invoice        text        NOT NULL,
    terms          jsonb       NOT NULL,
    created_at     timestamptz NOT NULL
);

-- +goose Down
DROP TABLE uma_sends;
