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

-- name: TokenList :many
SELECT * FROM api_tokens
WHERE platform_id = @platform_id AND deleted_at IS NULL
  AND (sqlc.narg(name)::text IS NULL OR name = sqlc.narg(name))
  AND (sqlc.narg(created_after)::timestamptz IS NULL OR created_at >= sqlc.narg(created_after))
  AND (sqlc.narg(created_before)::timestamptz IS NULL OR created_at <= sqlc.narg(created_before))
  AND (sqlc.narg(updated_after)::timestamptz IS NULL OR updated_at >= sqlc.narg(updated_after))
  AND (sqlc.narg(updated_before)::timestamptz IS NULL OR updated_at <= sqlc.narg(updated_before))
  AND (sqlc.narg(after_id)::uuid IS NULL OR id < sqlc.narg(after_id))
ORDER BY id DESC
LIMIT @row_limit;

-- name: TokenCount :one
SELECT count(*) FROM api_tokens
WHERE platform_id = @platform_id AND deleted_at IS NULL
  AND (sqlc.narg(name)::text IS NULL OR name = sqlc.narg(name))
  AND (sqlc.narg(created_after)::timestamptz IS NULL OR created_at >= sqlc.narg(created_after))
  AND (sqlc.narg(created_before)::timestamptz IS NULL OR created_at <= sqlc.narg(created_before))
  AND (sqlc.narg(updated_after)::timestamptz IS NULL OR updated_at >= sqlc.narg(updated_after))
  AND (sqlc.narg(updated_before)::timestamptz IS NULL OR updated_at <= sqlc.narg(updated_before));

-- name: TokenCountActive :one
SELECT count(*) FROM api_tokens WHERE platform_id = $1 AND deleted_at IS NULL;

-- name: TokenDelete :execrows
UPDATE api_tokens SET deleted_at = now(), updated_at = now()
WHERE platform_id = $1 AND id = $2 AND deleted_at IS NULL;
