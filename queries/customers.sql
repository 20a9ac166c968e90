-- name: CustomerCreate :one
INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, region, currencies, email, uma_address,
                       kyc_status, full_name, birth_date, nationality, address, business_info, end_user_terms_consent, due_diligence,
                       id_type, id_country, id_number_sealed)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
RETURNING *;

-- name: CustomerGet :one
SELECT * FROM customers WHERE platform_id = $1 AND id = $2;

-- name: CustomerGetForUpdate :one
-- FOR NO KEY UPDATE: serializes changes to the customer without blocking the foreign-key
-- checks (FOR KEY SHARE) of rows that reference it, such as a transaction being recorded by
-- a posting that already holds a ledger lock the update may wait for.
SELECT * FROM customers WHERE platform_id = $1 AND id = $2 FOR NO KEY UPDATE;

-- name: CustomerUpdate :one
UPDATE customers
SET currencies = $3, email = $4, uma_address = $5, kyc_status = $6, full_name = $7, birth_date = $8,
    nationality = $9, address = $10, business_info = $11, end_user_terms_consent = $12, due_diligence = $13,
    id_type = $14, id_country = $15, id_number_sealed = coalesce(sqlc.narg(id_number_sealed), id_number_sealed), updated_at = now()
WHERE platform_id = $1 AND id = $2
RETURNING *;

-- name: CustomerMarkDeleted :one
UPDATE customers SET is_deleted = true, updated_at = now()
WHERE platform_id = $1 AND id = $2 AND NOT is_deleted
RETURNING *;


-- name: CustomerSetKycStatus :one
-- The outcome of the service's verification (the KYC status of an individual, the KYB
-- status of a business).
UPDATE customers SET kyc_status = $2, updated_at = now()
WHERE id = $1
RETURNING *;

-- name: CustomerGetByIDForUpdate :one
SELECT * FROM customers WHERE id = $1 FOR NO KEY UPDATE;
-- name: CustomerCreateIfAbsent :one
-- CustomerCreate for bulk imports: a customer whose id, platformCustomerId or umaAddress is
-- taken is not inserted (no row returned) and the transaction goes on.
INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, region, currencies, email, uma_address,
                       kyc_status, full_name, birth_date, nationality, address, business_info, end_user_terms_consent, due_diligence,
                       id_type, id_country, id_number_sealed)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
ON CONFLICT DO NOTHING
RETURNING *;

-- name: CustomerConflicts :many
-- The customers that take a new customer's id or platformCustomerId (of its platform) or
-- umaAddress (of any platform: addresses are unique deployment-wide).
SELECT id, platform_id, platform_customer_id, uma_address FROM customers
WHERE (platform_id = sqlc.arg(platform_id) AND (id = sqlc.arg(id) OR platform_customer_id = sqlc.arg(platform_customer_id)))
   OR lower(uma_address) = lower(sqlc.arg(uma_address));
