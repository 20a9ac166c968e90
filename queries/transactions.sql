-- name: TransactionCreate :one
INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, kind, type, status, source_kind, source_account_id,
                          destination_kind, destination_account_id, currency, amount, reference, description, settled_at,
                          receiving_currency, receiving_amount, quote_id, fees, exchange_rate, rate_details, counterparty_information,
                          source_uma_address, destination_uma_address, agent_id, network_fee, sent_currency, sent_amount,
                          payment_rail, rail_selection_mode, expected_settlement_at, settlement_timeline_seconds,
                          remittance_information, purpose_of_payment, platform_fees, platform_fee_account_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
        sqlc.narg(receiving_currency), sqlc.narg(receiving_amount), sqlc.narg(quote_id), sqlc.narg(fees), sqlc.narg(exchange_rate),
        sqlc.narg(rate_details), sqlc.narg(counterparty_information), sqlc.narg(source_uma_address), sqlc.narg(destination_uma_address),
        sqlc.narg(agent_id), sqlc.narg(network_fee), sqlc.narg(sent_currency), sqlc.narg(sent_amount),
        sqlc.narg(payment_rail), sqlc.narg(rail_selection_mode), sqlc.narg(expected_settlement_at), sqlc.narg(settlement_timeline_seconds),
        sqlc.narg(remittance_information), sqlc.narg(purpose_of_payment), sqlc.narg(platform_fees), sqlc.narg(platform_fee_account_id))
RETURNING *;

-- name: TransactionOpenIncomingCount :one
-- Transactions not yet final that will credit this internal account when they settle, of
-- every kind: a transfer in or a quote to it (INTERNAL), and a payment to its customer's
-- UMA address from this deployment (UMA_ADDRESS, the account named from the quote's
-- creation on). Only an EXTERNAL destination names no internal account.
SELECT count(*) FROM transactions
WHERE destination_account_id = @account_id AND destination_kind <> 'EXTERNAL'
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
    settled_at = coalesce(sqlc.narg(settled_at), settled_at), pending_reason = NULL, updated_at = now()
WHERE id = @id AND status = ANY(@from_statuses::text[])
RETURNING *;

-- name: TransactionSetPendingReason :one
-- Records why a payment waiting at its rail is pending; a payment that has ended is left
-- as it is (no row).
UPDATE transactions
SET pending_reason = @pending_reason, updated_at = now()
WHERE id = @id AND status IN ('PENDING', 'PROCESSING')
RETURNING *;


-- name: TransferContext :one
-- Everything a transfer is checked against, in one round trip: the platform, and the
-- internal and external accounts when the platform has them (NULL ids otherwise).
SELECT p.environment, p.supported_currencies,
       a.id AS internal_id, coalesce(a.currency, '')::text AS internal_currency, coalesce(a.status, '')::text AS internal_status,
       a.customer_id AS internal_customer_id, coalesce(a.type, '')::text AS internal_type, coalesce(l.balance - l.held, 0)::bigint AS internal_available,
       e.id AS external_id, coalesce(e.currency, '')::text AS external_currency, coalesce(e.status, '')::text AS external_status,
       e.customer_id AS external_customer_id, coalesce(e.identifier, '')::text AS external_identifier,
       coalesce(e.account_type, '')::text AS external_account_type,
       coalesce(e.account_info->'paymentRails', '[]'::jsonb)::text AS external_payment_rails,
       coalesce(c.is_deleted, false)::boolean AS customer_deleted, coalesce(c.platform_customer_id, '')::text AS platform_customer_id,
       coalesce(c.kyc_status, '')::text AS customer_kyc,
       (p.end_user_terms_required AND c.id IS NOT NULL AND c.end_user_terms_consent IS NULL)::boolean AS customer_terms_missing
FROM platforms p
LEFT JOIN internal_accounts a ON a.platform_id = p.id AND a.id = @internal_id
LEFT JOIN ledger_accounts l ON l.id = a.id
LEFT JOIN external_accounts e ON e.platform_id = p.id AND e.id = @external_id AND NOT e.is_deleted
LEFT JOIN customers c ON c.id = a.customer_id
WHERE p.id = @platform_id;

-- name: TransactionRefundStart :one
-- Opens the refund of a payment (PENDING), with the payment request it pays when its rail
-- pays one; no row when it is already open.
UPDATE transactions SET refund_status = 'PENDING', refund_reason = @reason, refund_initiated_at = @now::timestamptz,
    refund_payment_request = sqlc.narg(payment_request), updated_at = now()
WHERE id = @id AND refund_status IS NULL
RETURNING *;

-- name: TransactionRefundEnd :one
-- Ends a pending refund as COMPLETED or FAILED; no row when it already ended.
UPDATE transactions
SET refund_status = @status, refund_settled_at = CASE WHEN @status = 'COMPLETED' THEN @now::timestamptz END, updated_at = now()
WHERE id = @id AND refund_status = 'PENDING'
RETURNING *;

-- name: TransactionLinkCounterpart :exec
UPDATE transactions SET counterpart_transaction_id = @counterpart WHERE id = @id;

-- name: TransactionSetAgent :exec
-- Records the agent that executed a quote on its transaction.
UPDATE transactions SET agent_id = @agent_id WHERE id = @id AND agent_id IS NULL;

-- name: TransactionsUnfinished :many
-- Payments in one of @statuses (PENDING, PROCESSING), whatever their age, the longest
-- waiting first (transactions_open_idx), each with the quote of the payment it is the
-- receiving side of (payer_quote_id: an INCOMING transaction of a payment between
-- customers of this deployment, which the paying quote's workflow finishes).
SELECT t.id, t.platform_id, t.kind, t.type, t.status, t.quote_id, t.amount, t.currency, t.created_at, t.updated_at,
       p.quote_id AS payer_quote_id
FROM transactions t
LEFT JOIN transactions p ON p.counterpart_transaction_id = t.id
WHERE t.status = ANY(@statuses::text[]) AND t.status IN ('PENDING', 'PROCESSING')
ORDER BY t.updated_at
LIMIT @max_rows;

-- name: TransactionCountStuck :many
-- Open transactions unchanged since before @before, by status (transactions_open_idx).
SELECT status, count(*)::bigint AS count
FROM transactions
WHERE status IN ('CREATED', 'PENDING', 'PROCESSING') AND updated_at < @before
GROUP BY status;

-- name: TransactionPayerOf :one
-- The payment from this deployment whose receiving side (counterpart) transaction @id is
-- (transactions_counterpart_idx).
SELECT id, quote_id FROM transactions WHERE counterpart_transaction_id = @id;

-- name: RefundPayer :one
-- Who sends the refund of the incoming payment @id back over UMA: its platform (its
-- environment, UMA domain and whether it is regulated) and the receiving customer (its UMA
-- address and what the service knows of it).
SELECT p.environment, p.uma_domain AS platform_uma_domain, p.is_regulated_financial_institution AS platform_regulated,
       coalesce(c.uma_address, '')::text AS customer_uma, coalesce(c.full_name, '')::text AS customer_full_name,
       coalesce(to_char(c.birth_date, 'YYYY-MM-DD'), '')::text AS customer_birth_date,
       coalesce(c.nationality, '')::text AS customer_nationality, coalesce(c.email, '')::text AS customer_email
FROM transactions t
JOIN platforms p ON p.id = t.platform_id
LEFT JOIN customers c ON c.id = t.customer_id
WHERE t.id = @id;
