-- +goose Up

-- The UMA providers are the operator's list (paycore uma providers FILE, paycore uma allow|block
-- DOMAIN), not a seeded set: the example providers the first migration seeded are removed
-- (those the operator has since allowed or blocked by domain keep their row).
DELETE FROM uma_providers
WHERE id BETWEEN '0190a000-0000-7000-8000-000000000001' AND '0190a000-0000-7000-8000-000000000018'
  AND domain LIKE '%.example';

-- +goose Down
-- The example providers are not restored: they were never real.
SELECT 1;
