-- +goose Up

-- Payments received over UMA: their source is the sender's UMA address, and the receiving
-- platform's approval may add what it says of the receiver.
ALTER TABLE transactions DROP CONSTRAINT transactions_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_kind_check
    CHECK (kind IN ('TRANSFER_IN', 'TRANSFER_OUT', 'SANDBOX_FUNDING', 'QUOTE', 'UMA_IN'));
ALTER TABLE transactions DROP CONSTRAINT transactions_source_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_source_kind_check
    CHECK (source_kind IN ('INTERNAL', 'EXTERNAL', 'REALTIME_FUNDING', 'UMA_ADDRESS'));
ALTER TABLE transactions
    ADD COLUMN source_uma_address     text,
    ADD COLUMN receiver_customer_info jsonb;

-- +goose Down
ALTER TABLE transactions DROP COLUMN receiver_customer_info, DROP COLUMN source_uma_address;
ALTER TABLE transactions DROP CONSTRAINT transactions_source_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_source_kind_check
    CHECK (source_kind IN ('INTERNAL', 'EXTERNAL', 'REALTIME_FUNDING'));
ALTER TABLE transactions DROP CONSTRAINT transactions_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_kind_check
    CHECK (kind IN ('TRANSFER_IN', 'TRANSFER_OUT', 'SANDBOX_FUNDING', 'QUOTE'));
