-- +goose Up

-- A payment received over UMA from another provider (an INCOMING transaction) is collected
-- by an invoice of the deployment's node: the invoice names the transaction it collects
-- (for_transaction). Its settlement finishes that payment through its workflow rather than
-- crediting the account directly; transaction_id records the payment once it credited.
ALTER TABLE lightning_invoices ADD COLUMN for_transaction uuid UNIQUE REFERENCES transactions (id);

-- What the payer sent, when it was sent in another currency than the one received (a UMA
-- payment received in USD, sent in satoshis): the ledger takes sent_amount of
-- sent_currency from the rail's funds and converts it.
ALTER TABLE transactions ADD COLUMN sent_currency text CHECK (sent_currency ~ '^[A-Z]{3}$'),
    ADD COLUMN sent_amount bigint CHECK (sent_amount > 0),
    ADD CONSTRAINT transactions_sent_check CHECK ((sent_currency IS NULL) = (sent_amount IS NULL));

-- +goose Down
ALTER TABLE transactions DROP CONSTRAINT transactions_sent_check, DROP COLUMN sent_amount, DROP COLUMN sent_currency;
ALTER TABLE lightning_invoices DROP COLUMN for_transaction;
