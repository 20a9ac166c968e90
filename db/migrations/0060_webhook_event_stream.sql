-- +goose Up

-- The event stream (GET /webhooks/events/stream) reads a platform's events in the order of
-- the transactions that recorded them, and only those whose transaction, and every earlier
-- one, has ended: rows whose xact is below the reading snapshot's xmin. A transaction that
-- commits later has an xact at or above that xmin, so it sorts after everything already read
-- and a reader resuming after its last event misses nothing. Events recorded before this
-- column existed read as transaction 0 (the constant default costs no table rewrite); new
-- rows get their top-level transaction id.
ALTER TABLE webhook_events ADD COLUMN xact bigint NOT NULL DEFAULT 0;
ALTER TABLE webhook_events ALTER COLUMN xact SET DEFAULT pg_current_xact_id()::text::bigint;
CREATE INDEX webhook_events_stream_idx ON webhook_events (platform_id, xact, id);

-- +goose Down
DROP INDEX webhook_events_stream_idx;
ALTER TABLE webhook_events DROP COLUMN xact;
