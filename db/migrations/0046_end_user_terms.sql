-- +goose Up

-- A customer's recorded acceptance of the End User Terms (endUserTermsConsent), and whether
-- a platform requires one before moving its customers' money.
ALTER TABLE customers ADD COLUMN end_user_terms_consent jsonb;
ALTER TABLE platforms ADD COLUMN end_user_terms_required boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE platforms DROP COLUMN end_user_terms_required;
ALTER TABLE customers DROP COLUMN end_user_terms_consent;
