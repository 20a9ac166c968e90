-- +goose Up

-- The on-chain transactions of a payment, as its rails reported them ({"transactionHash",
-- "network"}): the one that delivered it to an external crypto wallet (destination_on_chain)
-- and the crypto deposit that funded it (source_on_chain); NULL where there is none.
ALTER TABLE transactions ADD COLUMN destination_on_chain jsonb, ADD COLUMN source_on_chain jsonb;

-- +goose Down
ALTER TABLE transactions DROP COLUMN destination_on_chain, DROP COLUMN source_on_chain;
