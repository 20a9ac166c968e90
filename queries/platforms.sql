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
    updated_at             = now()
WHERE id = $1
RETURNING *;

-- name: PlatformDisableWebhook :exec
UPDATE platforms SET webhook_disabled_at = now(), updated_at = now()
WHERE id = $1 AND webhook_endpoint = $2 AND webhook_disabled_at IS NULL;
