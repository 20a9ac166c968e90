-- +goose Up

-- Payments to UMA addresses: the destination is the receiver's address; for a customer of
-- a platform on this deployment, also the internal account the payment credits.
ALTER TABLE transactions ALTER COLUMN destination_account_id DROP NOT NULL;
ALTER TABLE transactions DROP CONSTRAINT transactions_destination_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_destination_kind_check
    CHECK (destination_kind IN ('INTERNAL', 'EXTERNAL', 'UMA_ADDRESS'));
ALTER TABLE transactions ADD COLUMN destination_uma_address text;
ALTER TABLE transactions ADD CONSTRAINT transactions_destination
    CHECK (destination_kind = 'UMA_ADDRESS' OR destination_account_id IS NOT NULL);
-- The INCOMING transaction a payment to a customer of this deployment creates on the
-- receiving platform.
ALTER TABLE transactions ADD COLUMN counterpart_transaction_id uuid REFERENCES transactions (id);

-- A UMA address is looked up across platforms (a payment to a customer of any platform on
-- this deployment).
CREATE INDEX customers_uma_address_idx ON customers (uma_address) WHERE NOT is_deleted;

-- Receiver lookups (GET /receiver/...): what a quote's lookupId refers to.
CREATE TABLE receiver_lookups (
    id                  uuid PRIMARY KEY,
    platform_id         uuid        NOT NULL REFERENCES platforms (id),
    receiver_uma        text,
    external_account_id uuid REFERENCES external_accounts (id),
    currencies          text[]      NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT receiver_lookups_receiver CHECK ((receiver_uma IS NULL) <> (external_account_id IS NULL))
);

-- +goose Down
DROP TABLE receiver_lookups;
DROP INDEX customers_uma_address_idx;
ALTER TABLE transactions DROP COLUMN counterpart_transaction_id;
ALTER TABLE transactions DROP CONSTRAINT transactions_destination;
ALTER TABLE transactions DROP COLUMN destination_uma_address;
ALTER TABLE transactions DROP CONSTRAINT transactions_destination_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_destination_kind_check
    CHECK (destination_kind IN ('INTERNAL', 'EXTERNAL'));
ALTER TABLE transactions ALTER COLUMN destination_account_id SET NOT NULL;
