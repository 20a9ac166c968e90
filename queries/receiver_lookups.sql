-- name: ReceiverLookupCreate :exec
INSERT INTO receiver_lookups (id, platform_id, receiver_uma, external_account_id, currencies)
VALUES (@id, @platform_id, sqlc.narg(receiver_uma), sqlc.narg(external_account_id), @currencies);

-- name: ReceiverLookupGet :one
SELECT * FROM receiver_lookups WHERE platform_id = @platform_id AND id = @id;

-- name: CustomerFindByUma :one
-- A customer of any platform on this deployment with this UMA address.
SELECT id, platform_id, currencies FROM customers WHERE uma_address = @uma_address AND NOT is_deleted
ORDER BY created_at LIMIT 1;
