-- +goose Up

-- Cross-currency payments. A quote locks a priced conversion for a few minutes; its
-- transaction (kind QUOTE) exists from the start, PENDING, and follows the quote through
-- execution. The quote's own status is its transaction's status.

-- One payment now posts in two currencies (the sending leg and the receiving leg): every
-- currency of a transaction's entries must sum to zero on its own, which also keeps each
-- currency's total conserved.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_entries_balanced() RETURNS trigger AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM ledger_entries WHERE transaction_id = NEW.transaction_id
               GROUP BY currency HAVING sum(amount) <> 0) THEN
        RAISE EXCEPTION 'unbalanced ledger postings for transaction %', NEW.transaction_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

-- FX accounts hold the service's position in each currency (what conversions took in
-- minus what they paid out); FEES accounts collect the fees charged on conversions.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('INTERNAL', 'SETTLEMENT', 'SANDBOX_FUNDING', 'FX', 'FEES'));

ALTER TABLE transactions DROP CONSTRAINT transactions_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_kind_check
    CHECK (kind IN ('TRANSFER_IN', 'TRANSFER_OUT', 'SANDBOX_FUNDING', 'QUOTE'));
ALTER TABLE transactions
    -- What the recipient receives, in its currency; NULL when it is currency/amount.
    ADD COLUMN receiving_currency text,
    ADD COLUMN receiving_amount   bigint CHECK (receiving_amount > 0),
    ADD COLUMN quote_id           uuid,
    -- The conversion's terms as the quote locked them: fees in the sending currency, the
    -- exchange rate (sending units per receiving unit) and the rate details as shown.
    ADD COLUMN fees                     bigint CHECK (fees >= 0),
    ADD COLUMN exchange_rate            numeric CHECK (exchange_rate > 0),
    ADD COLUMN rate_details             jsonb,
    ADD COLUMN counterparty_information jsonb,
    -- The refund of a payment that failed after its money was taken.
    ADD COLUMN refund_status       text CHECK (refund_status IN ('PENDING', 'COMPLETED', 'FAILED')),
    ADD COLUMN refund_reason       text CHECK (refund_reason IN ('TRANSACTION_FAILED', 'USER_CANCELLATION', 'TIMEOUT')),
    ADD COLUMN refund_initiated_at timestamptz,
    ADD COLUMN refund_settled_at   timestamptz,
    ADD CONSTRAINT transactions_refund CHECK ((refund_status IS NULL) = (refund_initiated_at IS NULL));
CREATE UNIQUE INDEX transactions_quote_idx ON transactions (quote_id) WHERE quote_id IS NOT NULL;

CREATE TABLE quotes (
    id                       uuid PRIMARY KEY,
    platform_id              uuid        NOT NULL REFERENCES platforms (id),
    customer_id              uuid REFERENCES customers (id),
    transaction_id           uuid        NOT NULL UNIQUE REFERENCES transactions (id),
    source_kind              text        NOT NULL CHECK (source_kind IN ('ACCOUNT', 'REALTIME_FUNDING')),
    source_account_id        uuid REFERENCES internal_accounts (id),
    crypto_network           text,
    destination_kind         text        NOT NULL CHECK (destination_kind IN ('ACCOUNT', 'UMA_ADDRESS')),
    destination_account_id   uuid,
    destination_internal     boolean     NOT NULL DEFAULT false,
    destination_identifier   text        NOT NULL DEFAULT '',
    destination_uma          text,
    payment_rail             text,
    -- The currencies and amounts are the transaction's (currency and amount are the total
    -- sent); the quote keeps what was locked and the terms it was priced with.
    locked_side              text        NOT NULL CHECK (locked_side IN ('SENDING', 'RECEIVING')),
    locked_amount            bigint      NOT NULL CHECK (locked_amount > 0),
    multiplier               numeric     NOT NULL CHECK (multiplier > 0),
    fixed_fee                bigint      NOT NULL CHECK (fixed_fee >= 0),
    variable_fee_rate        numeric     NOT NULL CHECK (variable_fee_rate >= 0),
    description              text,
    purpose_of_payment       text,
    sender_customer_info     jsonb,
    expires_at               timestamptz NOT NULL,
    -- An embedded-wallet source's signed request (signed_requests.id) whose payloadToSign
    -- the quote's payment instructions carry.
    signed_request_id        uuid,
    -- Execution: who executed it (a hash of the request's key), and when.
    execute_key              text,
    executed_at              timestamptz,
    created_at               timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT quotes_executed CHECK ((execute_key IS NULL) = (executed_at IS NULL)),
    CONSTRAINT quotes_source CHECK ((source_kind = 'ACCOUNT') = (source_account_id IS NOT NULL)),
    CONSTRAINT quotes_destination CHECK ((destination_kind = 'ACCOUNT') = (destination_account_id IS NOT NULL))
);
CREATE INDEX quotes_platform_idx ON quotes (platform_id, created_at, id);

-- +goose Down
DROP TABLE quotes;
DROP INDEX transactions_quote_idx;
ALTER TABLE transactions DROP CONSTRAINT transactions_refund,
    DROP COLUMN receiving_currency, DROP COLUMN receiving_amount, DROP COLUMN quote_id,
    DROP COLUMN fees, DROP COLUMN exchange_rate, DROP COLUMN rate_details, DROP COLUMN counterparty_information,
    DROP COLUMN refund_status, DROP COLUMN refund_reason, DROP COLUMN refund_initiated_at, DROP COLUMN refund_settled_at;
ALTER TABLE transactions DROP CONSTRAINT transactions_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_kind_check
    CHECK (kind IN ('TRANSFER_IN', 'TRANSFER_OUT', 'SANDBOX_FUNDING'));
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('INTERNAL', 'SETTLEMENT', 'SANDBOX_FUNDING'));
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_entries_balanced() RETURNS trigger AS $$
BEGIN
    IF (SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE transaction_id = NEW.transaction_id) <> 0 THEN
        RAISE EXCEPTION 'unbalanced ledger postings for transaction %', NEW.transaction_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF (SELECT count(DISTINCT currency) FROM ledger_entries WHERE transaction_id = NEW.transaction_id) > 1 THEN
        RAISE EXCEPTION 'ledger postings of transaction % mix currencies', NEW.transaction_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd
