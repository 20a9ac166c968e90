-- +goose Up

-- A settled invoice whose account was closed after the invoice was created cannot credit it:
-- its payment is held on the platform's UNAPPLIED account (BTC) for an operator to return,
-- and the invoice records when (unapplied_at), so that it is held only once.
ALTER TABLE lightning_invoices ADD COLUMN unapplied_at timestamptz;

ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('INTERNAL', 'SETTLEMENT', 'SANDBOX_FUNDING', 'FX', 'FEES', 'DEPOSITS', 'LIGHTNING', 'RAIL_FEES', 'UNAPPLIED'));

-- +goose Down
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('INTERNAL', 'SETTLEMENT', 'SANDBOX_FUNDING', 'FX', 'FEES', 'DEPOSITS', 'LIGHTNING', 'RAIL_FEES'));
ALTER TABLE lightning_invoices DROP COLUMN unapplied_at;
