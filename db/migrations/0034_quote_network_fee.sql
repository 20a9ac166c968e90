-- +goose Up

-- The network fee a quote reserved for its payout, in the receiving currency's minor unit:
-- what its rail's network may charge on top of the receiving amount (a Lightning route's
-- fees). The payer pays it (the quote's counterpartyFixedFee); the payout is given it as
-- its fee limit. NULL for every other transaction, and for quotes created before it.
ALTER TABLE transactions ADD COLUMN network_fee bigint CHECK (network_fee >= 0);

-- +goose Down
ALTER TABLE transactions DROP COLUMN network_fee;
