-- One template for the list-count triggers (see 0007). Every counted list had its own copy
-- of the same trigger function; list_counts_install now writes that function and its
-- triggers from one template, and every counted table is reinstalled through it (the
-- functions keep their names and behaviour). A new counted list is one call:
--     SELECT list_counts_install('things', on_update => true);
-- after its <table>_count_keys(row) function exists. The table must be empty then or its
-- existing rows counted in the same migration (0007's backfill shows how).

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION list_counts_source(tbl text, on_update boolean) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
SELECT format($t$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, %1$L, k.key, k.day, count(*)
        FROM new_rows r CROSS JOIN LATERAL %2$I(ROW(r.*)::%3$I) k
        GROUP BY r.platform_id, k.key, k.day;
$t$, tbl, tbl || '_count_keys', tbl)
|| CASE WHEN on_update THEN format($t$    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT (x.r).platform_id, %1$L, k.key, k.day, sum(x.sign)
        FROM (SELECT ROW(r.*)::%3$I AS r, 1 AS sign FROM new_rows r
              UNION ALL SELECT ROW(r.*)::%3$I, -1 FROM old_rows r) x
        CROSS JOIN LATERAL %2$I(x.r) k
        GROUP BY (x.r).platform_id, k.key, k.day HAVING sum(x.sign) <> 0;
$t$, tbl, tbl || '_count_keys', tbl) ELSE '' END
|| format($t$    ELSE
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, %1$L, k.key, k.day, -count(*)
        FROM old_rows r CROSS JOIN LATERAL %2$I(ROW(r.*)::%3$I) k
        GROUP BY r.platform_id, k.key, k.day;
    END IF;
    RETURN NULL;
END;
$t$, tbl, tbl || '_count_keys', tbl)
$f$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION list_counts_install(tbl text, on_update boolean) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
    EXECUTE format('CREATE OR REPLACE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS %L',
        tbl || '_count', list_counts_source(tbl, on_update));
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', tbl || '_count_insert', tbl);
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', tbl || '_count_update', tbl);
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', tbl || '_count_delete', tbl);
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', tbl || '_count_truncate', tbl);
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
        'FOR EACH STATEMENT EXECUTE FUNCTION %I()', tbl || '_count_insert', tbl, tbl || '_count');
    IF on_update THEN
        EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows '
            'FOR EACH STATEMENT EXECUTE FUNCTION %I()', tbl || '_count_update', tbl, tbl || '_count');
    END IF;
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
        'FOR EACH STATEMENT EXECUTE FUNCTION %I()', tbl || '_count_delete', tbl, tbl || '_count');
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION list_counts_truncate()',
        tbl || '_count_truncate', tbl);
END;
$f$;
-- +goose StatementEnd

SELECT list_counts_install('transactions', on_update => true);
SELECT list_counts_install('webhook_events', on_update => true);
SELECT list_counts_install('customers', on_update => true);
SELECT list_counts_install('internal_accounts', on_update => true);
SELECT list_counts_install('external_accounts', on_update => true);
SELECT list_counts_install('verifications', on_update => true);
SELECT list_counts_install('documents', on_update => false);

-- +goose Down
-- The reinstalled functions and triggers behave as the ones they replaced; they stay.
DROP FUNCTION list_counts_install(text, boolean);
DROP FUNCTION list_counts_source(text, boolean);
