-- name: AuthCredentialCreate :one
INSERT INTO auth_credentials (id, platform_id, account_id, type, nickname, details)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING *;

-- name: AuthCredentialGet :one
SELECT * FROM auth_credentials WHERE platform_id = $1 AND id = $2 AND deleted_at IS NULL;

-- name: AuthCredentialListByAccount :many
SELECT * FROM auth_credentials WHERE account_id = $1 AND deleted_at IS NULL ORDER BY created_at, id;

-- name: AuthCredentialDelete :execrows
UPDATE auth_credentials SET deleted_at = sqlc.arg(now)::timestamptz, updated_at = now() WHERE id = $1 AND deleted_at IS NULL;

-- name: AuthOtpUpsert :exec
INSERT INTO auth_otps (credential_id, code_hash, expires_at, attempts, sent_at, target_key_sealed)
VALUES ($1, $2, $3, 0, sqlc.arg(now)::timestamptz, $4)
ON CONFLICT (credential_id) DO UPDATE SET code_hash = EXCLUDED.code_hash, expires_at = EXCLUDED.expires_at, attempts = 0, sent_at = EXCLUDED.sent_at,
    target_key_sealed = EXCLUDED.target_key_sealed;

-- name: AuthOtpTargetKey :one
-- The sealed target key of a credential's pending code (NULL for a code issued without one).
SELECT target_key_sealed FROM auth_otps WHERE credential_id = $1;

-- name: AuthOtpGetForUpdate :one
SELECT * FROM auth_otps WHERE credential_id = $1 FOR UPDATE;

-- name: AuthOtpCountAttempt :exec
UPDATE auth_otps SET attempts = attempts + 1 WHERE credential_id = $1;

-- name: AuthOtpDelete :exec
DELETE FROM auth_otps WHERE credential_id = $1;

-- name: AuthOtpLockoutGet :one
-- The wrong-code record of a credential (none until its first wrong code).
SELECT * FROM auth_otp_lockouts WHERE credential_id = $1;

-- name: AuthOtpLockoutSave :exec
INSERT INTO auth_otp_lockouts (credential_id, failures, recent_failures, locked_until)
VALUES ($1, $2, $3, $4)
ON CONFLICT (credential_id) DO UPDATE SET failures = EXCLUDED.failures, recent_failures = EXCLUDED.recent_failures,
    locked_until = EXCLUDED.locked_until, updated_at = now();

-- name: AuthOtpLockoutClear :exec
-- A correct code clears the record.
DELETE FROM auth_otp_lockouts WHERE credential_id = $1;

-- name: AuthCredentialTypeOf :one
-- The type of a credential, revoked or not (for a session's credential).
SELECT type FROM auth_credentials WHERE id = $1;

-- name: AuthSessionCreate :one
INSERT INTO auth_sessions (id, platform_id, account_id, credential_id, public_key, expires_at)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING *;

-- name: AuthSessionListActive :many
SELECT sqlc.embed(s), c.type AS credential_type, c.nickname AS credential_nickname
FROM auth_sessions s JOIN auth_credentials c ON c.id = s.credential_id
WHERE s.account_id = $1 AND s.revoked_at IS NULL AND s.expires_at > sqlc.arg(now)::timestamptz AND c.deleted_at IS NULL
ORDER BY s.created_at, s.id;

-- name: AuthSessionGet :one
SELECT * FROM auth_sessions WHERE platform_id = $1 AND id = $2;

-- name: AuthSessionRevoke :execrows
UPDATE auth_sessions SET revoked_at = sqlc.arg(now)::timestamptz, updated_at = now() WHERE id = $1 AND revoked_at IS NULL;

-- name: AuthSessionRevokeByCredential :exec
UPDATE auth_sessions SET revoked_at = sqlc.arg(now)::timestamptz, updated_at = now() WHERE credential_id = $1 AND revoked_at IS NULL;

-- name: SignedRequestCreate :one
INSERT INTO signed_requests (id, platform_id, account_id, kind, payload, request_hash, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
RETURNING *;

-- name: SignedRequestGet :one
SELECT * FROM signed_requests WHERE platform_id = $1 AND id = $2;

-- name: SignedRequestUse :execrows
-- Single use: only the first retry that gets here wins.
UPDATE signed_requests SET used_at = sqlc.arg(now)::timestamptz WHERE id = $1 AND used_at IS NULL AND expires_at > sqlc.arg(now)::timestamptz;

-- name: AuthEmailCredentialOfCustomer :one
-- The EMAIL_OTP credential on one of a customer's embedded wallets, if any.
SELECT c.* FROM auth_credentials c JOIN internal_accounts a ON a.id = c.account_id
WHERE a.customer_id = $1 AND c.type = 'EMAIL_OTP' AND c.deleted_at IS NULL
ORDER BY c.created_at LIMIT 1;

-- name: AuthCredentialSetNickname :exec
UPDATE auth_credentials SET nickname = $2, updated_at = now() WHERE id = $1;

-- name: SignedRequestCountRecent :one
SELECT count(*) FROM signed_requests WHERE account_id = $1 AND kind = $2 AND created_at > now() - interval '1 minute';

-- name: AuthCredentialSetDetails :exec
UPDATE auth_credentials SET details = $2, updated_at = now() WHERE id = $1;

-- name: SignedRequestBindTransaction :execrows
-- Binds a used signed retry of kind to the transaction it authorised (once; again for the
-- same transaction is a no-op that still counts).
UPDATE signed_requests SET transaction_id = @transaction_id
WHERE id = @id AND account_id = @account_id AND kind = @kind AND used_at IS NOT NULL
  AND (transaction_id IS NULL OR transaction_id = @transaction_id);

