-- +goose Up

-- Outgoing transactions take only the outgoing statuses (PENDING, EXPIRED, PROCESSING,
-- COMPLETED, FAILED) and outgoing failure reasons; incoming ones keep the incoming reasons.
-- A bank's rejection of a transfer out is FAILED, its cause in failure_detail
-- ("REJECTED_BY_BANK: ..."), which such rows already carry. Rows written before this rule
-- (REJECTED, OFFRAMP_FAILED on transfers out) are brought within it, and so are the
-- OUTGOING_PAYMENT_* webhook payloads still stored for delivery or redelivery.
UPDATE transactions SET status = 'FAILED', updated_at = now()
WHERE type = 'OUTGOING' AND status NOT IN ('PENDING', 'EXPIRED', 'PROCESSING', 'COMPLETED', 'FAILED');
UPDATE transactions SET failure_reason = NULL, updated_at = now()
WHERE type = 'OUTGOING' AND failure_reason IS NOT NULL
  AND failure_reason NOT IN ('QUOTE_EXPIRED', 'QUOTE_EXECUTION_FAILED', 'LIGHTNING_PAYMENT_FAILED', 'FUNDING_AMOUNT_MISMATCH',
                             'COUNTERPARTY_POST_TX_FAILED');
UPDATE webhook_events SET data = jsonb_set(data, '{status}', '"FAILED"')
WHERE type LIKE 'OUTGOING\_PAYMENT\_%' AND data->>'status' NOT IN ('PENDING', 'EXPIRED', 'PROCESSING', 'COMPLETED', 'FAILED');
UPDATE webhook_events SET data = data - 'failureReason'
WHERE type LIKE 'OUTGOING\_PAYMENT\_%' AND data ? 'failureReason'
  AND data->>'failureReason' NOT IN ('QUOTE_EXPIRED', 'QUOTE_EXECUTION_FAILED', 'LIGHTNING_PAYMENT_FAILED', 'FUNDING_AMOUNT_MISMATCH',
                                     'COUNTERPARTY_POST_TX_FAILED');

ALTER TABLE transactions
    ADD CONSTRAINT transactions_outgoing_status
        CHECK (type <> 'OUTGOING' OR status IN ('PENDING', 'EXPIRED', 'PROCESSING', 'COMPLETED', 'FAILED')),
    ADD CONSTRAINT transactions_failure_reason
        CHECK (failure_reason IS NULL
            OR (type = 'OUTGOING' AND failure_reason IN ('QUOTE_EXPIRED', 'QUOTE_EXECUTION_FAILED', 'LIGHTNING_PAYMENT_FAILED',
                                                         'FUNDING_AMOUNT_MISMATCH', 'COUNTERPARTY_POST_TX_FAILED'))
            OR (type = 'INCOMING' AND failure_reason IN ('LNURLP_FAILED', 'PAY_REQUEST_FAILED', 'PAYMENT_APPROVAL_WEBHOOK_ERROR',
                                                         'PAYMENT_APPROVAL_TIMED_OUT', 'OFFRAMP_FAILED', 'MISSING_MANDATORY_PAYEE_DATA',
                                                         'QUOTE_EXPIRED', 'QUOTE_EXECUTION_FAILED')));

-- +goose Down
ALTER TABLE transactions DROP CONSTRAINT transactions_failure_reason, DROP CONSTRAINT transactions_outgoing_status;
