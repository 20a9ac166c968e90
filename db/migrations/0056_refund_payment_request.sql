-- +goose Up

-- The payment request a refund pays: for a payment received over Lightning from another
-- UMA provider, the invoice the sender's provider answered the refund's pay request with.
-- Kept with the open refund so that its create step, run again, pays the same invoice.
ALTER TABLE transactions ADD COLUMN refund_payment_request text;

-- +goose Down
ALTER TABLE transactions DROP COLUMN refund_payment_request;
