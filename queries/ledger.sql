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
-- Locks, in id order so that concurrent postings never deadlock, the accounts among ids a
-- posting must lock: every INTERNAL account (its available balance is checked) and those in
-- held_ids (their held part changes). A house account whose balance alone changes is left
-- unlocked and unread: its posting is appended (LedgerHousePost). FOR NO KEY UPDATE: it
-- excludes every other posting's lock, and the foreign-key checks of concurrent ledger
-- entries (KEY SHARE) do not wait for it.
SELECT * FROM ledger_accounts
WHERE id = ANY(@ids::uuid[]) AND (kind = 'INTERNAL' OR id = ANY(@held_ids::uuid[]))
ORDER BY id FOR NO KEY UPDATE;

-- name: LedgerEntriesCreate :exec
-- Posts a transaction's entries in one currency, one per account_ids[i] and amounts[i].
INSERT INTO ledger_entries (transaction_id, account_id, amount, currency)
SELECT @transaction_id::uuid, unnest(@account_ids::uuid[]), unnest(@amounts::bigint[]), @currency::text;

-- name: LedgerHousePost :one
-- Appends the postings amounts[i] to the house accounts account_ids[i] without locking
-- them (migration 0057), and returns how many it appended: only to house accounts of
-- currency, so a caller that gets fewer than it asked for named another account.
WITH posted AS (
    INSERT INTO ledger_house_postings (account_id, amount)
    SELECT e.account_id, e.amount
    FROM (SELECT unnest(@account_ids::uuid[]) AS account_id, unnest(@amounts::bigint[]) AS amount) e
    JOIN ledger_accounts a ON a.id = e.account_id
    WHERE a.kind <> 'INTERNAL' AND a.currency = @currency::text
    RETURNING 1
)
SELECT count(*) FROM posted;

-- name: LedgerHouseAccountsPending :many
-- The house accounts with appended postings not yet rolled up.
SELECT a.id FROM ledger_accounts a
WHERE a.kind <> 'INTERNAL' AND EXISTS (SELECT 1 FROM ledger_house_postings p WHERE p.account_id = a.id)
ORDER BY a.id;

-- name: LedgerHouseRollUp :one
-- Folds the postings appended to house account id into its balance and returns how many it
-- folded: the deleted rows and their sum change places at once, so its balance (the row's
-- plus its postings) is the same before and after in every snapshot. Postings committed
-- while it runs are left for the next roll-up.
WITH folded AS (
    DELETE FROM ledger_house_postings WHERE account_id = @id RETURNING amount
), total AS (
    SELECT count(*) AS n, coalesce(sum(amount), 0)::bigint AS amount FROM folded
), rolled AS (
    UPDATE ledger_accounts a SET balance = a.balance + t.amount, updated_at = now()
    FROM total t WHERE a.id = @id AND t.n > 0
    RETURNING a.id
)
SELECT n FROM total;

-- name: LedgerAccountApply :exec
-- Applies a posting (balance) and a hold change (held) to one locked account.
UPDATE ledger_accounts SET balance = balance + @delta, held = held + @held_delta, updated_at = now()
WHERE id = @id;

-- name: LedgerSumByCurrency :many
SELECT currency, sum(balance)::bigint AS total, sum(held)::bigint AS held FROM ledger_balances GROUP BY currency ORDER BY currency;

-- name: LedgerAvailable :one
-- An account's available balance (its balance less what is held), as last committed.
SELECT (balance - held)::bigint AS available FROM ledger_accounts WHERE id = @id;

-- name: PlatformDailyVolumeAdd :one
-- Adds a held payment to its platform's volume of the day in its currency and returns the
-- volume with it (the row stays locked until the transaction ends).
INSERT INTO platform_daily_volumes (platform_id, currency, day, amount) VALUES (@platform_id, @currency, @day, @amount)
ON CONFLICT (platform_id, currency, day) DO UPDATE SET amount = platform_daily_volumes.amount + excluded.amount
RETURNING amount;
