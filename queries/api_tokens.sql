-- name: TokenCreate :one
INSERT INTO api_tokens (id, platform_id, name, permissions, secret_hash)
VALUES ($1, $2, $3, $4, $5)
RETURNING *;

-- name: TokenAuthenticate :one
-- One indexed read per request: the live token with its platform.
SELECT t.id, t.platform_id, t.permissions, t.secret_hash, p.environment
FROM api_tokens t
JOIN platforms p ON p.id = t.platform_id
WHERE t.id = $1 AND t.deleted_at IS NULL;

-- name: TokenGet :one
SELECT * FROM api_tokens WHERE platform_id = $1 AND id = $2 AND deleted_at IS NULL;

-- name: TokenCountActive :one
SELECT count(*) FROM api_tokens WHERE platform_id = $1 AND deleted_at IS NULL;

-- name: TokenDelete :execrows
UPDATE api_tokens SET deleted_at = sqlc.arg(now)::timestamptz, updated_at = now()
WHERE platform_id = $1 AND id = $2 AND deleted_at IS NULL;
