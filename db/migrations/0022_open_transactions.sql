-- +goose Up

-- Payments that are not final, by when their status last changed: what operators look
-- through for stuck payments (paycore payments stuck), a small index since most
-- transactions are final.
CREATE INDEX transactions_open_idx ON transactions (updated_at) WHERE status IN ('PENDING', 'PROCESSING');

-- +goose Down
DROP INDEX transactions_open_idx;
