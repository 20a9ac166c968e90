-- name: ExternalAccountCreate :one
INSERT INTO external_accounts (id, platform_id, customer_id, currency, account_type, account_info, identifier,
                               platform_account_id, default_uma_deposit_account, beneficiary_verification_status,
                               beneficiary_verified_name)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
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

