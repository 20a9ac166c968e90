-- +goose Up

-- A platform's standing fees (PATCH /config feeConfigs, merged by (feeType,
-- sourceCurrency)): a JSON array of FeeConfig, empty when it charges none.
ALTER TABLE platforms ADD COLUMN fee_configs jsonb NOT NULL DEFAULT '[]'::jsonb
    CONSTRAINT platforms_fee_configs_array CHECK (jsonb_typeof(fee_configs) = 'array');

-- The platform's share of a quote's fees (part of fees) and the platform's own internal
-- account it is paid to when the payment's money leaves.
ALTER TABLE transactions
    ADD COLUMN platform_fees           bigint CONSTRAINT transactions_platform_fees CHECK (platform_fees >= 0 AND platform_fees <= fees),
    ADD COLUMN platform_fee_account_id uuid REFERENCES ledger_accounts (id),
    ADD CONSTRAINT transactions_platform_fee_paid_to CHECK (coalesce(platform_fees, 0) = 0 OR platform_fee_account_id IS NOT NULL);

-- +goose Down
ALTER TABLE transactions DROP CONSTRAINT transactions_platform_fee_paid_to, DROP COLUMN platform_fee_account_id, DROP COLUMN platform_fees;
ALTER TABLE platforms DROP COLUMN fee_configs;
