-- +goose Up

-- A UMA domain belongs to one platform of the deployment, and a UMA address to one
-- customer of it (deleted customers keep theirs: an address is never handed to someone
-- else). Domains compare case-insensitively. Rows that already break either rule are not
-- resolved here: choosing which platform keeps a domain, or which customer an address,
-- changes who receives money, so the migration stops and names them; the operator gives
-- each its own (PATCH /config umaDomain, or UPDATE by hand) and runs it again. The same
-- holds for a platform on the sandbox's UMA counterparties' domain, which is reserved.
-- +goose StatementBegin
DO $$
DECLARE
    clash text;
BEGIN
    SELECT string_agg(format('%s (platforms %s)', d, ids), '; ') INTO clash
    FROM (SELECT lower(uma_domain) AS d, string_agg(id::text, ', ' ORDER BY created_at, id) AS ids
          FROM platforms WHERE uma_domain <> '' GROUP BY lower(uma_domain) HAVING count(*) > 1) x;
    IF clash IS NOT NULL THEN
        RAISE EXCEPTION 'umaDomain held by more than one platform: %', clash
            USING HINT = 'give each platform its own umaDomain (UPDATE platforms SET uma_domain = ... WHERE id = ...), then migrate again';
    END IF;
    SELECT string_agg(id::text, ', ') INTO clash FROM platforms WHERE lower(uma_domain) = 'sandbox.uma.paycore.dev';
    IF clash IS NOT NULL THEN
        RAISE EXCEPTION 'platforms % hold sandbox.uma.paycore.dev, the domain of the sandbox''s UMA counterparties', clash
            USING HINT = 'give these platforms another umaDomain, then migrate again';
    END IF;
    SELECT string_agg(format('%s (customers %s)', a, ids), '; ') INTO clash
    FROM (SELECT lower(uma_address) AS a, string_agg(id::text, ', ' ORDER BY created_at, id) AS ids
          FROM customers GROUP BY lower(uma_address) HAVING count(*) > 1) x;
    IF clash IS NOT NULL THEN
        RAISE EXCEPTION 'umaAddress held by more than one customer: %', clash
            USING HINT = 'give each customer its own umaAddress (UPDATE customers SET uma_address = ... WHERE id = ...), then migrate again';
    END IF;
END
$$;
-- +goose StatementEnd

CREATE UNIQUE INDEX platforms_uma_domain_key ON platforms (lower(uma_domain)) WHERE uma_domain <> '';
CREATE UNIQUE INDEX customers_uma_address_key ON customers (lower(uma_address));
-- Whose customers hold addresses on a domain (a domain a platform left stays with them).
CREATE INDEX customers_uma_domain_idx ON customers (lower(split_part(uma_address, '@', 2)), platform_id);

-- +goose Down
DROP INDEX customers_uma_domain_idx;
DROP INDEX customers_uma_address_key;
DROP INDEX platforms_uma_domain_key;
