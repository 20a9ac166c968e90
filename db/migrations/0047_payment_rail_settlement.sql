-- +goose Up

-- The payment rail an outgoing payment to a bank account travels on, how it was chosen
-- (AUTO: the first of the account's rails; MANUAL: the platform named it), when it is
-- expected to settle (NULL for an instant rail) and its usual timeline in seconds; and
-- what the platform asked to travel with it (remittanceInformation, purposeOfPayment).
ALTER TABLE transactions
    ADD COLUMN payment_rail                text,
    ADD COLUMN rail_selection_mode         text CONSTRAINT transactions_rail_selection_mode CHECK (rail_selection_mode IN ('AUTO', 'MANUAL')),
    ADD COLUMN expected_settlement_at      timestamptz,
    ADD COLUMN settlement_timeline_seconds bigint CONSTRAINT transactions_settlement_timeline CHECK (settlement_timeline_seconds >= 0),
    ADD COLUMN remittance_information      text,
    ADD COLUMN purpose_of_payment          text,
    -- Who sent the deposit that funded a quote, as its rail reported it (the source's
    -- originator fields).
    ADD COLUMN originator                  jsonb,
    ADD CONSTRAINT transactions_rail_chosen CHECK ((payment_rail IS NULL) = (rail_selection_mode IS NULL));

-- +goose Down
ALTER TABLE transactions DROP CONSTRAINT transactions_rail_chosen, DROP COLUMN payment_rail, DROP COLUMN rail_selection_mode,
    DROP COLUMN expected_settlement_at, DROP COLUMN settlement_timeline_seconds, DROP COLUMN remittance_information,
    DROP COLUMN purpose_of_payment, DROP COLUMN originator;
