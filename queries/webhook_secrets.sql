-- name: WebhookSecretCreate :one
INSERT INTO webhook_secrets (id, platform_id, secret_sealed)
VALUES ($1, $2, $3)
RETURNING *;

-- name: WebhookSecretExpireCurrent :exec
UPDATE webhook_secrets SET expires_at = $2
WHERE platform_id = $1 AND expires_at IS NULL;

-- name: WebhookSecretListActive :many
-- The signing secrets of a platform, newest first: the current one and any rotated-out one
-- still inside its grace period.
SELECT * FROM webhook_secrets
WHERE platform_id = $1 AND (expires_at IS NULL OR expires_at > sqlc.arg(now)::timestamptz)
ORDER BY created_at DESC, id DESC;
