-- +goose Up

-- One EMAIL_OTP and one PASSKEY credential per account, as before, but as one index per
-- type: a violation then names the type by its constraint name alone.
CREATE UNIQUE INDEX auth_credentials_one_email_otp_idx ON auth_credentials (account_id)
    WHERE deleted_at IS NULL AND type = 'EMAIL_OTP';
CREATE UNIQUE INDEX auth_credentials_one_passkey_idx ON auth_credentials (account_id)
    WHERE deleted_at IS NULL AND type = 'PASSKEY';
DROP INDEX auth_credentials_one_per_type_idx;

-- +goose Down
CREATE UNIQUE INDEX auth_credentials_one_per_type_idx ON auth_credentials (account_id, type)
    WHERE deleted_at IS NULL AND type IN ('EMAIL_OTP', 'PASSKEY');
DROP INDEX auth_credentials_one_passkey_idx;
DROP INDEX auth_credentials_one_email_otp_idx;
