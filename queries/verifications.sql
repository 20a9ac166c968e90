-- name: VerificationCreate :one
INSERT INTO verifications (id, platform_id, customer_id, status, errors)
VALUES ($1, $2, $3, $4, $5)
RETURNING *;

-- name: VerificationGet :one
SELECT * FROM verifications WHERE platform_id = $1 AND id = $2;

-- name: VerificationOpenOfCustomer :one
-- The customer's open verification, if any (at most one, by verifications_open_idx).
SELECT * FROM verifications
WHERE customer_id = $1 AND status IN ('RESOLVE_ERRORS', 'IN_PROGRESS', 'PENDING_MANUAL_REVIEW', 'READY_FOR_VERIFICATION');

-- name: VerificationLatestOfCustomer :one
SELECT * FROM verifications WHERE customer_id = $1 ORDER BY id DESC LIMIT 1;

-- name: VerificationUpdate :one
UPDATE verifications SET status = $2, errors = $3, updated_at = now()
WHERE id = $1
RETURNING *;

-- name: VerificationGetByIDForUpdate :one
SELECT * FROM verifications WHERE id = $1 FOR UPDATE;

-- name: VerificationGetByID :one
SELECT * FROM verifications WHERE id = $1;
