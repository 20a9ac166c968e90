-- +goose Up

-- Beneficial owners, directors and officers of a business customer. Each goes through KYC
-- (kyc_status); personal_info is the checked BeneficialOwnerPersonalInfo document.
CREATE TABLE beneficial_owners (
    id                   uuid PRIMARY KEY,
    platform_id          uuid        NOT NULL REFERENCES platforms (id),
    customer_id          uuid        NOT NULL REFERENCES customers (id),
    roles                text[]      NOT NULL CHECK (cardinality(roles) > 0),
    ownership_percentage integer     NOT NULL CHECK (ownership_percentage BETWEEN 0 AND 100),
    personal_info        jsonb       NOT NULL,
    kyc_status           text        NOT NULL DEFAULT 'PENDING'
        CHECK (kyc_status IN ('UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED')),
    -- Set when the owner's KYC decided (the decision of a PENDING status is a manual review).
    kyc_decided_at       timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX beneficial_owners_customer_idx ON beneficial_owners (platform_id, customer_id, id);

-- Verifications (KYC of an individual, KYB of a business). One verification of a customer
-- is open at a time: RESOLVE_ERRORS (re-submitted by the next POST /verifications),
-- IN_PROGRESS or PENDING_MANUAL_REVIEW. errors is the VerificationError list.
CREATE TABLE verifications (
    id          uuid PRIMARY KEY,
    platform_id uuid        NOT NULL REFERENCES platforms (id),
    customer_id uuid        NOT NULL REFERENCES customers (id),
    status      text        NOT NULL CHECK (status IN ('RESOLVE_ERRORS', 'PENDING_MANUAL_REVIEW', 'IN_PROGRESS',
                                                       'APPROVED', 'REJECTED', 'READY_FOR_VERIFICATION')),
    errors      jsonb       NOT NULL DEFAULT '[]',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX verifications_platform_idx ON verifications (platform_id, id);
CREATE INDEX verifications_customer_idx ON verifications (platform_id, customer_id, id);
CREATE INDEX verifications_status_idx ON verifications (platform_id, status, id);
CREATE UNIQUE INDEX verifications_open_idx ON verifications (customer_id)
    WHERE status IN ('RESOLVE_ERRORS', 'IN_PROGRESS', 'PENDING_MANUAL_REVIEW', 'READY_FOR_VERIFICATION');

-- Hosted KYC links (POST /customers/{customerId}/kyc-link): single use, until expires_at.
-- Only the token's SHA-256 is stored; the URL carries the token.
CREATE TABLE kyc_links (
    id           uuid PRIMARY KEY,
    platform_id  uuid        NOT NULL REFERENCES platforms (id),
    customer_id  uuid        NOT NULL REFERENCES customers (id),
    token_hash   bytea       NOT NULL UNIQUE,
    redirect_uri text,
    expires_at   timestamptz NOT NULL,
    used_at      timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX kyc_links_customer_idx ON kyc_links (customer_id, id);

-- Exact list counts of verifications (see 0007): all of a platform's and by status.
-- +goose StatementBegin
CREATE FUNCTION verifications_count_keys(v verifications) RETURNS TABLE (key text, day date) LANGUAGE sql STABLE AS $$
    SELECT k.key, '-infinity'::date FROM (VALUES (''), ('status=' || v.status)) AS k (key)
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION verifications_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'verifications', k.key, k.day, count(*)
        FROM new_rows r CROSS JOIN LATERAL verifications_count_keys(ROW(r.*)::verifications) k
        GROUP BY r.platform_id, k.key, k.day;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT (x.r).platform_id, 'verifications', k.key, k.day, sum(x.sign)
        FROM (SELECT ROW(r.*)::verifications AS r, 1 AS sign FROM new_rows r
              UNION ALL SELECT ROW(r.*)::verifications, -1 FROM old_rows r) x
        CROSS JOIN LATERAL verifications_count_keys(x.r) k
        GROUP BY (x.r).platform_id, k.key, k.day HAVING sum(x.sign) <> 0;
    ELSE
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'verifications', k.key, k.day, -count(*)
        FROM old_rows r CROSS JOIN LATERAL verifications_count_keys(ROW(r.*)::verifications) k
        GROUP BY r.platform_id, k.key, k.day;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER verifications_count_insert AFTER INSERT ON verifications
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION verifications_count();
CREATE TRIGGER verifications_count_update AFTER UPDATE ON verifications
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION verifications_count();
CREATE TRIGGER verifications_count_delete AFTER DELETE ON verifications
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION verifications_count();
CREATE TRIGGER verifications_count_truncate AFTER TRUNCATE ON verifications
    FOR EACH STATEMENT EXECUTE FUNCTION list_counts_truncate();

-- +goose Down
DROP TABLE kyc_links;
DROP TABLE verifications CASCADE;
DROP FUNCTION verifications_count();
DELETE FROM list_counts WHERE list = 'verifications';
DROP TABLE beneficial_owners;
