-- +goose Up

-- The worker counts, every minute, the payments that look stuck (still open, unchanged for
-- longer than PAYCORE_STUCK_PAYMENT_AFTER) and the webhook events not delivered yet. The
-- existing status indexes lead with platform_id, so without these partial indexes both
-- counts would scan every transaction and every event ever written; these hold only the
-- open rows, so the counts cost what is open, not what is history. Operators list stuck
-- payments through the same index (paycore payments stuck).
CREATE INDEX transactions_open_idx ON transactions (updated_at) WHERE status IN ('CREATED', 'PENDING', 'PROCESSING');
CREATE INDEX webhook_events_pending_idx ON webhook_events (created_at) WHERE status = 'PENDING';

-- +goose Down
DROP INDEX webhook_events_pending_idx;
DROP INDEX transactions_open_idx;
