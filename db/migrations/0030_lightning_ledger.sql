-- +goose Up

-- The Lightning rail's ledger accounts, per platform and currency like every system
-- account: LIGHTNING stands for the deployment's Lightning node (what left through it is
-- posted to it, what came in through it is taken from it), and RAIL_FEES is what the
-- deployment paid the network in routing fees. The node's balances reconcile with the
-- LIGHTNING accounts (paycore rails reconcile).
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('INTERNAL', 'SETTLEMENT', 'SANDBOX_FUNDING', 'FX', 'FEES', 'DEPOSITS', 'LIGHTNING', 'RAIL_FEES'));

-- +goose Down
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('INTERNAL', 'SETTLEMENT', 'SANDBOX_FUNDING', 'FX', 'FEES', 'DEPOSITS'));
