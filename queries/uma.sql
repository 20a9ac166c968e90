-- name: UmaKeysCurrent :one
SELECT * FROM uma_keys WHERE retired_at IS NULL;

-- name: UmaKeysInsert :exec
-- A new current key set; nothing when another is current (a concurrent first use).
INSERT INTO uma_keys (id, signing_sealed, signing_cert, encryption_sealed, encryption_cert, not_after, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT ((true)) WHERE retired_at IS NULL DO NOTHING;

-- name: UmaKeysRetire :exec
UPDATE uma_keys SET retired_at = $1 WHERE retired_at IS NULL;

-- name: UmaKeysDecrypting :many
-- The key sets that may still receive payloads: the current one, and those retired after
-- since, newest first.
SELECT * FROM uma_keys WHERE retired_at IS NULL OR retired_at > sqlc.arg(since) ORDER BY created_at DESC;

-- name: UmaNonceTake :one
-- Takes a nonce of a provider's signed message, forgetting those signed before forget_before;
-- no row when the provider used it before.
WITH forgotten AS (
    DELETE FROM uma_nonces old WHERE old.signed_at < sqlc.arg(forget_before)::timestamptz
)
INSERT INTO uma_nonces (domain, nonce, signed_at) VALUES (sqlc.arg(domain), sqlc.arg(nonce), sqlc.arg(signed_at))
ON CONFLICT (domain, nonce) DO NOTHING
RETURNING nonce;

-- name: UmaProviderKeysGet :one
SELECT response, expires_at FROM uma_provider_keys WHERE domain = $1 AND expires_at > sqlc.arg(now);

-- name: UmaProviderKeysPut :exec
INSERT INTO uma_provider_keys (domain, response, fetched_at, expires_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (domain) DO UPDATE SET response = excluded.response, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at;

-- name: UmaReceiver :one
-- The customer whose UMA address is uma_address on the platform whose UMA domain is domain,
-- with the currencies of its open accounts: who an LNURLP request for that address reaches.
SELECT p.id AS platform_id, p.environment, p.is_regulated_financial_institution, p.supported_currencies,
       c.id AS customer_id, c.kyc_status,
       coalesce((SELECT array_agg(DISTINCT a.currency ORDER BY a.currency) FROM internal_accounts a
                 WHERE a.customer_id = c.id AND a.status <> 'CLOSED'), '{}')::text[] AS currencies
FROM platforms p
JOIN customers c ON c.platform_id = p.id AND c.uma_address = sqlc.arg(uma_address)::text AND NOT c.is_deleted
WHERE p.uma_domain = sqlc.arg(domain)::text;

-- name: UmaDomainProofGet :one
SELECT * FROM uma_domain_proofs WHERE platform_id = sqlc.arg(platform_id) AND domain = lower(sqlc.arg(domain)::text);

-- name: UmaDomainProofInsert :exec
-- The token of the platform's domain; nothing when it has one (a concurrent first read).
INSERT INTO uma_domain_proofs (platform_id, domain, token, created_at)
VALUES (sqlc.arg(platform_id), lower(sqlc.arg(domain)::text), sqlc.arg(token), sqlc.arg(created_at))
ON CONFLICT (platform_id, domain) DO NOTHING;

-- name: UmaDomainProofVerified :exec
UPDATE uma_domain_proofs SET verified_at = sqlc.arg(verified_at)
WHERE platform_id = sqlc.arg(platform_id) AND domain = lower(sqlc.arg(domain)::text) AND verified_at IS NULL;

-- name: UmaDomainProven :one
-- Whether the platform holding domain proved it.
SELECT EXISTS (
    SELECT 1 FROM platforms p JOIN uma_domain_proofs d ON d.platform_id = p.id AND d.domain = lower(p.uma_domain)
    WHERE lower(p.uma_domain) = lower(sqlc.arg(domain)::text) AND d.verified_at IS NOT NULL
) AS proven;

-- name: UmaProxySubdomainDomain :one
-- The umaDomain of the platform whose proxy subdomain is subdomain, once the platform proved
-- it ('' when none did).
SELECT coalesce((SELECT lower(p.uma_domain) FROM platforms p
    JOIN uma_domain_proofs d ON d.platform_id = p.id AND d.domain = lower(p.uma_domain) AND d.verified_at IS NOT NULL
    WHERE p.proxy_uma_subdomain = sqlc.arg(subdomain)::text AND sqlc.arg(subdomain)::text <> ''), '')::text AS domain;

-- name: UmaProviderListed :one
-- Whether the operator listed the provider of domain, and whether it is allowed.
SELECT EXISTS (SELECT 1 FROM uma_providers WHERE lower(domain) = lower(sqlc.arg(domain)::text)) AS listed,
       coalesce((SELECT allow_list_status FROM uma_providers WHERE lower(domain) = lower(sqlc.arg(domain)::text)), false)::boolean AS allowed;

-- name: UmaProviderSetAllowed :exec
-- Lists the provider of domain as allowed or blocked (named by its domain until the operator
-- gives more).
INSERT INTO uma_providers (id, name, domain, logo_url, supported_regions, supported_currencies, lei, allow_list_status)
VALUES (sqlc.arg(id), lower(sqlc.arg(domain)::text), lower(sqlc.arg(domain)::text), '', '{}', '{}', '', sqlc.arg(allowed))
ON CONFLICT (domain) DO UPDATE SET allow_list_status = excluded.allow_list_status;

-- name: UmaProviderPut :exec
-- Lists a provider as the operator describes it, replacing what was listed for its domain.
INSERT INTO uma_providers (id, name, domain, logo_url, supported_regions, supported_currencies, lei, allow_list_status)
VALUES (sqlc.arg(id), sqlc.arg(name), lower(sqlc.arg(domain)::text), sqlc.arg(logo_url), sqlc.arg(supported_regions)::text[],
        sqlc.arg(supported_currencies)::text[], sqlc.arg(lei), sqlc.arg(allow_list_status))
ON CONFLICT (domain) DO UPDATE SET name = excluded.name, logo_url = excluded.logo_url, supported_regions = excluded.supported_regions,
    supported_currencies = excluded.supported_currencies, lei = excluded.lei, allow_list_status = excluded.allow_list_status;

-- name: UmaUtxoCallbackTarget :one
-- The payment a post-transaction callback names: its sender's and receiver's addresses,
-- whether it was sent to another provider's receiver, its platform's UMA domain and
-- environment.
SELECT t.id, t.kind, t.source_uma_address, t.destination_uma_address,
       EXISTS (SELECT 1 FROM uma_sends s WHERE s.transaction_id = t.id)::boolean AS sent_elsewhere,
       p.uma_domain, p.environment
FROM transactions t JOIN platforms p ON p.id = t.platform_id
WHERE t.id = $1;

-- name: UmaUtxoCallbackPut :exec
-- Keeps the first post-transaction callback of a payment.
INSERT INTO uma_utxo_callbacks (transaction_id, vasp_domain, utxos, received_at)
VALUES ($1, $2, $3, $4)
ON CONFLICT (transaction_id) DO NOTHING;

-- name: UmaUtxoCallbackGet :one
SELECT * FROM uma_utxo_callbacks WHERE transaction_id = $1;

-- name: UmaSendInsert :exec
INSERT INTO uma_sends (transaction_id, domain, invoice, terms, created_at) VALUES ($1, $2, $3, $4, $5);

-- name: UmaSendGet :one
SELECT * FROM uma_sends WHERE transaction_id = $1;
