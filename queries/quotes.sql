-- name: QuoteContext :one
-- Everything a quote is checked against, in one round trip: the platform, the source
-- internal account with its customer, and the destination account, internal or external
-- (NULL ids when the platform has no such account).
SELECT p.environment, p.supported_currencies, p.fee_configs, p.uma_domain AS platform_uma_domain, p.is_regulated_financial_institution AS platform_regulated,
       EXISTS (SELECT 1 FROM platforms hp WHERE hp.uma_domain <> '' AND lower(hp.uma_domain) = lower(split_part(@destination_uma::text, '@', 2)))::boolean AS uma_domain_here,
       a.id AS source_id, coalesce(a.currency, '')::text AS source_currency, coalesce(a.status, '')::text AS source_status,
       a.customer_id AS source_customer_id, coalesce(a.type, '')::text AS source_type, coalesce(l.balance - l.held, 0)::bigint AS source_available,
       c.id AS customer_id, coalesce(c.is_deleted, false)::boolean AS customer_deleted, coalesce(c.platform_customer_id, '')::text AS platform_customer_id,
       coalesce(c.kyc_status, '')::text AS customer_kyc,
       (p.end_user_terms_required AND c.id IS NOT NULL AND c.end_user_terms_consent IS NULL)::boolean AS customer_terms_missing,
       coalesce(c.full_name, '')::text AS customer_full_name, coalesce(to_char(c.birth_date, 'YYYY-MM-DD'), '')::text AS customer_birth_date,
       coalesce(c.nationality, '')::text AS customer_nationality, coalesce(c.email, '')::text AS customer_email, coalesce(c.uma_address, '')::text AS customer_uma,
       da.id AS dest_internal_id, coalesce(da.currency, '')::text AS dest_internal_currency, coalesce(da.status, '')::text AS dest_internal_status,
       da.customer_id AS dest_internal_customer_id, coalesce(dc.full_name, dc.business_info->>'legalName', '')::text AS dest_internal_holder,
       e.id AS dest_external_id, coalesce(e.currency, '')::text AS dest_external_currency, coalesce(e.status, '')::text AS dest_external_status,
       e.customer_id AS dest_external_customer_id, coalesce(e.identifier, '')::text AS dest_external_identifier,
       coalesce(e.account_type, '')::text AS dest_external_account_type,
       coalesce(e.account_info->'paymentRails', '[]'::jsonb)::text AS dest_external_payment_rails,
       coalesce(e.account_info->'beneficiary'->>'fullName', e.account_info->'beneficiary'->>'legalName', '')::text AS dest_external_holder,
       coalesce(uc.id, '00000000-0000-0000-0000-000000000000'::uuid)::uuid AS uma_customer_id, coalesce(uc.platform_id, '00000000-0000-0000-0000-000000000000'::uuid)::uuid AS uma_platform_id,
       (SELECT count(*) FROM customers mc JOIN platforms mp ON mp.id = mc.platform_id
        WHERE mc.uma_address = @destination_uma::text AND NOT mc.is_deleted AND mp.environment = p.environment)::bigint AS uma_matches,
       coalesce(ua.id, '00000000-0000-0000-0000-000000000000'::uuid)::uuid AS uma_account_id, coalesce(ua.currency, '')::text AS uma_account_currency, coalesce(ua.status, '')::text AS uma_account_status,
       -- The platform's own account in the sending currency, which a platform fee is paid to.
       (SELECT pa.id FROM internal_accounts pa WHERE pa.platform_id = p.id AND pa.customer_id IS NULL
        AND pa.currency = coalesce(a.currency, @sending_currency::text) LIMIT 1) AS platform_account_id
FROM platforms p
LEFT JOIN internal_accounts a ON a.platform_id = p.id AND a.id = @source_id
LEFT JOIN ledger_accounts l ON l.id = a.id
LEFT JOIN customers c ON c.platform_id = p.id AND c.id = coalesce(a.customer_id, sqlc.narg(funding_customer_id))
LEFT JOIN internal_accounts da ON da.platform_id = p.id AND da.id = @destination_id AND @destination_internal::boolean
LEFT JOIN customers dc ON dc.id = da.customer_id
LEFT JOIN external_accounts e ON e.platform_id = p.id AND e.id = @destination_id AND NOT @destination_internal::boolean AND NOT e.is_deleted
-- A UMA address of a customer of any platform of the same environment on this deployment
-- (sandbox money never reaches production customers, nor the reverse), with its open
-- account in the currency asked for (its first currency when none is), the customer's own
-- kind of account first.
LEFT JOIN LATERAL (
    SELECT c2.id, c2.platform_id, c2.currencies FROM customers c2 JOIN platforms p2 ON p2.id = c2.platform_id
    WHERE c2.uma_address = @destination_uma::text AND @destination_uma::text <> '' AND NOT c2.is_deleted AND p2.environment = p.environment
    ORDER BY c2.created_at, c2.id LIMIT 1) uc ON true
LEFT JOIN LATERAL (
    SELECT a2.id, a2.currency, a2.status FROM internal_accounts a2
    WHERE a2.customer_id = uc.id AND a2.status <> 'CLOSED' AND a2.currency = coalesce(nullif(@destination_currency::text, ''), uc.currencies[1])
    ORDER BY a2.type = 'EMBEDDED_WALLET', a2.created_at LIMIT 1) ua ON true
WHERE p.id = @platform_id
LIMIT 1;

-- name: QuoteCreate :exec
INSERT INTO quotes (id, platform_id, customer_id, transaction_id, source_kind, source_account_id, crypto_network,
                    destination_kind, destination_account_id, destination_internal, destination_identifier, destination_uma,
                    payment_rail, locked_side, locked_amount, multiplier, fixed_fee, variable_fee_rate, description,
                    purpose_of_payment, sender_customer_info, expires_at, signed_request_id, payment_instructions)
VALUES (@id, @platform_id, @customer_id, @transaction_id, @source_kind, @source_account_id, @crypto_network,
        @destination_kind, @destination_account_id, @destination_internal, @destination_identifier, @destination_uma,
        @payment_rail, @locked_side, @locked_amount, @multiplier, @fixed_fee, @variable_fee_rate, @description,
        @purpose_of_payment, @sender_customer_info, @expires_at, @signed_request_id, @payment_instructions);

-- name: QuoteGet :one
-- A platform's quote with its transaction (whose status is the quote's).
SELECT sqlc.embed(q), sqlc.embed(t), coalesce(s.payload, '')::text AS payload_to_sign
FROM quotes q
JOIN transactions t ON t.id = q.transaction_id
LEFT JOIN signed_requests s ON s.id = q.signed_request_id
WHERE q.platform_id = @platform_id AND q.id = @id;

-- name: QuoteGetByID :one
SELECT sqlc.embed(q), sqlc.embed(t), coalesce(s.payload, '')::text AS payload_to_sign
FROM quotes q
JOIN transactions t ON t.id = q.transaction_id
LEFT JOIN signed_requests s ON s.id = q.signed_request_id
WHERE q.id = @id;

-- name: QuoteLock :one
-- Locks a quote for its execution or expiry.
SELECT * FROM quotes WHERE id = @id FOR UPDATE;

-- name: QuoteMarkExecuted :exec
UPDATE quotes SET execute_key = @execute_key, executed_at = @now::timestamptz WHERE id = @id AND execute_key IS NULL;

-- name: TransactionSetOriginator :exec
-- Records who sent the deposit that funded a quote's payment, as its rail reported it.
UPDATE transactions SET originator = @originator WHERE id = @id;

-- name: QuoteRecordDeposit :exec
UPDATE quotes SET deposit_amount = @amount, deposit_key = @key WHERE id = @id AND deposit_amount IS NULL;

-- name: AccountNumberNext :one
-- A number unique across accounts and quotes, for payment instructions.
SELECT nextval('account_number_seq')::bigint;

-- name: QuoteCounterpartContext :one
-- What the incoming counterpart of a payment to a customer on this deployment needs: the
-- receiving account's platform and customer, and the paying customer's UMA address and name.
SELECT ra.platform_id AS receiver_platform_id, ra.customer_id AS receiver_customer_id,
       coalesce(pc.uma_address, '')::text AS sender_uma, coalesce(pc.full_name, '')::text AS sender_name
FROM internal_accounts ra
LEFT JOIN customers pc ON pc.id = sqlc.narg(payer_id)
WHERE ra.id = @receiver_account_id;

-- name: TransactionSetOnChain :exec
-- Records the on-chain transactions of a payment: the one that delivered it to a crypto
-- wallet, the crypto deposit that funded it (NULL leaves one as it is).
UPDATE transactions SET destination_on_chain = coalesce(sqlc.narg(destination), destination_on_chain),
                        source_on_chain = coalesce(sqlc.narg(source), source_on_chain)
WHERE id = @id;
