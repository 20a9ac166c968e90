-- name: ReceiverLookupCreate :exec
INSERT INTO receiver_lookups (id, platform_id, receiver_uma, external_account_id, currencies)
VALUES (@id, @platform_id, sqlc.narg(receiver_uma), sqlc.narg(external_account_id), @currencies);

-- name: ReceiverLookupGet :one
SELECT * FROM receiver_lookups WHERE platform_id = @platform_id AND id = @id;

-- name: CustomerFindByUma :many
-- The customers of platforms of an environment on this deployment with this UMA address.
SELECT c.id, c.platform_id, c.currencies FROM customers c JOIN platforms p ON p.id = c.platform_id
WHERE c.uma_address = @uma_address AND NOT c.is_deleted AND p.environment = @environment
ORDER BY c.created_at, c.id LIMIT 2;
