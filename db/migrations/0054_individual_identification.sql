-- +goose Up

-- An individual's tax identification (customer.Identification): its type and issuing
-- country, and the identifier sealed with the deployment's secret box (write-only: never
-- shown, never stored in clear).
ALTER TABLE customers ADD COLUMN id_type text CHECK (id_type IN ('SSN', 'ITIN'));
ALTER TABLE customers ADD COLUMN id_country text;
ALTER TABLE customers ADD COLUMN id_number_sealed bytea;
ALTER TABLE customers ADD CONSTRAINT customers_identification_check
    CHECK ((id_type IS NULL) = (id_number_sealed IS NULL) AND (id_type IS NULL) = (id_country IS NULL));

-- +goose Down
ALTER TABLE customers DROP CONSTRAINT customers_identification_check;
ALTER TABLE customers DROP COLUMN id_number_sealed;
ALTER TABLE customers DROP COLUMN id_country;
ALTER TABLE customers DROP COLUMN id_type;
