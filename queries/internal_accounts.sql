-- name: InternalAccountCreate :one
INSERT INTO internal_accounts (id, platform_id, customer_id, type, currency, wallet_sealed, private_enabled)
VALUES ($1, $2, $3, $4, $5, $6, $7)
RETURNING *;

-- name: AccountNumbersNext :many
-- count account numbers for internal accounts about to be opened.
SELECT nextval('account_number_seq')::bigint AS account_number FROM generate_series(1, sqlc.arg(count)::integer);

-- name: InternalAccountsOpen :exec
-- A batch of internal accounts of a platform, each with its ledger account of kind, in one
-- statement, given column by column: element i of each array is account i's (the nil uuid
-- for no customer, the platform's own accounts; a NULL private_enabled and wallet_sealed
-- but for embedded wallets).
WITH a AS (
    SELECT unnest(sqlc.arg(ids)::uuid[]) AS id, nullif(unnest(sqlc.arg(customer_ids)::uuid[]), '00000000-0000-0000-0000-000000000000') AS customer_id,
           unnest(sqlc.arg(types)::text[]) AS type, unnest(sqlc.arg(currencies)::text[]) AS currency,
           unnest(sqlc.arg(account_numbers)::bigint[]) AS account_number,
           unnest(sqlc.arg(funding_instructions)::jsonb[]) AS funding_instructions,
           unnest(sqlc.arg(private_enabled)::bool[]) AS private_enabled, unnest(sqlc.arg(wallets_sealed)::bytea[]) AS wallet_sealed
), ledger AS (
    INSERT INTO ledger_accounts (id, platform_id, currency, kind)
    SELECT a.id, sqlc.arg(platform_id), a.currency, sqlc.arg(kind) FROM a
)
INSERT INTO internal_accounts (id, platform_id, customer_id, type, currency, account_number, funding_instructions,
                               private_enabled, wallet_sealed)
SELECT a.id, sqlc.arg(platform_id), a.customer_id, a.type, a.currency, a.account_number, a.funding_instructions,
       CASE WHEN a.wallet_sealed IS NOT NULL THEN a.private_enabled END, a.wallet_sealed
FROM a;

-- name: InternalAccountGet :one
SELECT sqlc.embed(a), l.balance, l.held
FROM internal_accounts a JOIN ledger_accounts l ON l.id = a.id
WHERE a.platform_id = $1 AND a.id = $2;

-- name: InternalAccountList :many
SELECT sqlc.embed(a), l.balance, l.held
FROM internal_accounts a JOIN ledger_accounts l ON l.id = a.id
WHERE a.platform_id = @platform_id
  AND (@platform_owned::boolean = (a.customer_id IS NULL))
  AND a.status <> 'CLOSED'
  AND (sqlc.narg(customer_id)::uuid IS NULL OR a.customer_id = sqlc.narg(customer_id))
  AND (sqlc.narg(currency)::text IS NULL OR a.currency = sqlc.narg(currency))
  AND (sqlc.narg(type)::text IS NULL OR a.type = sqlc.narg(type))
  AND (sqlc.narg(after_id)::uuid IS NULL OR a.id < sqlc.narg(after_id))
ORDER BY a.id DESC
LIMIT @row_limit;

-- name: InternalAccountsOfCustomer :many
SELECT sqlc.embed(a), l.balance, l.held
FROM internal_accounts a JOIN ledger_accounts l ON l.id = a.id
WHERE a.customer_id = $1 AND a.status <> 'CLOSED'
ORDER BY a.id;

-- name: InternalAccountCurrenciesOfPlatform :many
-- The currencies of the platform's own open accounts.
SELECT currency FROM internal_accounts
WHERE platform_id = $1 AND customer_id IS NULL AND status <> 'CLOSED';

-- name: InternalAccountSetStatus :exec
-- Status changes go through db.InternalAccountClose, which holds the account's ledger row
-- lock (the lock every posting takes) while it checks and writes.
UPDATE internal_accounts SET status = $2, updated_at = now() WHERE id = $1;

-- name: InternalAccountPostingChecks :many
-- What a posting must know of the internal accounts among ids (system ledger accounts have
-- none): their status, and for embedded wallets whether a used signed retry is bound to
-- the posting's transaction. Run it after LedgerAccountsLock, as its own statement, so it
-- sees every status change committed before the locks were granted. It returns the whole
-- row, which the posting's balance events render (no InternalAccountGet after the posting).
SELECT sqlc.embed(a),
       (a.type = 'EMBEDDED_WALLET' AND NOT EXISTS (
            SELECT 1 FROM signed_requests s
            WHERE s.account_id = a.id AND s.transaction_id = @transaction_id AND s.used_at IS NOT NULL))::boolean AS wallet_unsigned
FROM internal_accounts a WHERE a.id = ANY(@ids::uuid[]);

-- name: InternalAccountSetPrivate :one
UPDATE internal_accounts SET private_enabled = $3, updated_at = now()
WHERE platform_id = $1 AND id = $2
RETURNING *;

-- name: InternalAccountOwner :one
-- What starting a transfer reads of its internal account before the transfer rule runs:
-- whether money leaving it needs the customer's wallet signature, and its customer (a
-- search attribute of the workflow).
SELECT type, customer_id FROM internal_accounts WHERE platform_id = $1 AND id = $2;
