-- +goose Up

-- The outbox no longer notifies (ADR 0018). PostgreSQL commits the transactions that sent a
-- NOTIFY one at a time, server-wide (each holds a global lock through its commit's flush,
-- so that notifications arrive in commit order), and every payment records a webhook event:
-- the trigger made every payment's commit wait for every other's. The relay polls instead,
-- at once again while it finds events.
DROP TRIGGER webhook_events_notify ON webhook_events;
DROP FUNCTION webhook_events_notify();

-- +goose Down
-- +goose StatementBegin
CREATE FUNCTION webhook_events_notify() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('webhook_events', '');
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd
CREATE TRIGGER webhook_events_notify AFTER INSERT ON webhook_events
    FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_notify();
