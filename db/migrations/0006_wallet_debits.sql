-- +goose Up
-- A signed retry that authorises moving money out of an embedded wallet is bound to the
-- one transaction it created; the ledger refuses a debit of an embedded wallet without it.
ALTER TABLE signed_requests ADD COLUMN transaction_id uuid;
CREATE UNIQUE INDEX signed_requests_transaction ON signed_requests (transaction_id, account_id) WHERE transaction_id IS NOT NULL;

-- +goose Down
DROP INDEX signed_requests_transaction;
ALTER TABLE signed_requests DROP COLUMN transaction_id;
