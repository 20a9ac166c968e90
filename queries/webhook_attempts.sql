-- name: WebhookAttemptCreate :exec
INSERT INTO webhook_attempts (event_id, url, started_at, latency_ms, status_code, error, response_body)
VALUES ($1, $2, $3, $4, $5, $6, $7);

-- name: WebhookAttemptList :many
SELECT * FROM webhook_attempts WHERE event_id = $1 ORDER BY id;
