-- name: WebhookEventCreate :one
INSERT INTO webhook_events (id, platform_id, type, data, dispatched_at, traceparent)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING *;

-- name: WebhookEventGet :one
SELECT * FROM webhook_events WHERE platform_id = $1 AND id = $2;

-- name: WebhookEventGetByID :one
SELECT * FROM webhook_events WHERE id = $1;

-- name: WebhookEventClaimUndispatched :many
-- Events committed but not yet handed to a delivery workflow. SKIP LOCKED lets several
-- relays run side by side.
SELECT e.id, e.platform_id, e.type, e.traceparent, (p.webhook_endpoint <> '' AND p.webhook_disabled_at IS NULL)::boolean AS deliverable
FROM webhook_events e JOIN platforms p ON p.id = e.platform_id
WHERE e.dispatched_at IS NULL
ORDER BY e.created_at
LIMIT $1
FOR UPDATE OF e SKIP LOCKED;

-- name: WebhookEventMarkUndeliverable :exec
-- Events of a platform without an (enabled) endpoint are closed without a delivery
-- workflow; POST /webhooks/events/{id}/redeliver sends them later.
UPDATE webhook_events
SET status = 'UNDELIVERABLE', dispatched_at = now(), last_error = 'no webhook endpoint configured', updated_at = now()
WHERE id = ANY(@ids::uuid[]) AND dispatched_at IS NULL;

-- name: WebhookEventMarkDispatched :exec
UPDATE webhook_events SET dispatched_at = now() WHERE id = ANY(@ids::uuid[]) AND dispatched_at IS NULL;

-- name: WebhookEventRecordAttempt :exec
UPDATE webhook_events
SET attempt_count = attempt_count + 1, last_attempt_at = @attempted_at,
    last_status_code = @status_code, last_error = @last_error, updated_at = now()
WHERE id = @id;

-- name: WebhookEventMarkDelivered :exec
UPDATE webhook_events SET status = 'DELIVERED', delivered_at = sqlc.arg(now)::timestamptz, updated_at = now()
WHERE id = $1;

-- name: WebhookEventMarkFinal :exec
UPDATE webhook_events SET status = $2, updated_at = now()
WHERE id = $1 AND status = 'PENDING';

-- name: WebhookEventReopen :exec
-- A redelivery's workflow puts its event back to PENDING before the first attempt; it
-- starts only once any earlier delivery run of the event has closed.
UPDATE webhook_events SET status = 'PENDING', dispatched_at = now(), updated_at = now()
WHERE id = $1;


-- name: WebhookEventBacklog :one
-- Events not delivered yet and when the oldest was created (now when none;
-- webhook_events_pending_idx).
SELECT count(*)::bigint AS pending, coalesce(min(created_at), now())::timestamptz AS oldest
FROM webhook_events
WHERE status = 'PENDING';

-- name: WebhookEventsCreate :exec
-- Records the webhook events of one change in one statement (the outbox, see outbox in
-- db/events.go), in their order: event i is ids[i], of platform platform_ids[i], of type
-- types[i] with data[i] (JSON), all recorded with traceparent and handed to the relay.
INSERT INTO webhook_events (id, platform_id, type, data, traceparent)
SELECT unnest(@ids::uuid[]), unnest(@platform_ids::uuid[]), unnest(@types::text[]), unnest(@data::text[])::jsonb, @traceparent::text;

-- name: WebhookEventsStream :many
-- The platform's events after the position (after_xact, after_id) in stream order, those
-- whose recording transaction and every earlier one have ended (migration 0060).
SELECT id, type, data, created_at, xact
FROM webhook_events
WHERE platform_id = @platform_id
  AND (xact, id) > (@after_xact::bigint, @after_id::uuid)
  AND xact < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
ORDER BY xact, id
LIMIT @max;

-- name: WebhookEventStreamLast :one
-- The platform's newest event in stream order: where a stream that names no event starts.
SELECT xact, id FROM webhook_events
WHERE platform_id = $1
ORDER BY xact DESC, id DESC
LIMIT 1;
