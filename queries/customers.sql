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
-- name: CustomersHolding :many
-- The customers holding an identifier of a batch of new customers of a platform: one of
-- their ids, one of their platformCustomerIds (on the platform) or one of their
-- umaAddresses (on the deployment, without regard to case) — what the unique indexes of
-- customers would refuse. Each identifier is one probe of its index (a lateral lookup with
-- LIMIT 1, which no statistics can turn into a scan of the table), so the read costs the
-- batch's size, not the table's.
SELECT * FROM customers
WHERE id = ANY(ARRAY(
    SELECT h.id FROM unnest(sqlc.arg(ids)::uuid[]) AS k(v)
    CROSS JOIN LATERAL (SELECT x.id FROM customers x WHERE x.id = k.v LIMIT 1) h
    UNION
    SELECT h.id FROM unnest(sqlc.arg(platform_customer_ids)::text[]) AS k(v)
    CROSS JOIN LATERAL (SELECT x.id FROM customers x WHERE x.platform_id = sqlc.arg(platform_id) AND x.platform_customer_id = k.v LIMIT 1) h
    UNION
    SELECT h.id FROM unnest(sqlc.arg(uma_addresses)::text[]) AS k(v)
    CROSS JOIN LATERAL (SELECT x.id FROM customers x WHERE lower(x.uma_address) = lower(k.v) LIMIT 1) h
));

-- name: CustomersInsert :many
-- A batch of new customers of a platform in one statement, judged by the caller
-- (customer.Admit), given column by column: element i of each array is customer i's. The
-- arrays are typed, so the server parses no text but the documents: an optional text column
-- comes as bytea (its UTF-8, NULL when absent), the currencies as one comma-separated text,
-- the birth date as YYYY-MM-DD text ('' when absent). One whose identifier a customer the
-- caller did not judge against holds (a stored one, or a concurrent transaction's) is not
-- inserted (its id not returned) and the statement goes on.
INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, region, currencies, email, uma_address,
                       kyc_status, full_name, birth_date, nationality, address, business_info, end_user_terms_consent, due_diligence,
                       id_type, id_country, id_number_sealed)
SELECT r.id, sqlc.arg(platform_id), r.platform_customer_id, r.customer_type, r.region, string_to_array(r.currencies, ','),
       convert_from(r.email, 'UTF8'), r.uma_address, r.kyc_status, convert_from(r.full_name, 'UTF8'), nullif(r.birth_date, '')::date,
       convert_from(r.nationality, 'UTF8'), r.address, r.business_info, r.end_user_terms_consent, r.due_diligence,
       convert_from(r.id_type, 'UTF8'), convert_from(r.id_country, 'UTF8'), r.id_number_sealed
FROM (SELECT unnest(sqlc.arg(ids)::uuid[]) AS id, unnest(sqlc.arg(platform_customer_ids)::text[]) AS platform_customer_id,
             unnest(sqlc.arg(customer_types)::text[]) AS customer_type, unnest(sqlc.arg(regions)::text[]) AS region,
             unnest(sqlc.arg(currencies)::text[]) AS currencies, unnest(sqlc.arg(emails)::bytea[]) AS email,
             unnest(sqlc.arg(uma_addresses)::text[]) AS uma_address, unnest(sqlc.arg(kyc_statuses)::text[]) AS kyc_status,
             unnest(sqlc.arg(full_names)::bytea[]) AS full_name, unnest(sqlc.arg(birth_dates)::text[]) AS birth_date,
             unnest(sqlc.arg(nationalities)::bytea[]) AS nationality, unnest(sqlc.arg(addresses)::jsonb[]) AS address,
             unnest(sqlc.arg(business_infos)::jsonb[]) AS business_info,
             unnest(sqlc.arg(end_user_terms_consents)::jsonb[]) AS end_user_terms_consent,
             unnest(sqlc.arg(due_diligences)::jsonb[]) AS due_diligence, unnest(sqlc.arg(id_types)::bytea[]) AS id_type,
             unnest(sqlc.arg(id_countries)::bytea[]) AS id_country, unnest(sqlc.arg(id_numbers_sealed)::bytea[]) AS id_number_sealed) r
ON CONFLICT DO NOTHING
RETURNING id;

-- name: CustomersGet :many
SELECT * FROM customers WHERE platform_id = sqlc.arg(platform_id) AND id = ANY(sqlc.arg(ids)::uuid[]);
