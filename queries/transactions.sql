-- name: TransactionCreate :one
INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, kind, type, status, source_kind, source_account_id,
                          destination_kind, destination_account_id, currency, amount, reference, description, settled_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
RETURNING *;

-- name: TransactionOpenIncomingCount :one
-- Transactions not yet final that will credit this internal account when they settle.
SELECT count(*) FROM transactions
WHERE destination_account_id = @account_id AND destination_kind = 'INTERNAL'
  AND status IN ('CREATED', 'PENDING', 'PROCESSING');

-- name: TransactionGet :one
SELECT * FROM transactions WHERE platform_id = $1 AND id = $2;

-- name: TransactionGetByID :one
SELECT * FROM transactions WHERE id = $1;

-- name: TransactionGetForUpdate :one
SELECT * FROM transactions WHERE id = $1 FOR UPDATE;

-- name: TransactionSetStatus :one
-- Moves a transaction from one of the expected statuses to the next; no row means the
-- transition already happened (or is not allowed), which makes the step idempotent.
UPDATE transactions
SET status = @status, failure_reason = sqlc.narg(failure_reason), failure_detail = sqlc.narg(failure_detail),
    settled_at = coalesce(sqlc.narg(settled_at), settled_at), updated_at = now()
WHERE id = @id AND status = ANY(@from_statuses::text[])
RETURNING *;

-- name: TransactionList :many
SELECT t.* FROM transactions t
WHERE t.platform_id = @platform_id
  AND (NOT @platform_only::boolean OR t.customer_id IS NULL)
  AND (sqlc.narg(customer_id)::uuid IS NULL OR t.customer_id = sqlc.narg(customer_id))
  AND (sqlc.narg(platform_customer_id)::text IS NULL OR t.platform_customer_id = sqlc.narg(platform_customer_id))
  AND (sqlc.narg(account_id)::uuid IS NULL OR t.source_account_id = sqlc.narg(account_id) OR t.destination_account_id = sqlc.narg(account_id))
  AND (sqlc.narg(sender_id)::uuid IS NULL OR t.source_account_id = sqlc.narg(sender_id))
  AND (sqlc.narg(receiver_id)::uuid IS NULL OR t.destination_account_id = sqlc.narg(receiver_id))
  AND (sqlc.narg(status)::text IS NULL OR t.status = sqlc.narg(status))
  AND (sqlc.narg(type)::text IS NULL OR t.type = sqlc.narg(type))
  AND (sqlc.narg(reference)::text IS NULL OR t.reference = sqlc.narg(reference))
  AND (sqlc.narg(start_date)::timestamptz IS NULL OR t.created_at >= sqlc.narg(start_date))
  AND (sqlc.narg(end_date)::timestamptz IS NULL OR t.created_at <= sqlc.narg(end_date))
  AND (sqlc.narg(after_created)::timestamptz IS NULL
       OR (@ascending::boolean AND (t.created_at, t.id) > (sqlc.narg(after_created), sqlc.narg(after_id)::uuid))
       OR (NOT @ascending::boolean AND (t.created_at, t.id) < (sqlc.narg(after_created), sqlc.narg(after_id)::uuid)))
ORDER BY
  CASE WHEN @ascending::boolean THEN t.created_at END ASC,
  CASE WHEN @ascending::boolean THEN t.id END ASC,
  CASE WHEN NOT @ascending::boolean THEN t.created_at END DESC,
  CASE WHEN NOT @ascending::boolean THEN t.id END DESC
LIMIT @row_limit;

-- name: TransactionCount :one
SELECT count(*) FROM transactions t
WHERE t.platform_id = @platform_id
  AND (NOT @platform_only::boolean OR t.customer_id IS NULL)
  AND (sqlc.narg(customer_id)::uuid IS NULL OR t.customer_id = sqlc.narg(customer_id))
  AND (sqlc.narg(platform_customer_id)::text IS NULL OR t.platform_customer_id = sqlc.narg(platform_customer_id))
  AND (sqlc.narg(account_id)::uuid IS NULL OR t.source_account_id = sqlc.narg(account_id) OR t.destination_account_id = sqlc.narg(account_id))
  AND (sqlc.narg(sender_id)::uuid IS NULL OR t.source_account_id = sqlc.narg(sender_id))
  AND (sqlc.narg(receiver_id)::uuid IS NULL OR t.destination_account_id = sqlc.narg(receiver_id))
  AND (sqlc.narg(status)::text IS NULL OR t.status = sqlc.narg(status))
  AND (sqlc.narg(type)::text IS NULL OR t.type = sqlc.narg(type))
  AND (sqlc.narg(reference)::text IS NULL OR t.reference = sqlc.narg(reference))
  AND (sqlc.narg(start_date)::timestamptz IS NULL OR t.created_at >= sqlc.narg(start_date))
  AND (sqlc.narg(end_date)::timestamptz IS NULL OR t.created_at <= sqlc.narg(end_date));

-- name: TransactionListNonTerminal :many
SELECT id, status FROM transactions WHERE status IN ('CREATED', 'PENDING', 'PROCESSING');

-- name: TransferContext :one
-- Everything a transfer request is validated against, in one round trip.
SELECT a.id AS internal_id, a.currency AS internal_currency, a.status AS internal_status, a.customer_id AS internal_customer_id, a.type AS internal_type,
       e.id AS external_id, e.currency AS external_currency, e.status AS external_status, e.customer_id AS external_customer_id,
       coalesce(c.is_deleted, false)::boolean AS customer_deleted, p.supported_currencies,
       (l.balance - l.held)::bigint AS internal_available
FROM platforms p
JOIN internal_accounts a ON a.platform_id = p.id AND a.id = @internal_id
JOIN ledger_accounts l ON l.id = a.id
JOIN external_accounts e ON e.platform_id = p.id AND e.id = @external_id AND NOT e.is_deleted
LEFT JOIN customers c ON c.id = a.customer_id
WHERE p.id = @platform_id;
