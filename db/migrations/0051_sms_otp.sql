-- +goose Up

-- SMS_OTP credentials: one-time codes sent by text message to the credential's number (its
-- nickname, E.164), one per account like EMAIL_OTP.
ALTER TABLE auth_credentials DROP CONSTRAINT auth_credentials_type_check;
ALTER TABLE auth_credentials ADD CONSTRAINT auth_credentials_type_check CHECK (type IN ('EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY'));
CREATE UNIQUE INDEX auth_credentials_one_sms_otp_idx ON auth_credentials (account_id)
    WHERE deleted_at IS NULL AND type = 'SMS_OTP';

-- +goose Down
DROP INDEX auth_credentials_one_sms_otp_idx;
DELETE FROM auth_otps WHERE credential_id IN (SELECT id FROM auth_credentials WHERE type = 'SMS_OTP');
DELETE FROM auth_otp_lockouts WHERE credential_id IN (SELECT id FROM auth_credentials WHERE type = 'SMS_OTP');
DELETE FROM auth_sessions WHERE credential_id IN (SELECT id FROM auth_credentials WHERE type = 'SMS_OTP');
DELETE FROM auth_credentials WHERE type = 'SMS_OTP';
ALTER TABLE auth_credentials DROP CONSTRAINT auth_credentials_type_check;
ALTER TABLE auth_credentials ADD CONSTRAINT auth_credentials_type_check CHECK (type IN ('EMAIL_OTP', 'OAUTH', 'PASSKEY'));
