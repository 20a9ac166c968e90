-- +goose Up

-- Customers of a platform: individuals and businesses.
CREATE TABLE customers (
    id                   uuid PRIMARY KEY,
    platform_id          uuid        NOT NULL REFERENCES platforms (id),
    platform_customer_id text        NOT NULL,
    customer_type        text        NOT NULL CHECK (customer_type IN ('INDIVIDUAL', 'BUSINESS')),
    region               text        NOT NULL,
    currencies           text[]      NOT NULL,
    email                text,
    uma_address          text        NOT NULL,
    kyc_status           text        NOT NULL DEFAULT 'UNVERIFIED'
        CHECK (kyc_status IN ('UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED')),
    full_name            text,
    birth_date           date,
    nationality          text,
    address              jsonb,
    business_info        jsonb,
    is_deleted           boolean     NOT NULL DEFAULT false,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    UNIQUE (platform_id, uma_address),
    UNIQUE (platform_id, platform_customer_id)
);
CREATE INDEX customers_platform_idx ON customers (platform_id, id);

-- The ledger. Every account that can hold money in one currency: customer and platform
-- internal accounts (kind INTERNAL) and per-platform system accounts standing for the
-- outside world (SETTLEMENT) and for sandbox money (SANDBOX_FUNDING). balance is posted
-- money; held is reserved by pending transfers out. Internal accounts never go below zero
-- available; system accounts mirror the outside and go negative.
CREATE TABLE ledger_accounts (
    id          uuid PRIMARY KEY,
    platform_id uuid        NOT NULL REFERENCES platforms (id),
    currency    text        NOT NULL,
    kind        text        NOT NULL CHECK (kind IN ('INTERNAL', 'SETTLEMENT', 'SANDBOX_FUNDING')),
    balance     bigint      NOT NULL DEFAULT 0,
    held        bigint      NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ledger_accounts_held_nonnegative CHECK (held >= 0),
    CONSTRAINT ledger_accounts_available_nonnegative CHECK (kind <> 'INTERNAL' OR balance - held >= 0)
);
CREATE UNIQUE INDEX ledger_accounts_system_idx ON ledger_accounts (platform_id, currency, kind) WHERE kind <> 'INTERNAL';

-- Balanced postings: per transaction the amounts sum to zero (checked at commit below).
CREATE TABLE ledger_entries (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    transaction_id uuid        NOT NULL,
    account_id     uuid        NOT NULL REFERENCES ledger_accounts (id),
    amount         bigint      NOT NULL CHECK (amount <> 0),
    currency       text        NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_transaction_idx ON ledger_entries (transaction_id);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id, id);

-- +goose StatementBegin
CREATE FUNCTION ledger_entries_balanced() RETURNS trigger AS $$
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
CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_entries_balanced();

-- Internal accounts as the API shows them; the money is in ledger_accounts (same id).
CREATE SEQUENCE account_number_seq START 10000001;
CREATE TABLE internal_accounts (
    id                   uuid PRIMARY KEY REFERENCES ledger_accounts (id),
    platform_id          uuid        NOT NULL REFERENCES platforms (id),
    customer_id          uuid REFERENCES customers (id),
    type                 text        NOT NULL CHECK (type IN ('INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET')),
    status               text        NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('PENDING', 'ACTIVE', 'CLOSED', 'FROZEN')),
    currency             text        NOT NULL,
    account_number       bigint      NOT NULL UNIQUE DEFAULT nextval('account_number_seq'),
    funding_instructions jsonb       NOT NULL DEFAULT '[]',
    private_enabled      boolean,
    wallet_sealed        bytea,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX internal_accounts_platform_idx ON internal_accounts (platform_id, id);
CREATE INDEX internal_accounts_customer_idx ON internal_accounts (customer_id, currency);
CREATE UNIQUE INDEX internal_accounts_customer_currency_idx ON internal_accounts (customer_id, currency, type)
    WHERE customer_id IS NOT NULL AND status <> 'CLOSED';
CREATE UNIQUE INDEX internal_accounts_platform_currency_idx ON internal_accounts (platform_id, currency, type)
    WHERE customer_id IS NULL;

-- External accounts: where money goes to or comes from outside the service.
CREATE TABLE external_accounts (
    id                              uuid PRIMARY KEY,
    platform_id                     uuid        NOT NULL REFERENCES platforms (id),
    customer_id                     uuid REFERENCES customers (id),
    currency                        text        NOT NULL,
    account_type                    text        NOT NULL,
    account_info                    jsonb       NOT NULL,
    identifier                      text        NOT NULL,
    platform_account_id             text,
    default_uma_deposit_account     boolean     NOT NULL DEFAULT false,
    beneficiary_verification_status text,
    beneficiary_verified_name       text,
    status                          text        NOT NULL DEFAULT 'ACTIVE'
        CHECK (status IN ('PENDING', 'ACTIVE', 'UNDER_REVIEW', 'INACTIVE')),
    is_deleted                      boolean     NOT NULL DEFAULT false,
    created_at                      timestamptz NOT NULL DEFAULT now(),
    updated_at                      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX external_accounts_platform_idx ON external_accounts (platform_id, id);
CREATE UNIQUE INDEX external_accounts_unique_idx ON external_accounts
    (platform_id, coalesce(customer_id, '00000000-0000-0000-0000-000000000000'::uuid), account_type, identifier)
    WHERE NOT is_deleted;

-- Money movements. source/destination point at internal or external accounts.
CREATE TABLE transactions (
    id                     uuid PRIMARY KEY,
    platform_id            uuid        NOT NULL REFERENCES platforms (id),
    customer_id            uuid REFERENCES customers (id),
    platform_customer_id   text        NOT NULL DEFAULT '',
    kind                   text        NOT NULL CHECK (kind IN ('TRANSFER_IN', 'TRANSFER_OUT', 'SANDBOX_FUNDING')),
    type                   text        NOT NULL CHECK (type IN ('INCOMING', 'OUTGOING')),
    status                 text        NOT NULL CHECK (status IN ('CREATED', 'PENDING', 'PROCESSING', 'COMPLETED',
                                                                  'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED')),
    source_kind            text        NOT NULL CHECK (source_kind IN ('INTERNAL', 'EXTERNAL', 'REALTIME_FUNDING')),
    source_account_id      uuid,
    destination_kind       text        NOT NULL CHECK (destination_kind IN ('INTERNAL', 'EXTERNAL')),
    destination_account_id uuid        NOT NULL,
    currency               text        NOT NULL,
    amount                 bigint      NOT NULL CHECK (amount > 0),
    reference              text        NOT NULL UNIQUE,
    description            text,
    failure_reason         text,
    failure_detail         text,
    settled_at             timestamptz,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX transactions_platform_idx ON transactions (platform_id, created_at, id);
CREATE INDEX transactions_customer_idx ON transactions (customer_id, created_at, id);
CREATE INDEX transactions_source_idx ON transactions (source_account_id);
CREATE INDEX transactions_destination_idx ON transactions (destination_account_id);
CREATE INDEX transactions_status_idx ON transactions (platform_id, status);
CREATE INDEX transactions_reference_idx ON transactions (platform_id, reference);

-- +goose Down
DROP TABLE transactions;
DROP TABLE external_accounts;
DROP TABLE internal_accounts;
DROP SEQUENCE account_number_seq;
DROP TRIGGER ledger_entries_balanced ON ledger_entries;
DROP FUNCTION ledger_entries_balanced();
DROP TABLE ledger_entries;
DROP TABLE ledger_accounts;
DROP TABLE customers;
