-- +goose Up

-- Wrong one-time codes per EMAIL_OTP credential, across codes: issuing a new code leaves
-- this row alone; a correct code deletes it. failures drives the growing lock windows,
-- recent_failures (the times of the wrong codes of the last 24 hours, at most 20) the
-- daily cap. Kept in Postgres so every API instance sees the same lock.
CREATE TABLE auth_otp_lockouts (
    credential_id   uuid PRIMARY KEY REFERENCES auth_credentials (id),
    failures        integer       NOT NULL DEFAULT 0,
    recent_failures timestamptz[] NOT NULL DEFAULT '{}',
    locked_until    timestamptz,
    updated_at      timestamptz   NOT NULL DEFAULT now()
);

-- One-time codes have at least 6 characters: raise shorter configured lengths, which the
-- service no longer honours.
UPDATE platforms
SET embedded_wallet_config = jsonb_set(embedded_wallet_config, '{otpLength}', '6'), updated_at = now()
WHERE jsonb_typeof(embedded_wallet_config -> 'otpLength') = 'number'
  AND (embedded_wallet_config ->> 'otpLength')::numeric < 6;

-- +goose Down
-- (Raised OTP lengths are not lowered again.)
DROP TABLE auth_otp_lockouts;
