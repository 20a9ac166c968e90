-- +goose Up

-- An individual's enhanced due diligence (customer.DueDiligence), and the KYC/KYB status
-- HOLD: the customer is on hold until it provides what its verification asks for.
ALTER TABLE customers ADD COLUMN due_diligence jsonb;
ALTER TABLE customers DROP CONSTRAINT customers_kyc_status_check;
ALTER TABLE customers ADD CONSTRAINT customers_kyc_status_check CHECK (kyc_status IN ('UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED', 'HOLD'));
ALTER TABLE beneficial_owners DROP CONSTRAINT beneficial_owners_kyc_status_check;
ALTER TABLE beneficial_owners ADD CONSTRAINT beneficial_owners_kyc_status_check CHECK (kyc_status IN ('UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED', 'HOLD'));

-- +goose Down
UPDATE beneficial_owners SET kyc_status = 'PENDING' WHERE kyc_status = 'HOLD';
ALTER TABLE beneficial_owners DROP CONSTRAINT beneficial_owners_kyc_status_check;
ALTER TABLE beneficial_owners ADD CONSTRAINT beneficial_owners_kyc_status_check CHECK (kyc_status IN ('UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED'));
UPDATE customers SET kyc_status = 'PENDING' WHERE kyc_status = 'HOLD';
ALTER TABLE customers DROP CONSTRAINT customers_kyc_status_check;
ALTER TABLE customers ADD CONSTRAINT customers_kyc_status_check CHECK (kyc_status IN ('UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED'));
ALTER TABLE customers DROP COLUMN due_diligence;
