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

-- +goose Down
DROP TABLE kyc_links;
DROP TABLE verifications;
DROP TABLE beneficial_owners;
