-- +goose Up

-- Ownership verification of self-custody crypto wallets (internal/ownership): who the
-- account belongs to (ownership_type), the two statuses of an account whose ownership is
-- unproven, and the one outstanding challenge (a message to sign, or a liveness check),
-- replaced whenever a new one is issued and cleared when it is answered.
ALTER TABLE external_accounts ADD COLUMN ownership_type text CHECK (ownership_type IN ('FIRST_PARTY', 'THIRD_PARTY'));
ALTER TABLE external_accounts ADD COLUMN ownership_method text CHECK (ownership_method IN ('WALLET_SIGNATURE', 'LIVENESS'));
ALTER TABLE external_accounts ADD COLUMN ownership_message text;
ALTER TABLE external_accounts ADD COLUMN ownership_expires_at timestamptz;
ALTER TABLE external_accounts ADD CONSTRAINT external_accounts_ownership_challenge_check
    CHECK ((ownership_method IS NULL) = (ownership_expires_at IS NULL)
       AND (ownership_method = 'WALLET_SIGNATURE') = (ownership_message IS NOT NULL));
ALTER TABLE external_accounts DROP CONSTRAINT external_accounts_status_check;
ALTER TABLE external_accounts ADD CONSTRAINT external_accounts_status_check
    CHECK (status IN ('PENDING', 'ACTIVE', 'UNDER_REVIEW', 'INACTIVE', 'PENDING_OWNERSHIP_VERIFICATION', 'UNVERIFIED'));

-- +goose Down
UPDATE external_accounts SET status = 'INACTIVE' WHERE status IN ('PENDING_OWNERSHIP_VERIFICATION', 'UNVERIFIED');
ALTER TABLE external_accounts DROP CONSTRAINT external_accounts_status_check;
ALTER TABLE external_accounts ADD CONSTRAINT external_accounts_status_check
    CHECK (status IN ('PENDING', 'ACTIVE', 'UNDER_REVIEW', 'INACTIVE'));
ALTER TABLE external_accounts DROP CONSTRAINT external_accounts_ownership_challenge_check;
ALTER TABLE external_accounts DROP COLUMN ownership_expires_at;
ALTER TABLE external_accounts DROP COLUMN ownership_message;
ALTER TABLE external_accounts DROP COLUMN ownership_method;
ALTER TABLE external_accounts DROP COLUMN ownership_type;
