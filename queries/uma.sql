-- name: UmaKeysCurrent :one
SELECT * FROM uma_keys WHERE retired_at IS NULL;

-- name: UmaKeysInsert :exec
-- A new current key set; nothing when another is current (a concurrent first use).
INSERT INTO uma_keys (id, signing_sealed, signing_cert, encryption_sealed, encryption_cert, not_after, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT ((true)) WHERE retired_at IS NULL DO NOTHING;

-- name: UmaKeysRetire :exec
UPDATE uma_keys SET retired_at = $1 WHERE retired_at IS NULL;

-- name: UmaKeysDecrypting :many
-- The key sets that may still receive payloads: the current one, and those retired after
-- since, newest first.
SELECT * FROM uma_keys WHERE retired_at IS NULL OR retired_at > sqlc.arg(since) ORDER BY created_at DESC;
