-- name: LightningInvoiceOpen :one
-- The account's newest amountless invoice not yet paid that is still open after valid_after.
SELECT payment_request FROM lightning_invoices
WHERE account_id = $1 AND transaction_id IS NULL AND amount IS NULL AND expires_at > sqlc.arg(valid_after)
ORDER BY expires_at DESC
LIMIT 1;

-- name: LightningInvoiceAdd :exec
INSERT INTO lightning_invoices (payment_hash, platform_id, account_id, payment_request, amount, expires_at, created_at)
VALUES ($1, $2, $3, $4, sqlc.narg(amount), $5, $6);

-- name: LightningInvoiceLock :one
SELECT * FROM lightning_invoices WHERE payment_hash = $1 FOR UPDATE;

-- name: LightningInvoiceUnapplied :exec
UPDATE lightning_invoices SET unapplied_at = $2 WHERE payment_hash = $1 AND transaction_id IS NULL AND unapplied_at IS NULL;

-- name: LightningUnappliedSats :one
-- What every platform's UNAPPLIED accounts hold in BTC: payments received for accounts that
-- were closed, waiting for an operator.
SELECT coalesce(sum(balance), 0)::bigint FROM ledger_balances WHERE kind = 'UNAPPLIED' AND currency = 'BTC';

-- name: LightningInvoiceCredited :exec
UPDATE lightning_invoices SET transaction_id = $2 WHERE payment_hash = $1 AND transaction_id IS NULL;

-- name: LightningSettleCursor :one
SELECT coalesce((SELECT settle_index FROM lightning_settle_cursors WHERE node_pubkey = $1), 0)::bigint;

-- name: LightningSettleCursorAdvance :exec
INSERT INTO lightning_settle_cursors (node_pubkey, settle_index) VALUES ($1, $2)
ON CONFLICT (node_pubkey) DO UPDATE SET settle_index = greatest(lightning_settle_cursors.settle_index, excluded.settle_index);

-- name: LightningInvoicesUncredited :many
-- The invoices not yet credited that were payable after since, oldest first: what the
-- catch-up scan asks the node about.
SELECT payment_hash FROM lightning_invoices
WHERE transaction_id IS NULL AND unapplied_at IS NULL AND expires_at > sqlc.arg(since)
  AND (for_transaction IS NULL OR EXISTS (SELECT 1 FROM transactions t WHERE t.id = for_transaction AND t.status = 'PENDING'))
ORDER BY expires_at
LIMIT sqlc.arg(row_limit);

-- name: LightningLedgerBalance :one
-- What the LIGHTNING accounts of every platform say, in satoshis: what left the node less
-- what came in.
SELECT coalesce(sum(balance), 0)::bigint FROM ledger_balances WHERE kind = 'LIGHTNING' AND currency = 'BTC';

-- name: LightningBaseline :one
SELECT * FROM lightning_reconciliation_baselines WHERE node_pubkey = $1;

-- name: LightningBaselineSet :exec
INSERT INTO lightning_reconciliation_baselines (node_pubkey, node_sats, ledger_sats, recorded_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (node_pubkey) DO UPDATE SET node_sats = excluded.node_sats, ledger_sats = excluded.ledger_sats, recorded_at = excluded.recorded_at;

-- name: LightningFeePostingsSince :one
-- How many route fees the ledger posted since a moment: each was rounded up to the
-- satoshi, so the node may hold up to one satoshi more per fee than the ledger accounts for.
-- A fee paid is a debit of RAIL_FEES; what quotes reserved for fees are its credits.
SELECT count(*)::bigint FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
WHERE a.kind = 'RAIL_FEES' AND a.currency = 'BTC' AND e.amount < 0 AND e.created_at >= sqlc.arg(since);

-- name: LightningPayoutInvoice :one
SELECT payment_request FROM lightning_payouts WHERE key = $1;

-- name: LightningPayoutInvoiceRecord :exec
INSERT INTO lightning_payouts (key, payment_request, created_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING;

-- name: LightningAddressAccount :one
-- The open BTC account of the customer whose UMA address is uma_address on the platform
-- whose UMA domain is domain: where its Lightning address receives.
SELECT p.id AS platform_id, p.environment, a.id AS account_id
FROM platforms p
JOIN customers c ON c.platform_id = p.id AND c.uma_address = sqlc.arg(uma_address)::text AND NOT c.is_deleted
JOIN internal_accounts a ON a.customer_id = c.id AND a.currency = 'BTC' AND a.status <> 'CLOSED'
WHERE p.uma_domain = sqlc.arg(domain)::text
ORDER BY a.created_at
LIMIT 1;

-- name: LightningAddressInvoicesOpen :one
-- How many invoices the account's Lightning address made that are unpaid and still payable.
SELECT count(*)::bigint FROM lightning_invoices
WHERE account_id = $1 AND amount IS NOT NULL AND transaction_id IS NULL AND expires_at > sqlc.arg(now);

-- name: LightningInvoiceFor :one
-- The invoice collecting a payment received over UMA.
SELECT * FROM lightning_invoices WHERE for_transaction = $1;

-- name: LightningInvoiceAddFor :exec
-- Records the invoice collecting the incoming payment for_transaction, for its destination
-- account.
INSERT INTO lightning_invoices (payment_hash, platform_id, account_id, payment_request, amount, expires_at, created_at, for_transaction)
SELECT @payment_hash, t.platform_id, t.destination_account_id, @payment_request, @amount, @expires_at, @created_at, t.id
FROM transactions t WHERE t.id = @for_transaction;

-- name: LightningInvoiceCollected :exec
-- Records that the incoming payment an invoice collects credited its account.
UPDATE lightning_invoices SET transaction_id = for_transaction WHERE for_transaction = $1 AND transaction_id IS NULL;
