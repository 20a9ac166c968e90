-- name: KycLinkCreate :one
INSERT INTO kyc_links (id, platform_id, customer_id, token_hash, redirect_uri, expires_at)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING *;

-- name: KycLinkByToken :one
SELECT * FROM kyc_links WHERE token_hash = $1;

-- name: KycLinkByTokenForUpdate :one
SELECT * FROM kyc_links WHERE token_hash = $1 FOR UPDATE;

-- name: KycLinkUse :execrows
-- Spends a link; no row when it was spent already.
UPDATE kyc_links SET used_at = sqlc.arg(now)::timestamptz WHERE id = $1 AND used_at IS NULL;

-- name: KycLinkAddDocuments :one
-- Counts the files a submission stores through a link; returns the link's new total.
UPDATE kyc_links SET documents_stored = documents_stored + @stored WHERE id = @id RETURNING documents_stored;

-- name: KycLinkReopen :exec
-- Gives back a link spent by a submission that turned out incomplete.
UPDATE kyc_links SET used_at = NULL WHERE id = $1;
