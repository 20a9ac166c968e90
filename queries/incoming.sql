-- name: IncomingReceiver :one
-- The customer an incoming payment is for (by UMA address or id) with its account in the
-- payment's currency (NULL when it has none open), the platform's currencies and
-- environment.
SELECT c.id, c.platform_customer_id, coalesce(c.full_name, '')::text AS full_name, c.is_deleted,
       coalesce(a.id, '00000000-0000-0000-0000-000000000000'::uuid)::uuid AS account_id, coalesce(a.status, '')::text AS account_status,
       p.supported_currencies, p.environment
FROM customers c
JOIN platforms p ON p.id = c.platform_id
LEFT JOIN LATERAL (
    SELECT a2.id, a2.status FROM internal_accounts a2 WHERE a2.customer_id = c.id AND a2.currency = @currency AND a2.status <> 'CLOSED'
    ORDER BY a2.type = 'EMBEDDED_WALLET', a2.created_at LIMIT 1) a ON true
WHERE c.platform_id = @platform_id AND (c.uma_address = @uma_address OR c.id = @customer_id)
LIMIT 1;

-- name: TransactionSetReceiverInfo :exec
UPDATE transactions SET receiver_customer_info = @info WHERE id = @id;

-- name: WebhookEventFind :one
-- The event of one type recorded for a transaction.
SELECT id FROM webhook_events WHERE platform_id = @platform_id AND type = @type AND data->>'id' = @transaction_ref::text
ORDER BY created_at LIMIT 1;
