-- +goose Up

-- KYC/KYB documents: only their metadata. The files are in the document store
-- (internal/infra/docstore), encrypted, under blob_key. holder_kind and holder_id name the
-- documentHolder (a customer or one of a business customer's beneficial owners);
-- customer_id is the customer verified with it (the holder itself, or the business the
-- owner belongs to), so a verification finds every document of a customer and its owners
-- at once. submitted_at is set when a verification takes the document in; from then on it
-- can be neither replaced nor deleted.
CREATE TABLE documents (
    id                uuid PRIMARY KEY,
    platform_id       uuid        NOT NULL REFERENCES platforms (id),
    holder_kind       text        NOT NULL CHECK (holder_kind IN ('Customer', 'BeneficialOwner')),
    holder_id         uuid        NOT NULL,
    customer_id       uuid        NOT NULL REFERENCES customers (id),
    document_type     text        NOT NULL CHECK (document_type IN ('PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID',
        'PROOF_OF_ADDRESS', 'BANK_STATEMENT', 'TAX_RETURN', 'CERTIFICATE_OF_INCORPORATION', 'ARTICLES_OF_INCORPORATION',
        'ARTICLES_OF_ASSOCIATION', 'STATE_REGISTRY_EXCERPT', 'GOOD_STANDING_CERTIFICATE', 'INFORMATION_STATEMENT',
        'INCUMBENCY_CERTIFICATE', 'BUSINESS_LICENSE', 'SHAREHOLDER_REGISTER', 'POWER_OF_ATTORNEY', 'UTILITY_BILL',
        'ELECTRICITY_BILL', 'RENT_OR_LEASE_AGREEMENT', 'DIRECTOR_REGISTRY', 'TRUST_AGREEMENT', 'STATE_COMPANY_REGISTRY',
        'PARTNERSHIP_CONTROL_AGREEMENT', 'PARTNERSHIP_AGREEMENT', 'SELFIE', 'OTHER')),
    side              text        CHECK (side IN ('FRONT', 'BACK')),
    country           text        NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
    document_number   text,
    issuing_authority text,
    file_name         text        NOT NULL,
    content_type      text        NOT NULL CHECK (content_type IN ('application/pdf', 'image/jpeg', 'image/png')),
    size_bytes        bigint      NOT NULL CHECK (size_bytes > 0 AND size_bytes <= 10485760),
    blob_key          text        NOT NULL UNIQUE,
    submitted_at      timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    -- A customer holds its own documents.
    CONSTRAINT documents_customer_holder CHECK (holder_kind <> 'Customer' OR holder_id = customer_id)
);
CREATE INDEX documents_platform_idx ON documents (platform_id, id);
CREATE INDEX documents_holder_idx ON documents (platform_id, holder_kind, holder_id, id);
CREATE INDEX documents_customer_idx ON documents (customer_id, id);

-- Exact list counts of documents (see 0007): all of a platform's; a holder's few are
-- counted row by row.
-- +goose StatementBegin
CREATE FUNCTION documents_count_keys(d documents) RETURNS TABLE (key text, day date) LANGUAGE sql STABLE AS $$
    SELECT ''::text, '-infinity'::date
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION documents_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'documents', k.key, k.day, count(*)
        FROM new_rows r CROSS JOIN LATERAL documents_count_keys(ROW(r.*)::documents) k
        GROUP BY r.platform_id, k.key, k.day;
    ELSE
        INSERT INTO list_counts (platform_id, list, key, day, n)
        SELECT r.platform_id, 'documents', k.key, k.day, -count(*)
        FROM old_rows r CROSS JOIN LATERAL documents_count_keys(ROW(r.*)::documents) k
        GROUP BY r.platform_id, k.key, k.day;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER documents_count_insert AFTER INSERT ON documents
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION documents_count();
CREATE TRIGGER documents_count_delete AFTER DELETE ON documents
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION documents_count();
CREATE TRIGGER documents_count_truncate AFTER TRUNCATE ON documents
    FOR EACH STATEMENT EXECUTE FUNCTION list_counts_truncate();

-- +goose Down
DROP TABLE documents CASCADE;
DROP FUNCTION documents_count();
DELETE FROM list_counts WHERE list = 'documents';
