-- +goose Up

-- How many document files a KYC link has stored over all its submissions, replaced ones
-- included: a link takes a bounded number (PAYCORE_KYC_LINK_DOCUMENTS).
ALTER TABLE kyc_links ADD COLUMN documents_stored integer NOT NULL DEFAULT 0 CHECK (documents_stored >= 0);

-- A slot of the hosted page (a holder's document of one type, without a side) is found
-- by these columns when a resubmission replaces it.
CREATE INDEX documents_holder_type_idx ON documents (holder_id, document_type);

-- +goose Down
DROP INDEX documents_holder_type_idx;
ALTER TABLE kyc_links DROP COLUMN documents_stored;
