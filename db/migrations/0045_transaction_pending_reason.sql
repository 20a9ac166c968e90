-- +goose Up

-- Why a payment waits at its rail (pendingReason): compliance review or an action of the
-- customer delaying settlement, as its rail says; cleared by any change of its status.
ALTER TABLE transactions ADD COLUMN pending_reason text
    CONSTRAINT transactions_pending_reason CHECK (pending_reason IN ('COUNTERPARTY_DECLARATION_REQUIRED', 'WALLET_VERIFICATION_REQUIRED',
                                                                      'COUNTERPARTY_INFORMATION_REQUIRED', 'COMPLIANCE_REVIEW'));

-- +goose Down
ALTER TABLE transactions DROP COLUMN pending_reason;
