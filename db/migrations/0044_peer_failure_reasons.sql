-- +goose Up

-- Failure reasons take the peer API's newer enumerations: outgoing payments add the payout
-- partner's granular reasons (PAYOUT_RETURNED, LIMIT_EXCEEDED, ACCOUNT_CANNOT_RECEIVE,
-- ACCOUNT_INVALID, COMPLIANCE_REJECTED) and QUOTE_RATE_UNAVAILABLE; incoming ones add
-- COMPLIANCE_REJECTED and COLLECTION_FAILED (catalog.OutgoingFailureReasons,
-- catalog.IncomingFailureReasons).
ALTER TABLE transactions DROP CONSTRAINT transactions_failure_reason;
ALTER TABLE transactions
    ADD CONSTRAINT transactions_failure_reason
        CHECK (failure_reason IS NULL
            OR (type = 'OUTGOING' AND failure_reason IN ('QUOTE_EXPIRED', 'QUOTE_RATE_UNAVAILABLE', 'QUOTE_EXECUTION_FAILED',
                                                         'FUNDING_AMOUNT_MISMATCH', 'PAYOUT_RETURNED', 'LIMIT_EXCEEDED',
                                                         'ACCOUNT_CANNOT_RECEIVE', 'ACCOUNT_INVALID', 'COMPLIANCE_REJECTED',
                                                         'LIGHTNING_PAYMENT_FAILED', 'COUNTERPARTY_POST_TX_FAILED'))
            OR (type = 'INCOMING' AND failure_reason IN ('LNURLP_FAILED', 'PAY_REQUEST_FAILED', 'PAYMENT_APPROVAL_WEBHOOK_ERROR',
                                                         'PAYMENT_APPROVAL_TIMED_OUT', 'OFFRAMP_FAILED', 'MISSING_MANDATORY_PAYEE_DATA',
                                                         'QUOTE_EXPIRED', 'QUOTE_EXECUTION_FAILED', 'COMPLIANCE_REJECTED',
                                                         'COLLECTION_FAILED')));

-- +goose Down
ALTER TABLE transactions DROP CONSTRAINT transactions_failure_reason;
UPDATE transactions SET failure_reason = NULL, updated_at = now()
WHERE failure_reason IN ('QUOTE_RATE_UNAVAILABLE', 'PAYOUT_RETURNED', 'LIMIT_EXCEEDED', 'ACCOUNT_CANNOT_RECEIVE', 'ACCOUNT_INVALID',
                         'COMPLIANCE_REJECTED', 'COLLECTION_FAILED');
ALTER TABLE transactions
    ADD CONSTRAINT transactions_failure_reason
        CHECK (failure_reason IS NULL
            OR (type = 'OUTGOING' AND failure_reason IN ('QUOTE_EXPIRED', 'QUOTE_EXECUTION_FAILED', 'LIGHTNING_PAYMENT_FAILED',
                                                         'FUNDING_AMOUNT_MISMATCH', 'COUNTERPARTY_POST_TX_FAILED'))
            OR (type = 'INCOMING' AND failure_reason IN ('LNURLP_FAILED', 'PAY_REQUEST_FAILED', 'PAYMENT_APPROVAL_WEBHOOK_ERROR',
                                                         'PAYMENT_APPROVAL_TIMED_OUT', 'OFFRAMP_FAILED', 'MISSING_MANDATORY_PAYEE_DATA',
                                                         'QUOTE_EXPIRED', 'QUOTE_EXECUTION_FAILED')));
