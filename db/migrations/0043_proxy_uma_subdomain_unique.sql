-- +goose Up

-- A proxy subdomain routes the UMA requests that reach it to one platform (the platform
-- whose umaDomain proxies them there), so no two platforms share one.
-- +goose StatementBegin
DO $$
DECLARE clash text;
BEGIN
    SELECT string_agg(ids, '; ') INTO clash
    FROM (SELECT string_agg(id::text, ', ' ORDER BY created_at, id) AS ids
          FROM platforms WHERE proxy_uma_subdomain <> '' GROUP BY proxy_uma_subdomain HAVING count(*) > 1) x;
    IF clash IS NOT NULL THEN
        RAISE EXCEPTION 'platforms share a proxyUmaSubdomain: %', clash
            USING HINT = 'give each platform its own proxyUmaSubdomain (UPDATE platforms SET proxy_uma_subdomain = ... WHERE id = ...), then migrate again';
    END IF;
END
$$;
-- +goose StatementEnd

CREATE UNIQUE INDEX platforms_proxy_uma_subdomain_key ON platforms (proxy_uma_subdomain) WHERE proxy_uma_subdomain <> '';

-- +goose Down
DROP INDEX platforms_proxy_uma_subdomain_key;
