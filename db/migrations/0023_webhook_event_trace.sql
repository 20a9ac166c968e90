-- +goose Up

-- The W3C trace context (traceparent) of the span that recorded the event, when it was
-- recorded inside a trace: the relay links its dispatch span (the root of the delivery's
-- own trace) to it, so a trace viewer leads from the request that caused a webhook to the
-- webhook's POST and back. Empty for events recorded outside a trace.
ALTER TABLE webhook_events ADD COLUMN traceparent text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE webhook_events DROP COLUMN traceparent;
