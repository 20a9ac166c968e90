-- name: LedgerAccountCreate :one
INSERT INTO ledger_accounts (id, platform_id, currency, kind)
VALUES ($1, $2, $3, $4)
RETURNING *;

-- name: LedgerSystemAccountEnsure :exec
INSERT INTO ledger_accounts (id, platform_id, currency, kind)
VALUES ($1, $2, $3, $4)
ON CONFLICT (platform_id, currency, kind) WHERE kind <> 'INTERNAL' DO NOTHING;

-- name: LedgerSystemAccountGet :one
SELECT * FROM ledger_accounts WHERE platform_id = $1 AND currency = $2 AND kind = $3;

-- name: LedgerAccountsLock :many
-- Locks accounts in id order so concurrent postings never deadlock.
SELECT * FROM ledger_accounts WHERE id = ANY(@ids::uuid[]) ORDER BY id FOR UPDATE;

-- name: LedgerEntryCreate :exec
INSERT INTO ledger_entries (transaction_id, account_id, amount, currency)
VALUES ($1, $2, $3, $4);

-- name: LedgerAccountApply :exec
-- Applies a posting (balance) and a hold change (held) to one locked account.
UPDATE ledger_accounts SET balance = balance + @delta, held = held + @held_delta, updated_at = now()
WHERE id = @id;

-- name: LedgerSumByCurrency :many
SELECT currency, sum(balance)::bigint AS total, sum(held)::bigint AS held FROM ledger_accounts GROUP BY currency ORDER BY currency;

-- name: LedgerAvailable :one
-- An account's available balance (its balance less what is held), as last committed.
SELECT (balance - held)::bigint AS available FROM ledger_accounts WHERE id = @id;

-- name: PlatformDailyVolumeAdd :one
-- Adds a held payment to its platform's volume of the day in its currency and returns the
-- volume with it (the row stays locked until the transaction ends).
INSERT INTO platform_daily_volumes (platform_id, currency, day, amount) VALUES (@platform_id, @currency, @day, @amount)
ON CONFLICT (platform_id, currency, day) DO UPDATE SET amount = platform_daily_volumes.amount + excluded.amount
RETURNING amount;
