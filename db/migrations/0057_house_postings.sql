-- +goose Up

-- House accounts are never a serialization point (ADR 0059). A house account is every
-- ledger account that is not INTERNAL: the platform's SETTLEMENT, SANDBOX_FUNDING, FX,
-- FEES, DEPOSITS, LIGHTNING, RAIL_FEES and UNAPPLIED accounts, one row per platform,
-- currency and kind, which every payment of a platform's corridor touches. Their balance
-- may go negative (they mirror the outside world), so a posting that changes only such an
-- account's balance needs no check against it and no lock on it: it is appended here, in
-- the payment's transaction, beside its ledger entry. The janitor folds the appended
-- postings into ledger_accounts.balance (db.LedgerHouseRollUp), each account in its own
-- short transaction, the deleted rows and their sum changing places at once.
--
-- A house account's balance is therefore ledger_accounts.balance plus its rows here, and
-- ledger_balances shows it so: read in one statement, every currency sums to zero in every
-- snapshot, as before. A posting that changes the held part of a house account (the
-- DEPOSITS account holds a funded quote's deposit) still locks the row, which keeps
-- "never release more than is held" checked under the lock.
--
-- No foreign key on account_id: its check would take a share lock on the hot account row
-- from every payment at once. LedgerHousePost inserts only ids of house accounts of the
-- posting's currency, read in the same statement, and ledger accounts are never deleted.
CREATE TABLE ledger_house_postings (
    account_id uuid   NOT NULL,
    amount     bigint NOT NULL CHECK (amount <> 0)
);
CREATE INDEX ledger_house_postings_account_idx ON ledger_house_postings (account_id) INCLUDE (amount);

-- Every ledger account with its whole balance: the rolled-up balance plus the house
-- postings appended since. Readers of balances that may include house accounts read this.
CREATE VIEW ledger_balances AS
SELECT a.id, a.platform_id, a.currency, a.kind,
       (a.balance + coalesce((SELECT sum(p.amount) FROM ledger_house_postings p WHERE p.account_id = a.id), 0))::bigint AS balance,
       a.held, a.created_at, a.updated_at
FROM ledger_accounts a;

-- +goose Down
-- Fold what is left before the table goes, so that no balance is lost.
UPDATE ledger_accounts a SET balance = a.balance + p.amount
FROM (SELECT account_id, sum(amount)::bigint AS amount FROM ledger_house_postings GROUP BY account_id) p
WHERE p.account_id = a.id;
DROP VIEW ledger_balances;
DROP TABLE ledger_house_postings;
