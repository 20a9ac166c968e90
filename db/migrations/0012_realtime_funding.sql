-- +goose Up

-- Quotes funded in real time: the quote carries the deposit instructions for its funding
-- currency (their reference identifies the quote), and records the deposit that arrived.
-- A deposit is held in the platform's DEPOSITS account of its currency until the payment
-- ends: converted when it completes, given back to the payer otherwise.
ALTER TABLE quotes
    ADD COLUMN payment_instructions jsonb,
    ADD COLUMN deposit_amount       bigint CHECK (deposit_amount > 0),
    -- Which request the deposit came with: a repeat of it is answered, another refused.
    ADD COLUMN deposit_key          text;
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('INTERNAL', 'SETTLEMENT', 'SANDBOX_FUNDING', 'FX', 'FEES', 'DEPOSITS'));

-- +goose Down
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('INTERNAL', 'SETTLEMENT', 'SANDBOX_FUNDING', 'FX', 'FEES'));
ALTER TABLE quotes DROP COLUMN deposit_key, DROP COLUMN deposit_amount, DROP COLUMN payment_instructions;
