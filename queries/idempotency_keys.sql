-- name: IdempotencyClaim :one
-- Claims the key for this request. Returns a row only when this caller now owns the key:
-- either it is new, or it expired, or a previous owner died while RUNNING (lease lapsed).
INSERT INTO idempotency_keys (platform_id, key, request_hash, state, locked_at, expires_at)
VALUES (@platform_id, @key, @request_hash, 'RUNNING', now(), now() + make_interval(secs => @ttl_seconds::float8))
ON CONFLICT (platform_id, key) DO UPDATE
SET request_hash = EXCLUDED.request_hash, state = 'RUNNING', locked_at = now(),
    response_status = NULL, response_headers = NULL, response_body = NULL,
    created_at = now(), expires_at = EXCLUDED.expires_at
WHERE idempotency_keys.expires_at < now()
   OR (idempotency_keys.state = 'RUNNING' AND idempotency_keys.locked_at < now() - make_interval(secs => @lease_seconds::float8)
       AND idempotency_keys.request_hash = EXCLUDED.request_hash)
RETURNING platform_id;

-- name: IdempotencyGet :one
SELECT * FROM idempotency_keys WHERE platform_id = $1 AND key = $2;

-- name: IdempotencyComplete :exec
UPDATE idempotency_keys
SET state = 'DONE', response_status = $3, response_headers = $4, response_body = $5
WHERE platform_id = $1 AND key = $2 AND state = 'RUNNING';

-- name: IdempotencyRelease :exec
DELETE FROM idempotency_keys WHERE platform_id = $1 AND key = $2 AND state = 'RUNNING';

-- name: IdempotencyDeleteExpired :execrows
DELETE FROM idempotency_keys WHERE expires_at < now();

-- name: IdempotencyRenew :exec
-- The owner of a running request keeps its claim alive.
UPDATE idempotency_keys SET locked_at = now() WHERE platform_id = $1 AND key = $2 AND state = 'RUNNING';
