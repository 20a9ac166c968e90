-- +goose Up

-- Lists stay fast as a platform grows: an index in each filter's keyset order, and exact
-- counts (the totalCount of list answers) that are not counted row by row at read time.
--
-- list_counts holds append-only deltas: a statement-level trigger on each counted table
-- writes, in the same transaction as the change, +n for every key a new row is counted
-- under and -n for every key a changed or deleted row leaves (an update that changes no key
-- writes nothing). A key's count is the sum of its rows, so it is exact in any snapshot that
-- sees the rows themselves, and concurrent writers never update a shared row (no hot
-- counter serialising transfers). The janitor compacts each key and day to one row
-- (db.ListCountsCompact). Keys filtered together with a date range have one row per UTC
-- day of that date (day), the others use '-infinity'.
CREATE TABLE list_counts (
    platform_id uuid    NOT NULL,
    list        text    NOT NULL,
    key         text    NOT NULL,
    day         date    NOT NULL,
    n           bigint  NOT NULL,
    compacted   boolean NOT NULL DEFAULT false
);
CREATE INDEX list_counts_key_idx ON list_counts (platform_id, list, key, day) INCLUDE (n);
CREATE INDEX list_counts_fresh_idx ON list_counts (platform_id, list, key, day) WHERE NOT compacted;

-- +goose StatementBegin
CREATE FUNCTION list_counts_day(at timestamptz) RETURNS date LANGUAGE sql IMMUTABLE AS $$
    SELECT (at AT TIME ZONE 'UTC')::date
$$;
-- +goose StatementEnd

-- The keys each row is counted under. The Go list readers (db/*list*.go) name the same keys.

-- Transactions: all of a platform's, by status, by type, by both and the platform's own (per
-- day of created_at); by customer (alone, with status, with type), platformCustomerId,
-- source, destination and either account.
-- +goose StatementBegin
CREATE FUNCTION transactions_count_keys(t transactions) RETURNS TABLE (key text, day date) LANGUAGE sql STABLE AS $$
    SELECT k.key, CASE WHEN k.dated THEN list_counts_day(t.created_at) ELSE '-infinity'::date END
    FROM (VALUES ('', true),
                 ('status=' || t.status, true),
                 ('type=' || t.type, true),
                 ('status=' || t.status || '&type=' || t.type, true),
                 (CASE WHEN t.customer_id IS NULL THEN 'platform' END, true),
                 ('customer=' || t.customer_id, false),
                 ('customer=' || t.customer_id || '&status=' || t.status, false),
                 ('customer=' || t.customer_id || '&type=' || t.type, false),
                 ('platformCustomerId=' || nullif(t.platform_customer_id, ''), false),
                 ('sender=' || t.source_account_id, false),
                 ('receiver=' || t.destination_account_id, false),
                 ('account=' || t.source_account_id, false),
                 (CASE WHEN t.destination_account_id IS DISTINCT FROM t.source_account_id
                       THEN 'account=' || t.destination_account_id END, false)) AS k (key, dated)
    WHERE k.key IS NOT NULL
$$;
-- +goose StatementEnd

-- Webhook events: all, by type and by status, per day of created_at.
-- +goose StatementBegin
CREATE FUNCTION webhook_events_count_keys(e webhook_events) RETURNS TABLE (key text, day date) LANGUAGE sql STABLE AS $$
    SELECT k.key, list_counts_day(e.created_at)
    FROM (VALUES (''), ('type=' || e.type), ('status=' || e.status)) AS k (key)
$$;
-- +goose StatementEnd

-- Customers, the deleted apart from the others: all and by type per day of created_at, by
-- region and by each currency, and "updated" per day of updated_at.
-- +goose StatementBegin
CREATE FUNCTION customers_count_keys(c customers) RETURNS TABLE (key text, day date) LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN c.is_deleted THEN 'deleted' ELSE 'live' END || k.key, k.day
    FROM (VALUES ('', list_counts_day(c.created_at)),
                 ('&customerType=' || c.customer_type, list_counts_day(c.created_at)),
                 ('&region=' || c.region, '-infinity'::date),
                 ('&updated', list_counts_day(c.updated_at))
          UNION
          SELECT '&currency=' || cur, '-infinity'::date FROM unnest(c.currencies) AS cur) AS k (key, day)
$$;
-- +goose StatementEnd

-- Customers' internal accounts that are not closed: all, by currency and by type.
-- +goose StatementBegin
CREATE FUNCTION internal_accounts_count_keys(a internal_accounts) RETURNS TABLE (key text, day date) LANGUAGE sql STABLE AS $$
    SELECT k.key, '-infinity'::date
    FROM (VALUES (''), ('currency=' || a.currency), ('type=' || a.type)) AS k (key)
    WHERE a.customer_id IS NOT NULL AND a.status <> 'CLOSED'
$$;
-- +goose StatementEnd

-- External accounts that are not deleted, customers' apart from the platform's: all and by
-- currency.
-- +goose StatementBegin
CREATE FUNCTION external_accounts_count_keys(e external_accounts) RETURNS TABLE (key text, day date) LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN e.customer_id IS NULL THEN 'owner=platform' ELSE 'owner=customer' END || k.key, '-infinity'::date
    FROM (VALUES (''), ('&currency=' || e.currency)) AS k (key)
    WHERE NOT e.is_deleted
$$;
-- +goose StatementEnd

-- The triggers: one statement-level function per table (transition tables make a bulk
-- insert one grouped insert of deltas).
-- +goose StatementBegin
CREATE FUNCTION transactions_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'transactions', k.key, k.day, count(*)
        FROM new_rows r CROSS JOIN LATERAL transactions_count_keys(ROW(r.*)::transactions) k
        GROUP BY r.platform_id, k.key, k.day;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT (x.r).platform_id, 'transactions', k.key, k.day, sum(x.sign)
        FROM (SELECT ROW(r.*)::transactions AS r, 1 AS sign FROM new_rows r
              UNION ALL SELECT ROW(r.*)::transactions, -1 FROM old_rows r) x
        CROSS JOIN LATERAL transactions_count_keys(x.r) k
        GROUP BY (x.r).platform_id, k.key, k.day HAVING sum(x.sign) <> 0;
    ELSE
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'transactions', k.key, k.day, -count(*)
        FROM old_rows r CROSS JOIN LATERAL transactions_count_keys(ROW(r.*)::transactions) k
        GROUP BY r.platform_id, k.key, k.day;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION webhook_events_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'webhook_events', k.key, k.day, count(*)
        FROM new_rows r CROSS JOIN LATERAL webhook_events_count_keys(ROW(r.*)::webhook_events) k
        GROUP BY r.platform_id, k.key, k.day;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT (x.r).platform_id, 'webhook_events', k.key, k.day, sum(x.sign)
        FROM (SELECT ROW(r.*)::webhook_events AS r, 1 AS sign FROM new_rows r
              UNION ALL SELECT ROW(r.*)::webhook_events, -1 FROM old_rows r) x
        CROSS JOIN LATERAL webhook_events_count_keys(x.r) k
        GROUP BY (x.r).platform_id, k.key, k.day HAVING sum(x.sign) <> 0;
    ELSE
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'webhook_events', k.key, k.day, -count(*)
        FROM old_rows r CROSS JOIN LATERAL webhook_events_count_keys(ROW(r.*)::webhook_events) k
        GROUP BY r.platform_id, k.key, k.day;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION customers_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'customers', k.key, k.day, count(*)
        FROM new_rows r CROSS JOIN LATERAL customers_count_keys(ROW(r.*)::customers) k
        GROUP BY r.platform_id, k.key, k.day;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT (x.r).platform_id, 'customers', k.key, k.day, sum(x.sign)
        FROM (SELECT ROW(r.*)::customers AS r, 1 AS sign FROM new_rows r
              UNION ALL SELECT ROW(r.*)::customers, -1 FROM old_rows r) x
        CROSS JOIN LATERAL customers_count_keys(x.r) k
        GROUP BY (x.r).platform_id, k.key, k.day HAVING sum(x.sign) <> 0;
    ELSE
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'customers', k.key, k.day, -count(*)
        FROM old_rows r CROSS JOIN LATERAL customers_count_keys(ROW(r.*)::customers) k
        GROUP BY r.platform_id, k.key, k.day;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION internal_accounts_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'internal_accounts', k.key, k.day, count(*)
        FROM new_rows r CROSS JOIN LATERAL internal_accounts_count_keys(ROW(r.*)::internal_accounts) k
        GROUP BY r.platform_id, k.key, k.day;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT (x.r).platform_id, 'internal_accounts', k.key, k.day, sum(x.sign)
        FROM (SELECT ROW(r.*)::internal_accounts AS r, 1 AS sign FROM new_rows r
              UNION ALL SELECT ROW(r.*)::internal_accounts, -1 FROM old_rows r) x
        CROSS JOIN LATERAL internal_accounts_count_keys(x.r) k
        GROUP BY (x.r).platform_id, k.key, k.day HAVING sum(x.sign) <> 0;
    ELSE
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'internal_accounts', k.key, k.day, -count(*)
        FROM old_rows r CROSS JOIN LATERAL internal_accounts_count_keys(ROW(r.*)::internal_accounts) k
        GROUP BY r.platform_id, k.key, k.day;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION external_accounts_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'external_accounts', k.key, k.day, count(*)
        FROM new_rows r CROSS JOIN LATERAL external_accounts_count_keys(ROW(r.*)::external_accounts) k
        GROUP BY r.platform_id, k.key, k.day;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT (x.r).platform_id, 'external_accounts', k.key, k.day, sum(x.sign)
        FROM (SELECT ROW(r.*)::external_accounts AS r, 1 AS sign FROM new_rows r
              UNION ALL SELECT ROW(r.*)::external_accounts, -1 FROM old_rows r) x
        CROSS JOIN LATERAL external_accounts_count_keys(x.r) k
        GROUP BY (x.r).platform_id, k.key, k.day HAVING sum(x.sign) <> 0;
    ELSE
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'external_accounts', k.key, k.day, -count(*)
        FROM old_rows r CROSS JOIN LATERAL external_accounts_count_keys(ROW(r.*)::external_accounts) k
        GROUP BY r.platform_id, k.key, k.day;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- A truncated table takes its counts with it.
-- +goose StatementBegin
CREATE FUNCTION list_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM list_counts WHERE list = TG_TABLE_NAME;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER transactions_count_insert AFTER INSERT ON transactions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transactions_count();
CREATE TRIGGER transactions_count_update AFTER UPDATE ON transactions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION transactions_count();
CREATE TRIGGER transactions_count_delete AFTER DELETE ON transactions
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION transactions_count();
CREATE TRIGGER transactions_count_truncate AFTER TRUNCATE ON transactions
    FOR EACH STATEMENT EXECUTE FUNCTION list_counts_truncate();

CREATE TRIGGER webhook_events_count_insert AFTER INSERT ON webhook_events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_count();
CREATE TRIGGER webhook_events_count_update AFTER UPDATE ON webhook_events
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_count();
CREATE TRIGGER webhook_events_count_delete AFTER DELETE ON webhook_events
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_count();
CREATE TRIGGER webhook_events_count_truncate AFTER TRUNCATE ON webhook_events
    FOR EACH STATEMENT EXECUTE FUNCTION list_counts_truncate();

CREATE TRIGGER customers_count_insert AFTER INSERT ON customers
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION customers_count();
CREATE TRIGGER customers_count_update AFTER UPDATE ON customers
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION customers_count();
CREATE TRIGGER customers_count_delete AFTER DELETE ON customers
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION customers_count();
CREATE TRIGGER customers_count_truncate AFTER TRUNCATE ON customers
    FOR EACH STATEMENT EXECUTE FUNCTION list_counts_truncate();

CREATE TRIGGER internal_accounts_count_insert AFTER INSERT ON internal_accounts
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION internal_accounts_count();
CREATE TRIGGER internal_accounts_count_update AFTER UPDATE ON internal_accounts
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION internal_accounts_count();
CREATE TRIGGER internal_accounts_count_delete AFTER DELETE ON internal_accounts
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION internal_accounts_count();
CREATE TRIGGER internal_accounts_count_truncate AFTER TRUNCATE ON internal_accounts
    FOR EACH STATEMENT EXECUTE FUNCTION list_counts_truncate();

CREATE TRIGGER external_accounts_count_insert AFTER INSERT ON external_accounts
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION external_accounts_count();
CREATE TRIGGER external_accounts_count_update AFTER UPDATE ON external_accounts
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION external_accounts_count();
CREATE TRIGGER external_accounts_count_delete AFTER DELETE ON external_accounts
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION external_accounts_count();
CREATE TRIGGER external_accounts_count_truncate AFTER TRUNCATE ON external_accounts
    FOR EACH STATEMENT EXECUTE FUNCTION list_counts_truncate();

-- Counts of the rows already there (the triggers above hold the tables' write locks until
-- this migration commits, so nothing is missed or counted twice).
INSERT INTO list_counts (platform_id, list, key, day, n, compacted)
SELECT t.platform_id, 'transactions', k.key, k.day, count(*), true
FROM transactions t CROSS JOIN LATERAL transactions_count_keys(t) k GROUP BY 1, 3, 4;
INSERT INTO list_counts (platform_id, list, key, day, n, compacted)
SELECT e.platform_id, 'webhook_events', k.key, k.day, count(*), true
FROM webhook_events e CROSS JOIN LATERAL webhook_events_count_keys(e) k GROUP BY 1, 3, 4;
INSERT INTO list_counts (platform_id, list, key, day, n, compacted)
SELECT c.platform_id, 'customers', k.key, k.day, count(*), true
FROM customers c CROSS JOIN LATERAL customers_count_keys(c) k GROUP BY 1, 3, 4;
INSERT INTO list_counts (platform_id, list, key, day, n, compacted)
SELECT a.platform_id, 'internal_accounts', k.key, k.day, count(*), true
FROM internal_accounts a CROSS JOIN LATERAL internal_accounts_count_keys(a) k GROUP BY 1, 3, 4;
INSERT INTO list_counts (platform_id, list, key, day, n, compacted)
SELECT e.platform_id, 'external_accounts', k.key, k.day, count(*), true
FROM external_accounts e CROSS JOIN LATERAL external_accounts_count_keys(e) k GROUP BY 1, 3, 4;

-- Indexes in each filter's keyset order. Transactions are listed by (created_at, id).
DROP INDEX transactions_status_idx;
DROP INDEX transactions_source_idx;
DROP INDEX transactions_destination_idx;
CREATE INDEX transactions_status_idx ON transactions (platform_id, status, created_at, id);
CREATE INDEX transactions_type_idx ON transactions (platform_id, type, created_at, id);
CREATE INDEX transactions_platform_customer_idx ON transactions (platform_id, platform_customer_id, created_at, id);
CREATE INDEX transactions_source_idx ON transactions (source_account_id, created_at, id);
CREATE INDEX transactions_destination_idx ON transactions (destination_account_id, created_at, id);
CREATE INDEX transactions_platform_own_idx ON transactions (platform_id, created_at, id) WHERE customer_id IS NULL;
-- The other lists are listed by id; the date indexes serve date filters and the partial
-- days of their counts.
CREATE INDEX webhook_events_type_idx ON webhook_events (platform_id, type, id);
CREATE INDEX webhook_events_status_idx ON webhook_events (platform_id, status, id);
CREATE INDEX webhook_events_created_idx ON webhook_events (platform_id, created_at);
CREATE INDEX customers_type_idx ON customers (platform_id, customer_type, id);
CREATE INDEX customers_region_idx ON customers (platform_id, region, id);
CREATE INDEX customers_created_idx ON customers (platform_id, created_at);
CREATE INDEX customers_updated_idx ON customers (platform_id, updated_at);
CREATE INDEX internal_accounts_currency_idx ON internal_accounts (platform_id, currency, id);
CREATE INDEX internal_accounts_type_idx ON internal_accounts (platform_id, type, id);
CREATE INDEX external_accounts_currency_idx ON external_accounts (platform_id, currency, id);

-- +goose Down
DROP INDEX external_accounts_currency_idx;
DROP INDEX internal_accounts_type_idx;
DROP INDEX internal_accounts_currency_idx;
DROP INDEX customers_updated_idx;
DROP INDEX customers_created_idx;
DROP INDEX customers_region_idx;
DROP INDEX customers_type_idx;
DROP INDEX webhook_events_created_idx;
DROP INDEX webhook_events_status_idx;
DROP INDEX webhook_events_type_idx;
DROP INDEX transactions_platform_own_idx;
DROP INDEX transactions_destination_idx;
DROP INDEX transactions_source_idx;
DROP INDEX transactions_platform_customer_idx;
DROP INDEX transactions_type_idx;
DROP INDEX transactions_status_idx;
CREATE INDEX transactions_status_idx ON transactions (platform_id, status);
CREATE INDEX transactions_source_idx ON transactions (source_account_id);
CREATE INDEX transactions_destination_idx ON transactions (destination_account_id);
DROP TRIGGER external_accounts_count_truncate ON external_accounts;
DROP TRIGGER external_accounts_count_delete ON external_accounts;
DROP TRIGGER external_accounts_count_update ON external_accounts;
DROP TRIGGER external_accounts_count_insert ON external_accounts;
DROP TRIGGER internal_accounts_count_truncate ON internal_accounts;
DROP TRIGGER internal_accounts_count_delete ON internal_accounts;
DROP TRIGGER internal_accounts_count_update ON internal_accounts;
DROP TRIGGER internal_accounts_count_insert ON internal_accounts;
DROP TRIGGER customers_count_truncate ON customers;
DROP TRIGGER customers_count_delete ON customers;
DROP TRIGGER customers_count_update ON customers;
DROP TRIGGER customers_count_insert ON customers;
DROP TRIGGER webhook_events_count_truncate ON webhook_events;
DROP TRIGGER webhook_events_count_delete ON webhook_events;
DROP TRIGGER webhook_events_count_update ON webhook_events;
DROP TRIGGER webhook_events_count_insert ON webhook_events;
DROP TRIGGER transactions_count_truncate ON transactions;
DROP TRIGGER transactions_count_delete ON transactions;
DROP TRIGGER transactions_count_update ON transactions;
DROP TRIGGER transactions_count_insert ON transactions;
DROP FUNCTION list_counts_truncate();
DROP FUNCTION external_accounts_count();
DROP FUNCTION internal_accounts_count();
DROP FUNCTION customers_count();
DROP FUNCTION webhook_events_count();
DROP FUNCTION transactions_count();
DROP FUNCTION external_accounts_count_keys(external_accounts);
DROP FUNCTION internal_accounts_count_keys(internal_accounts);
DROP FUNCTION customers_count_keys(customers);
DROP FUNCTION webhook_events_count_keys(webhook_events);
DROP FUNCTION transactions_count_keys(transactions);
DROP FUNCTION list_counts_day(timestamptz);
DROP TABLE list_counts;
