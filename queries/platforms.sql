-- name: PlatformCreate :one
INSERT INTO platforms (id, name, environment, is_regulated_financial_institution, config_id,
                       uma_domain, webhook_endpoint, supported_currencies)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
RETURNING *;

-- name: PlatformGet :one
SELECT * FROM platforms WHERE id = $1;

-- name: PlatformGetForUpdate :one
SELECT * FROM platforms WHERE id = $1 FOR UPDATE;

-- name: PlatformUpdateConfig :one
UPDATE platforms
SET uma_domain             = $2,
    proxy_uma_subdomain    = $3,
    webhook_endpoint       = $4,
    webhook_disabled_at    = $5,
    supported_currencies   = $6,
    embedded_wallet_config = $7,
    end_user_terms_required = $8,
    fee_configs            = $9,
    updated_at             = now()
WHERE id = $1
RETURNING *;

-- name: PlatformDisableWebhook :exec
UPDATE platforms SET webhook_disabled_at = sqlc.arg(now)::timestamptz, updated_at = now()
WHERE id = $1 AND webhook_endpoint = $2 AND webhook_disabled_at IS NULL;

-- name: UmaDomainHolders :one
-- Who other than a platform holds a UMA domain (compared case-insensitively): another
-- platform whose umaDomain it is, or customers of another platform with addresses on it
-- (a domain a platform left stays with its customers' addresses).
SELECT EXISTS (SELECT 1 FROM platforms p WHERE lower(p.uma_domain) = lower(@domain::text) AND p.id <> @platform_id) AS platform,
       EXISTS (SELECT 1 FROM customers c WHERE lower(split_part(c.uma_address, '@', 2)) = lower(@domain::text)
                                          AND c.platform_id <> @platform_id) AS customers;

-- name: UmaAddressHome :one
-- Whether a platform of the deployment holds the domain of a UMA address, and whether the
-- address is one of that platform's customers (a deleted one's address stays its own).
SELECT EXISTS (SELECT 1 FROM platforms p WHERE lower(p.uma_domain) = lower(@domain::text)) AS held,
       EXISTS (SELECT 1 FROM platforms p JOIN customers c ON c.platform_id = p.id
               WHERE lower(p.uma_domain) = lower(@domain::text) AND lower(c.uma_address) = lower(@address::text)) AS customer;
