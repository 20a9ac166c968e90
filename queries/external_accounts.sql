-- name: ExternalAccountCreate :one
-- status: ACTIVE when not given.
INSERT INTO external_accounts (id, platform_id, customer_id, currency, account_type, account_info, identifier,
                               platform_account_id, default_uma_deposit_account, beneficiary_verification_status,
                               beneficiary_verified_name, ownership_type, status)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, sqlc.narg(ownership_type),
        coalesce(sqlc.narg(status)::text, 'ACTIVE'))
RETURNING *;

-- name: ExternalAccountLockForOwnership :one
-- The account whose ownership is being proven, locked: the platform's own (platform_owned)
-- or, when customer_id is given, that customer's only.
SELECT * FROM external_accounts
WHERE platform_id = $1 AND id = $2 AND NOT is_deleted
  AND (@platform_owned::boolean = (customer_id IS NULL))
  AND (sqlc.narg(customer_id)::uuid IS NULL OR customer_id = sqlc.narg(customer_id)::uuid)
FOR UPDATE;

-- name: ExternalAccountLockByID :one
SELECT * FROM external_accounts WHERE id = $1 AND NOT is_deleted FOR UPDATE;

-- name: ExternalAccountSetOwnership :one
-- Records an ownership challenge or its outcome: the status, and the outstanding challenge
-- (all three null when none is).
UPDATE external_accounts
SET status = @status::text, ownership_method = sqlc.narg(ownership_method), ownership_message = sqlc.narg(ownership_message),
    ownership_expires_at = sqlc.narg(ownership_expires_at), updated_at = now()
WHERE id = $1
RETURNING *;

-- name: ExternalAccountGet :one
SELECT * FROM external_accounts WHERE platform_id = $1 AND id = $2 AND NOT is_deleted;

-- name: ExternalAccountGetByID :one
SELECT * FROM external_accounts WHERE id = $1;

-- name: ExternalAccountClearDefault :exec
UPDATE external_accounts SET default_uma_deposit_account = false, updated_at = now()
WHERE customer_id = $1 AND default_uma_deposit_account AND NOT is_deleted;

-- name: ExternalAccountDelete :execrows
-- Deletes a platform's (platform_owned) or a customer's account; customer_id, when given,
-- is the only customer whose account may be deleted (an agent's).
UPDATE external_accounts SET is_deleted = true, status = 'INACTIVE', updated_at = now()
WHERE platform_id = $1 AND id = $2 AND NOT is_deleted
  AND (@platform_owned::boolean = (customer_id IS NULL))
  AND (sqlc.narg(customer_id)::uuid IS NULL OR customer_id = sqlc.narg(customer_id)::uuid);

