-- name: OwnerCreate :one
INSERT INTO beneficial_owners (id, platform_id, customer_id, roles, ownership_percentage, personal_info, kyc_status)
VALUES ($1, $2, $3, $4, $5, $6, $7)
RETURNING *;

-- name: OwnerGet :one
SELECT * FROM beneficial_owners WHERE platform_id = $1 AND id = $2;

-- name: OwnerGetByID :one
SELECT * FROM beneficial_owners WHERE id = $1;

-- name: OwnersOfCustomer :many
SELECT * FROM beneficial_owners WHERE platform_id = $1 AND customer_id = $2 ORDER BY id;

-- name: OwnerUpdate :one
-- A new KYC (reverify) clears the decision.
UPDATE beneficial_owners
SET roles = $3, ownership_percentage = $4, personal_info = $5, kyc_status = $6,
    kyc_decided_at = CASE WHEN sqlc.arg(reverify)::boolean THEN NULL ELSE kyc_decided_at END, updated_at = now()
WHERE platform_id = $1 AND id = $2
RETURNING *;

-- name: OwnerDecideKyc :one
-- Records the KYC outcome of an owner still under review (a repeated step changes nothing).
UPDATE beneficial_owners SET kyc_status = $2, kyc_decided_at = sqlc.arg(now)::timestamptz, updated_at = now()
WHERE id = $1 AND kyc_decided_at IS NULL
RETURNING *;

-- name: OwnerGetByIDForUpdate :one
SELECT * FROM beneficial_owners WHERE id = $1 FOR UPDATE;
