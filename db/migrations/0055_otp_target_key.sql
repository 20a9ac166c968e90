-- +goose Up

-- The target key of a pending one-time code (walletcrypto.OTPTargetBundle): the client
-- encrypts its attempt to it. Sealed with the deployment's secret box; replaced with the code.
ALTER TABLE auth_otps ADD COLUMN target_key_sealed bytea;

-- +goose Down
ALTER TABLE auth_otps DROP COLUMN target_key_sealed;
