-- +goose Up

-- paycore payments stuck finds, for an unfinished INCOMING transaction, the quote paying it
-- from this deployment (whose workflow finishes it): by the paying transaction's
-- counterpart_transaction_id, which no index covered.
CREATE INDEX transactions_counterpart_idx ON transactions (counterpart_transaction_id) WHERE counterpart_transaction_id IS NOT NULL;

-- +goose Down
DROP INDEX transactions_counterpart_idx;
